package unit15

// The GEMMs of 15.2: C = A·B for row-major A (m×k), B (k×n) and C (m×n),
// three ways, each a kernel on the emulator. Each returns its launch's
// Stats; sizes that are not positive, or buffers that do not hold them,
// are an error wrapping unit00.ErrInvalid.

// Tile is the side of the square tiles of GemmTiled and the depth of
// GemmRegister's, and the side of both's blocks of threads.
const Tile = 16

// Reg is the side of the square of C each thread of GemmRegister
// computes: a block of Tile × Tile threads computes Tile·Reg × Tile·Reg.
const Reg = 4

// GemmNaive gives every element of C its own thread, which reads a row of
// A and a column of B from global memory: 2k loads for 2k operations.
// Blocks of Tile × Tile threads; x runs along C's columns, so a warp's
// threads read neighbouring words of B.
func GemmNaive(c, a, b *Global, m, n, k int) (Stats, error) {
	panic("TODO(15.2): write GemmNaive, see docs/unit15.md")
}

// GemmTiled computes a Tile × Tile square of C per block, stepping along k
// a tile at a time: the block's threads copy a tile of A and a tile of B
// into shared memory, one word each, wait for each other, and multiply
// from there, so each word loaded from global memory serves Tile threads.
// Outside the matrices a tile is filled with zeros, so sizes need not be
// multiples of Tile; every thread reaches both barriers of every step.
func GemmTiled(c, a, b *Global, m, n, k int) (Stats, error) {
	panic("TODO(15.2): write GemmTiled, see docs/unit15.md")
}

// GemmRegister computes a (Tile·Reg)² square of C per block, each thread
// Reg × Reg elements of it held in registers (Go variables): per step of
// Tile along k the block loads a 64 × 16 tile of A and a 16 × 64 tile of
// B into shared memory, Reg words of each per thread, and every word a
// thread reads from shared memory serves Reg multiply-adds. A thread's
// rows are Tile apart and so are its columns: the threads of a warp then
// read neighbouring words, from different banks.
func GemmRegister(c, a, b *Global, m, n, k int) (Stats, error) {
	panic("TODO(15.2): write GemmRegister, see docs/unit15.md")
}
