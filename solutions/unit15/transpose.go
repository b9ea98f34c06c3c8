package unit15

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

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
	if err := checkTranspose(out, in, rows, cols); err != nil {
		return Stats{}, err
	}
	return Launch(squares(rows, cols), Dim3{Side, SideRows, 1}, 0, func(t *Thread) {
		col := t.BlockIdx.X*Side + t.Idx.X
		for j := 0; j < Side; j += SideRows {
			row := t.BlockIdx.Y*Side + t.Idx.Y + j
			if row < rows && col < cols {
				t.Store(out, col*rows+row, t.Load(in, row*cols+col))
			}
		}
	})
}

// TransposeShared copies the square into shared memory row by row,
// waits for the block, and writes out's rows from the square's columns:
// global reads and writes both by neighbouring words. The square's
// columns are Side words apart in shared memory, all in one bank.
func TransposeShared(out, in *Global, rows, cols int) (Stats, error) {
	return transposeTiled(out, in, rows, cols, Side)
}

// TransposePadded is TransposeShared with the square's rows Side+1 words
// apart in shared memory: a column then crosses every bank once.
func TransposePadded(out, in *Global, rows, cols int) (Stats, error) {
	return transposeTiled(out, in, rows, cols, Side+1)
}

// transposeTiled is the transpose through shared memory whose square has
// rows stride words apart.
func transposeTiled(out, in *Global, rows, cols, stride int) (Stats, error) {
	if err := checkTranspose(out, in, rows, cols); err != nil {
		return Stats{}, err
	}
	return Launch(squares(rows, cols), Dim3{Side, SideRows, 1}, Side*stride, func(t *Thread) {
		tx, ty := t.Idx.X, t.Idx.Y
		row0, col0 := t.BlockIdx.Y*Side, t.BlockIdx.X*Side
		for j := 0; j < Side; j += SideRows {
			if row, col := row0+ty+j, col0+tx; row < rows && col < cols {
				t.SharedStore((ty+j)*stride+tx, t.Load(in, row*cols+col))
			}
		}
		t.SyncThreads()
		for j := 0; j < Side; j += SideRows {
			// out's row col0+ty+j is in's column: the square's column ty+j.
			if row, col := row0+tx, col0+ty+j; row < rows && col < cols {
				t.Store(out, col*rows+row, t.SharedLoad(tx*stride+ty+j))
			}
		}
	})
}

// squares is the grid of a transpose: a block per Side × Side square.
func squares(rows, cols int) Dim3 {
	return Dim3{(cols + Side - 1) / Side, (rows + Side - 1) / Side, 1}
}

func checkTranspose(out, in *Global, rows, cols int) error {
	if rows < 1 || cols < 1 || len(in.Data) != rows*cols || len(out.Data) != rows*cols {
		return fmt.Errorf("transpose: %d × %d with buffers of %d (in) and %d (out) words: want positive sizes and rows·cols words each: %w",
			rows, cols, len(in.Data), len(out.Data), unit00.ErrInvalid)
	}
	return nil
}
