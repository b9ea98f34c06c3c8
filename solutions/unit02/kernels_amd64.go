//go:build amd64 && !purego

package unit02

import "github.com/llmforge/forge/unit00"

// Assembly kernels (kernels_amd64.s). Each takes slices whose length is a
// non-zero multiple of its vector width, 8 for AVX2 and 16 for AVX-512.

//go:noescape
func maxAVX2(x []float32) float32

//go:noescape
func maxAVX512(x []float32) float32

//go:noescape
func expShiftSumAVX2(dst, x, nextX, nextDst []float32, scale, shift float32) float64

//go:noescape
func expShiftSumAVX512(dst, x, nextX, nextDst []float32, scale, shift float32) float64

//go:noescape
func scaleAVX2(dst []float32, s float32)

//go:noescape
func scaleAVX512(dst []float32, s float32)

//go:noescape
func sumSquaresAVX2(x []float32) float64

//go:noescape
func sumSquaresAVX512(x []float32) float64

//go:noescape
func scaleMulAVX2(dst, x, w, nextX, nextDst []float32, s float32)

//go:noescape
func scaleMulAVX512(dst, x, w, nextX, nextDst []float32, s float32)

//go:noescape
func siluAVX2(dst, x []float32)

//go:noescape
func siluAVX512(dst, x []float32)

//go:noescape
func swigluAVX2(dst, gate, up []float32)

//go:noescape
func swigluAVX512(dst, gate, up []float32)

// vectorPrefix returns the longest prefix of n elements that the kernels of
// the current simd level take: a multiple of their width, or 0.
func vectorPrefix(n int) int {
	switch simd {
	case unit00.SIMDAVX512:
		return n &^ 15
	case unit00.SIMDAVX2:
		return n &^ 7
	}
	return 0
}

func maxKernel(x []float32) (float32, int) {
	n := vectorPrefix(len(x))
	switch {
	case n == 0:
		return negInf32, 0
	case simd == unit00.SIMDAVX512:
		return maxAVX512(x[:n]), n
	}
	return maxAVX2(x[:n]), n
}

func expShiftSumKernel(dst, x, nextX, nextDst []float32, scale, shift float32) (float64, int) {
	n := vectorPrefix(len(dst))
	switch {
	case n == 0:
		return 0, 0
	case simd == unit00.SIMDAVX512:
		return expShiftSumAVX512(dst[:n], x[:n], nextX[:n], nextDst[:n], scale, shift), n
	}
	return expShiftSumAVX2(dst[:n], x[:n], nextX[:n], nextDst[:n], scale, shift), n
}

func scaleKernel(dst []float32, s float32) int {
	n := vectorPrefix(len(dst))
	switch {
	case n == 0:
	case simd == unit00.SIMDAVX512:
		scaleAVX512(dst[:n], s)
	default:
		scaleAVX2(dst[:n], s)
	}
	return n
}

func sumSquaresKernel(x []float32) (float64, int) {
	n := vectorPrefix(len(x))
	switch {
	case n == 0:
		return 0, 0
	case simd == unit00.SIMDAVX512:
		return sumSquaresAVX512(x[:n]), n
	}
	return sumSquaresAVX2(x[:n]), n
}

func scaleMulKernel(dst, x, w, nextX, nextDst []float32, s float32) int {
	n := vectorPrefix(len(dst))
	switch {
	case n == 0:
	case simd == unit00.SIMDAVX512:
		scaleMulAVX512(dst[:n], x[:n], w[:n], nextX[:n], nextDst[:n], s)
	default:
		scaleMulAVX2(dst[:n], x[:n], w[:n], nextX[:n], nextDst[:n], s)
	}
	return n
}

func siluKernel(dst, x []float32) int {
	n := vectorPrefix(len(dst))
	switch {
	case n == 0:
	case simd == unit00.SIMDAVX512:
		siluAVX512(dst[:n], x[:n])
	default:
		siluAVX2(dst[:n], x[:n])
	}
	return n
}

func swigluKernel(dst, gate, up []float32) int {
	n := vectorPrefix(len(dst))
	switch {
	case n == 0:
	case simd == unit00.SIMDAVX512:
		swigluAVX512(dst[:n], gate[:n], up[:n])
	default:
		swigluAVX2(dst[:n], gate[:n], up[:n])
	}
	return n
}
