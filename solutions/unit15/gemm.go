package unit15

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

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
	if err := checkGemm(c, a, b, m, n, k); err != nil {
		return Stats{}, err
	}
	grid := Dim3{(n + Tile - 1) / Tile, (m + Tile - 1) / Tile, 1}
	return Launch(grid, Dim3{Tile, Tile, 1}, 0, func(t *Thread) {
		row, col := t.BlockIdx.Y*Tile+t.Idx.Y, t.BlockIdx.X*Tile+t.Idx.X
		if row >= m || col >= n {
			return
		}
		var sum float32
		for p := range k {
			sum += t.Load(a, row*k+p) * t.Load(b, p*n+col)
		}
		t.Store(c, row*n+col, sum)
	})
}

// GemmTiled computes a Tile × Tile square of C per block, stepping along k
// a tile at a time: the block's threads copy a tile of A and a tile of B
// into shared memory, one word each, wait for each other, and multiply
// from there, so each word loaded from global memory serves Tile threads.
// Outside the matrices a tile is filled with zeros, so sizes need not be
// multiples of Tile; every thread reaches both barriers of every step.
func GemmTiled(c, a, b *Global, m, n, k int) (Stats, error) {
	if err := checkGemm(c, a, b, m, n, k); err != nil {
		return Stats{}, err
	}
	grid := Dim3{(n + Tile - 1) / Tile, (m + Tile - 1) / Tile, 1}
	const bs = Tile * Tile // where B's tile starts in shared memory
	return Launch(grid, Dim3{Tile, Tile, 1}, 2*Tile*Tile, func(t *Thread) {
		tx, ty := t.Idx.X, t.Idx.Y
		row, col := t.BlockIdx.Y*Tile+ty, t.BlockIdx.X*Tile+tx
		var sum float32
		for p0 := 0; p0 < k; p0 += Tile {
			t.SharedStore(ty*Tile+tx, loadOr0(t, a, row, p0+tx, m, k))
			t.SharedStore(bs+ty*Tile+tx, loadOr0(t, b, p0+ty, col, k, n))
			t.SyncThreads()
			for p := range Tile {
				sum += t.SharedLoad(ty*Tile+p) * t.SharedLoad(bs+p*Tile+tx)
			}
			t.SyncThreads()
		}
		if row < m && col < n {
			t.Store(c, row*n+col, sum)
		}
	})
}

// GemmRegister computes a (Tile·Reg)² square of C per block, each thread
// Reg × Reg elements of it held in registers (Go variables): per step of
// Tile along k the block loads a 64 × 16 tile of A and a 16 × 64 tile of
// B into shared memory, Reg words of each per thread, and every word a
// thread reads from shared memory serves Reg multiply-adds. A thread's
// rows are Tile apart and so are its columns: the threads of a warp then
// read neighbouring words, from different banks.
func GemmRegister(c, a, b *Global, m, n, k int) (Stats, error) {
	if err := checkGemm(c, a, b, m, n, k); err != nil {
		return Stats{}, err
	}
	const side = Tile * Reg // 64: the block's square of C
	const bs = side * Tile  // where B's tile starts in shared memory
	grid := Dim3{(n + side - 1) / side, (m + side - 1) / side, 1}
	return Launch(grid, Dim3{Tile, Tile, 1}, 2*side*Tile, func(t *Thread) {
		tx, ty := t.Idx.X, t.Idx.Y
		id := ty*Tile + tx
		row0, col0 := t.BlockIdx.Y*side, t.BlockIdx.X*side
		var acc [Reg][Reg]float32
		for p0 := 0; p0 < k; p0 += Tile {
			for q := range Reg {
				i := id + q*Tile*Tile
				r, p := i/Tile, i%Tile // A's tile, 64 × 16, row by row
				t.SharedStore(r*Tile+p, loadOr0(t, a, row0+r, p0+p, m, k))
				p, col := i/side, i%side // B's tile, 16 × 64, row by row
				t.SharedStore(bs+p*side+col, loadOr0(t, b, p0+p, col0+col, k, n))
			}
			t.SyncThreads()
			for p := range Tile {
				var av, bv [Reg]float32
				for i := range Reg {
					av[i] = t.SharedLoad((ty+i*Tile)*Tile + p)
					bv[i] = t.SharedLoad(bs + p*side + tx + i*Tile)
				}
				for i := range Reg {
					for j := range Reg {
						acc[i][j] += av[i] * bv[j]
					}
				}
			}
			t.SyncThreads()
		}
		for i := range Reg {
			for j := range Reg {
				if row, col := row0+ty+i*Tile, col0+tx+j*Tile; row < m && col < n {
					t.Store(c, row*n+col, acc[i][j])
				}
			}
		}
	})
}

// loadOr0 loads element (r, col) of the rows×cols matrix g, or 0 outside it.
func loadOr0(t *Thread, g *Global, r, col, rows, cols int) float32 {
	if r >= rows || col >= cols {
		return 0
	}
	return t.Load(g, r*cols+col)
}

func checkGemm(c, a, b *Global, m, n, k int) error {
	if m < 1 || n < 1 || k < 1 || len(a.Data) != m*k || len(b.Data) != k*n || len(c.Data) != m*n {
		return fmt.Errorf("gemm: m, n, k = %d, %d, %d with buffers of %d, %d and %d words: want positive sizes, A m×k, B k×n, C m×n: %w",
			m, n, k, len(a.Data), len(b.Data), len(c.Data), unit00.ErrInvalid)
	}
	return nil
}
