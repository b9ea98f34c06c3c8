package unit02

import (
	"github.com/llmforge/forge/unit01"
)

// RMSNormRow sets dst = x / sqrt(mean(x²) + eps) · weight, Llama's
// normalisation of one row. eps goes inside the square root; it keeps a row
// of zeros finite. dst may be x. It panics (unit00.Check) if the lengths
// differ or x is empty.
func RMSNormRow(dst, x, weight []float32, eps float32) {
	panic("TODO(2.3): write RMSNormRow, see docs/unit02.md")
}

// LayerNormRow sets dst = (x − mean) / sqrt(var + eps) · weight + bias with
// the population variance; bias may be nil. dst may be x. It panics
// (unit00.Check) if the lengths differ or x is empty.
func LayerNormRow(dst, x, weight, bias []float32, eps float32) {
	panic("TODO(2.3): write LayerNormRow, see docs/unit02.md")
}

// RMSNorm normalises every row (the last axis) of the contiguous F32 tensor
// x into dst, which must have x's shape: the tensor form of RMSNormRow.
// A dtype other than F32 (in x or dst) is an error wrapping
// unit00.ErrUnsupported; shapes that differ, a tensor of rank 0, a
// non-contiguous x or dst, or len(weight) other than the rows' length, an
// error wrapping unit00.ErrInvalid. On an error dst is not written.
func RMSNorm(dst, x unit01.Tensor, weight []float32, eps float32) error {
	panic("TODO(2.3): write RMSNorm, see docs/unit02.md")
}
