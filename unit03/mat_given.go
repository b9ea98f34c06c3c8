// Package unit03 multiplies matrices: the naive triple loop (3.1), loop
// order and cache blocking with packed panels (3.2), threads (3.3), SIMD
// micro-kernels in Go assembly (3.4) and the matrix–vector product that
// dominates decoding (3.5).
//
// Read docs/unit03.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit03

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

// Mat is a row-major float32 matrix view: element (i, j) is
// Data[i*Stride+j], for 0 ≤ i < Rows and 0 ≤ j < Cols. Stride ≥ Cols lets a
// Mat be a block of a larger matrix without copying.
type Mat struct {
	Rows, Cols, Stride int
	Data               []float32
}

// NewMat returns a zeroed rows×cols matrix with Stride = cols.
func NewMat(rows, cols int) Mat {
	unit00.Check(rows >= 0 && cols >= 0, "NewMat: negative size")
	return Mat{Rows: rows, Cols: cols, Stride: cols, Data: make([]float32, rows*cols)}
}

// MatOf wraps data as a rows×cols matrix with Stride = cols.
func MatOf(rows, cols int, data []float32) Mat {
	unit00.Check(len(data) >= rows*cols, "MatOf: data shorter than rows×cols")
	return Mat{Rows: rows, Cols: cols, Stride: cols, Data: data}
}

// At returns element (i, j).
func (m Mat) At(i, j int) float32 { return m.Data[i*m.Stride+j] }

// Set sets element (i, j).
func (m Mat) Set(i, j int, v float32) { m.Data[i*m.Stride+j] = v }

// Row returns row i as a slice of Cols elements sharing m's data.
func (m Mat) Row(i int) []float32 { return m.Data[i*m.Stride : i*m.Stride+m.Cols] }

// Block returns the view of rows [i0, i1) and columns [j0, j1), sharing m's
// data (its Stride stays m's).
func (m Mat) Block(i0, i1, j0, j1 int) Mat {
	unit00.Check(0 <= i0 && i0 <= i1 && i1 <= m.Rows && 0 <= j0 && j0 <= j1 && j1 <= m.Cols, "Block: out of range")
	if i1 == i0 || j1 == j0 {
		return Mat{Rows: i1 - i0, Cols: j1 - j0, Stride: m.Stride}
	}
	return Mat{Rows: i1 - i0, Cols: j1 - j0, Stride: m.Stride, Data: m.Data[i0*m.Stride+j0 : (i1-1)*m.Stride+j1]}
}

// String describes the shape, e.g. "3×4 (stride 8)".
func (m Mat) String() string {
	return fmt.Sprintf("%d×%d (stride %d)", m.Rows, m.Cols, m.Stride)
}

// checkProduct panics (unit00.Check) unless c = a·b is shape-correct, with
// b holding K×N (transB false) or N×K (transB true), and every matrix's
// data long enough for its shape and stride.
func checkProduct(op string, c, a, b Mat, transB bool) {
	bk, bn := b.Rows, b.Cols
	if transB {
		bk, bn = b.Cols, b.Rows
	}
	if a.Cols != bk || c.Rows != a.Rows || c.Cols != bn {
		unit00.Checkf(false, "%s: shapes do not fit: C %v, A %v, B %v (transposed %v)", op, c, a, b, transB)
	}
	for _, m := range []Mat{a, b, c} {
		if m.Stride < m.Cols || (m.Rows > 0 && m.Cols > 0 && len(m.Data) < (m.Rows-1)*m.Stride+m.Cols) {
			unit00.Checkf(false, "%s: matrix %v has too little data (%d floats) or a stride below its width", op, m, len(m.Data))
		}
	}
}
