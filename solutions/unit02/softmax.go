package unit02

import (
	"math"

	"github.com/llmforge/forge/unit00"
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
	scale := checkSoftmax(dst, x, temp, mask)
	src := x
	if mask != nil {
		addMasked(dst, x, mask, scale)
		src, scale = dst, 1
	}
	softmaxWith(dst, src, src, dst, scale)
}

// softmaxWith writes the softmax of x·scale into dst, prefetching nextX and
// nextDst (see expShiftSum).
func softmaxWith(dst, x, nextX, nextDst []float32, scale float32) {
	m := maxf(x) * scale
	if m == negInf32 || len(dst) == 0 {
		clear(dst)
		return
	}
	sum := expShiftSum(dst, x, nextX, nextDst, scale, m)
	scaleSlice(dst, float32(1/sum))
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
	unit00.Check(len(dst) == len(x), "SoftmaxParts: lengths differ")
	unit00.Check(scale > 0, "SoftmaxParts: scale must be positive")
	m = floor
	if len(x) > 0 {
		m = max(m, maxf(x)*scale)
	}
	if m == negInf32 || len(dst) == 0 {
		clear(dst)
		return m, 0
	}
	return m, float32(expShiftSum(dst, x, x, dst, scale, m))
}

// LogSoftmaxRow sets dst to log(softmax(x/temp + mask)) = z − m − log Σ e^(zⱼ−m),
// computed without forming the probabilities, so tiny ones keep their
// precision. A row whose every z is −Inf gives all −Inf. Arguments as
// SoftmaxRow.
func LogSoftmaxRow(dst, x []float32, temp float32, mask []float32) {
	scale := checkSoftmax(dst, x, temp, mask)
	src := x
	if mask != nil {
		addMasked(dst, x, mask, scale)
		src, scale = dst, 1
	}
	m := maxf(src) * scale
	if math.IsInf(float64(m), -1) || len(dst) == 0 {
		for i := range dst {
			dst[i] = float32(math.Inf(-1))
		}
		return
	}
	// The sum is taken in a pass of its own that writes nothing: dst may be
	// x, and its values are still needed below.
	sum := 0.0
	for _, v := range src {
		sum += float64(expf(v*scale - m))
	}
	lse := float64(m) + math.Log(sum)
	for i, v := range src {
		dst[i] = float32(float64(v*scale) - lse)
	}
}

func checkSoftmax(dst, x []float32, temp float32, mask []float32) float32 {
	unit00.Check(len(x) == len(dst) && (mask == nil || len(mask) == len(x)), "softmax: lengths differ")
	unit00.Check(temp > 0, "softmax: temperature must be positive")
	return 1 / temp
}

// addMasked sets dst = x·scale + mask.
func addMasked(dst, x, mask []float32, scale float32) {
	for i := range dst {
		dst[i] = x[i]*scale + mask[i]
	}
}

// Softmax applies SoftmaxRow to every row (the last axis) of the contiguous
// F32 tensor x, writing into dst of the same shape; temperature 1, no mask.
// While it exponentiates one row it prefetches the next (see expShiftSum),
// so memory and arithmetic overlap.
func Softmax(dst, x unit01.Tensor) error {
	rows, dim, err := rowsOf("Softmax", dst, x)
	if err != nil {
		return err
	}
	d, s := dst.F32(), x.F32()
	for r := 0; r < rows; r++ {
		next := min(r+1, rows-1) // the last row prefetches itself
		softmaxWith(d[r*dim:(r+1)*dim], s[r*dim:(r+1)*dim], s[next*dim:(next+1)*dim], d[next*dim:(next+1)*dim], 1)
	}
	return nil
}
