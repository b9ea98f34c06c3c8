package unit02

import (
	"github.com/llmforge/forge/unit01"
)

// SoftmaxRow sets dst to softmax(x/temp + mask): e^(zᵢ − m) / Σⱼ e^(zⱼ − m)
// with z = x/temp + mask and m = max z. Subtracting the maximum changes
// nothing mathematically and keeps every exponent ≤ 0, so no e^z overflows
// even for logits of 1e4. mask is additive (0 to keep, −Inf to hide) and may
// be nil; temp must be positive. A row whose every z is −Inf (everything
// masked) gives all zeros: no probability mass anywhere, not NaN. dst may
// be x. It panics (unit00.Check) on mismatched lengths or temp ≤ 0.
func SoftmaxRow(dst, x []float32, temp float32, mask []float32) {
	panic("TODO(2.4): write SoftmaxRow, see docs/unit02.md")
}

// LogSoftmaxRow sets dst to log(softmax(x/temp + mask)) = z − m − log Σ e^(zⱼ−m),
// computed without forming the probabilities, so tiny ones keep their
// precision. A row whose every z is −Inf gives all −Inf. Arguments as
// SoftmaxRow.
func LogSoftmaxRow(dst, x []float32, temp float32, mask []float32) {
	panic("TODO(2.4): write LogSoftmaxRow, see docs/unit02.md")
}

// SoftmaxParts sets dst[i] = e^(x[i]·scale − m), where m is the largest
// of floor and every x[i]·scale, and returns m and the sum of dst (added
// up in float64): a softmax before its division, the form in which flash
// attention (unit08) folds a row's scores in block by block, floor being
// the largest score of the blocks before (−Inf: none). A row whose every
// x·scale is −Inf, or an empty row, gives zeros, m = floor and a sum of
// 0. dst may be x. It panics (unit00.Check) when the lengths differ or
// scale ≤ 0.
func SoftmaxParts(dst, x []float32, scale, floor float32) (m, sum float32) {
	panic("TODO(2.4): write SoftmaxParts, see docs/unit02.md")
}

// Softmax applies SoftmaxRow to every row (the last axis) of the contiguous
// F32 tensor x, writing into dst of the same shape; temperature 1, no mask.
// Errors as RMSNorm's: a dtype other than F32 wraps unit00.ErrUnsupported;
// shapes that differ, rank 0 or a non-contiguous x or dst wrap
// unit00.ErrInvalid, and dst is not written.
func Softmax(dst, x unit01.Tensor) error {
	panic("TODO(2.4): write Softmax, see docs/unit02.md")
}
