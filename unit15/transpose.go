package unit15

// The transposes of 15.3: out = inᵀ for a row-major in (rows × cols) and
// out (cols × rows). Each kernel moves a Side × Side square of the matrix
// per block of Side × SideRows threads, every thread Side/SideRows words
// of it, and each returns its launch's Stats. Sizes that are not
// positive, or buffers that do not hold rows·cols words, are an error
// wrapping unit00.ErrInvalid.

// Side is the side of a transpose's square: a warp's 32 threads share one
// row of it.
const Side = 32

// SideRows is the height of a transpose's block: each thread moves the
// words Side/SideRows rows apart.
const SideRows = 8

// TransposeNaive reads a row of the square, each warp 32 neighbouring
// words of in, and writes each word straight to its place in out: down a
// column of out, 32 words a whole row of out apart.
func TransposeNaive(out, in *Global, rows, cols int) (Stats, error) {
	panic("TODO(15.3): write TransposeNaive, see docs/unit15.md")
}

// TransposeShared copies the square into shared memory row by row,
// waits for the block, and writes out's rows from the square's columns:
// global reads and writes both by neighbouring words. The square's
// columns are Side words apart in shared memory, all in one bank.
func TransposeShared(out, in *Global, rows, cols int) (Stats, error) {
	panic("TODO(15.3): write TransposeShared, see docs/unit15.md")
}

// TransposePadded is TransposeShared with the square's rows Side+1 words
// apart in shared memory: a column then crosses every bank once.
func TransposePadded(out, in *Global, rows, cols int) (Stats, error) {
	panic("TODO(15.3): write TransposePadded, see docs/unit15.md")
}
