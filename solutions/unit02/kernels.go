package unit02

import "math"

// The row kernels below are the hot loops of SiLU, softmax and RMSNorm.
// Each first hands the longest prefix it can to an assembly kernel (see
// kernels_amd64.go; none on other CPUs or with the purego tag), then finishes
// the rest in Go.
//
// Two of them also take the next row of the input and of the output, and
// ask the CPU to prefetch them into the L2 cache while they work on this
// one. A tensor's rows are normalised one after another, and each needs a
// first pass for its statistic (a maximum, a sum of squares) before the pass
// that writes it. Row by row, that first pass would wait on memory while the
// core idles and the second would compute while memory idles; with the next
// row already on its way, both stay busy. (Pass a row itself when there is
// no next one: prefetching cached lines costs next to nothing.)

// maxf returns the largest element of x (−Inf for an empty x).
func maxf(x []float32) float32 {
	m, done := maxKernel(x)
	for _, v := range x[done:] {
		m = max(m, v)
	}
	return m
}

// expShiftSum sets dst[i] = e^(x[i]·scale − shift) and returns the sum of
// those values, prefetching nextX and nextDst. dst may be x.
func expShiftSum(dst, x, nextX, nextDst []float32, scale, shift float32) float64 {
	s, done := expShiftSumKernel(dst, x, nextX, nextDst, scale, shift)
	for i := done; i < len(dst); i++ {
		dst[i] = expf(x[i]*scale - shift)
		s += float64(dst[i])
	}
	return s
}

// scaleSlice sets dst[i] *= s.
func scaleSlice(dst []float32, s float32) {
	done := scaleKernel(dst, s)
	for i := done; i < len(dst); i++ {
		dst[i] *= s
	}
}

// sumSquares returns Σx². The assembly kernels accumulate in float32,
// several partial sums per lane: fast, and accurate enough while the squares
// stay well inside float32's range. When the total falls outside
// [1e-30, 1e30] (squares that may have overflowed to +Inf, or lost their
// digits to underflow), the row is summed again in float64.
func sumSquares(x []float32) float64 {
	s, done := sumSquaresKernel(x)
	for _, v := range x[done:] {
		s += float64(v) * float64(v)
	}
	if done > 0 && (s > 1e30 || s < 1e-30) { // also catches +Inf, not NaN
		s = 0
		for _, v := range x {
			s += float64(v) * float64(v)
		}
	}
	return s
}

// scaleMul sets dst[i] = x[i]·s·w[i], prefetching nextX and nextDst. dst
// may be x.
func scaleMul(dst, x, w, nextX, nextDst []float32, s float32) {
	done := scaleMulKernel(dst, x, w, nextX, nextDst, s)
	for i := done; i < len(dst); i++ {
		dst[i] = x[i] * s * w[i]
	}
}

var negInf32 = float32(math.Inf(-1))
