package unit09

import (
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// QMatrix is a weight matrix stored [out, in] in one of ggml's types, as a
// GGUF tensor holds it: Rows rows of RowBytes(Cols) bytes each. It is a
// unit05.Matrix, so a model runs on quantized weights unchanged: MulT
// quantizes each row of activations once (VecDotType) and takes its dot
// products with every weight row, without ever dequantizing the weights.
// Data may be a view of a memory-mapped file; QMatrix never writes to it.
type QMatrix struct {
	Type       unit01.DType
	Rows, Cols int
	Data       []byte
	rowBytes   int
}

// NewQMatrix wraps data as a rows×cols matrix of type dt. A type this
// package cannot multiply, a cols that is not a whole number of blocks, or
// data of the wrong size is an error wrapping unit00.ErrUnsupported or
// unit00.ErrInvalid. So is a matrix without columns (cols ≤ 0) or with
// negative rows.
func NewQMatrix(dt unit01.DType, rows, cols int, data []byte) (*QMatrix, error) {
	panic("TODO(9.4): write NewQMatrix, see docs/unit09.md")
}

// QuantizeMatrix quantizes a float32 matrix to type dt, row by row. Its
// errors are NewQMatrix's (a nil matrix and an error wrapping
// unit00.ErrUnsupported or unit00.ErrInvalid).
func QuantizeMatrix(dt unit01.DType, w unit03.Mat) (*QMatrix, error) {
	panic("TODO(9.4): write QuantizeMatrix, see docs/unit09.md")
}

// Dims returns the matrix's shape.
func (m *QMatrix) Dims() (out, in int) {
	panic("TODO(9.4): write QMatrix.Dims, see docs/unit09.md")
}

// Row dequantizes row i into dst (len Cols): an embedding lookup. It
// panics (unit00.Check) unless 0 ≤ i < Rows and len(dst) = Cols.
func (m *QMatrix) Row(dst []float32, i int) {
	panic("TODO(9.4): write QMatrix.Row, see docs/unit09.md")
}

// MulT sets y = x·Wᵀ: row t of y holds the dot products of row t of x with
// every row of W. Each activation row is quantized once to VecDotType;
// then the weight rows are shared out over the pool, and each weight row,
// once loaded, meets every activation row. It allocates nothing in steady
// state. It panics (unit00.Check) unless x is T×Cols and y is T×Rows, for
// the same T.
func (m *QMatrix) MulT(p *unit03.Pool, y, x unit03.Mat) {
	panic("TODO(9.4): write QMatrix.MulT, see docs/unit09.md")
}
