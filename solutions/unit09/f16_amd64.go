//go:build amd64 && !purego

package unit09

import (
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// The F16 and BF16 kernels (f16_amd64.s), in AVX-512 (32 elements a step)
// and AVX2 + F16C (16). Each takes whole steps (n ≥ 1); the Go functions
// below check the lengths, run the kernel over the whole steps and finish
// the rest in Go.

//go:noescape
func dot4F16AVX512(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)

//go:noescape
func dot4x3F16AVX512(w0, w1, w2, w3 *byte, a0, a1, a2 *float32, n int, out *[12]float32)

//go:noescape
func dot4BF16AVX512(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)

//go:noescape
func dotF16AVX512(w *byte, a *float32, n int) float32

//go:noescape
func dotBF16AVX512(w *byte, a *float32, n int) float32

//go:noescape
func widenF16AVX512(dst *float32, src *byte, n int)

//go:noescape
func widenBF16AVX512(dst *float32, src *byte, n int)

//go:noescape
func dot4F16AVX2(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)

//go:noescape
func dot4BF16AVX2(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)

//go:noescape
func dotF16AVX2(w *byte, a *float32, n int) float32

//go:noescape
func dotBF16AVX2(w *byte, a *float32, n int) float32

//go:noescape
func widenF16AVX2(dst *float32, src *byte, n int)

//go:noescape
func widenBF16AVX2(dst *float32, src *byte, n int)

//go:noescape
func roundF16AVX2(dst, src *float32, n int)

//go:noescape
func roundBF16AVX2(dst, src *float32, n int)

func cpuid1ECX() uint32

// halfStep is the elements one step of the half kernels takes on this CPU:
// 32 with AVX-512, 16 with AVX2 and F16C (every AVX2 processor has F16C,
// but it is a separate feature bit, so it is checked), 0 for none.
var halfStep = detectHalfStep()

func detectHalfStep() int {
	switch {
	case unit00.CPUSIMD() >= unit00.SIMDAVX512:
		return 32
	case unit00.CPUSIMD() >= unit00.SIMDAVX2 && cpuid1ECX()&(1<<29) != 0:
		return 16
	}
	return 0
}

// halfDot4 sets out to the dot products of four half rows (F16 or BF16)
// with a, which holds as many float32s as each row holds halves.
func halfDot4(dt unit01.DType, w0, w1, w2, w3 []byte, a []float32, out *[4]float32) {
	n := 0
	if halfStep > 0 {
		n = len(a) / halfStep
	}
	if n == 0 {
		out[0], out[1], out[2], out[3] = halfDotGo(dt, w0, a), halfDotGo(dt, w1, a), halfDotGo(dt, w2, a), halfDotGo(dt, w3, a)
		return
	}
	e := n * halfStep // elements the kernel takes
	_, _, _, _, _ = w0[2*len(a)-1], w1[2*len(a)-1], w2[2*len(a)-1], w3[2*len(a)-1], a[e-1]
	switch {
	case halfStep == 32 && dt == unit01.F16:
		dot4F16AVX512(&w0[0], &w1[0], &w2[0], &w3[0], &a[0], n, out)
	case halfStep == 32:
		dot4BF16AVX512(&w0[0], &w1[0], &w2[0], &w3[0], &a[0], n, out)
	case dt == unit01.F16:
		dot4F16AVX2(&w0[0], &w1[0], &w2[0], &w3[0], &a[0], n, out)
	default:
		dot4BF16AVX2(&w0[0], &w1[0], &w2[0], &w3[0], &a[0], n, out)
	}
	if e < len(a) {
		out[0] += halfDotGo(dt, w0[2*e:], a[e:])
		out[1] += halfDotGo(dt, w1[2*e:], a[e:])
		out[2] += halfDotGo(dt, w2[2*e:], a[e:])
		out[3] += halfDotGo(dt, w3[2*e:], a[e:])
	}
}

// halfDot4x3 sets out[4r+i] to the dot product of row i of w0…w3 with
// activation row r of a0, a1, a2, widening each weight vector once for the
// three, and reports whether it could: only F16 with AVX-512 has this
// kernel. Each result is bit for bit halfDot4's.
func halfDot4x3(dt unit01.DType, w0, w1, w2, w3 []byte, a0, a1, a2 []float32, out *[12]float32) bool {
	n := len(a0) / 32
	if halfStep != 32 || dt != unit01.F16 || n == 0 {
		return false
	}
	e := n * 32
	_, _, _, _ = w0[2*len(a0)-1], w1[2*len(a0)-1], w2[2*len(a0)-1], w3[2*len(a0)-1]
	_, _ = a1[len(a0)-1], a2[len(a0)-1]
	dot4x3F16AVX512(&w0[0], &w1[0], &w2[0], &w3[0], &a0[0], &a1[0], &a2[0], n, out)
	if e < len(a0) {
		for r, a := range [3][]float32{a0, a1, a2} {
			for i, w := range [4][]byte{w0, w1, w2, w3} {
				out[4*r+i] += halfDotGo(dt, w[2*e:], a[e:len(a0)])
			}
		}
	}
	return true
}

// halfDot is the dot product of one half row with a.
func halfDot(dt unit01.DType, w []byte, a []float32) float32 {
	n := 0
	if halfStep > 0 {
		n = len(a) / halfStep
	}
	if n == 0 {
		return halfDotGo(dt, w, a)
	}
	e := n * halfStep
	_, _ = w[2*len(a)-1], a[e-1]
	var s float32
	switch {
	case halfStep == 32 && dt == unit01.F16:
		s = dotF16AVX512(&w[0], &a[0], n)
	case halfStep == 32:
		s = dotBF16AVX512(&w[0], &a[0], n)
	case dt == unit01.F16:
		s = dotF16AVX2(&w[0], &a[0], n)
	default:
		s = dotBF16AVX2(&w[0], &a[0], n)
	}
	if e < len(a) {
		s += halfDotGo(dt, w[2*e:], a[e:])
	}
	return s
}

// widenHalf writes the float32 values of the halves src into dst
// (len(src) = 2·len(dst)).
func widenHalf(dt unit01.DType, dst []float32, src []byte) {
	n := 0
	if halfStep > 0 {
		n = len(dst) / halfStep
	}
	e := n * halfStep
	if n > 0 {
		_, _ = dst[e-1], src[2*e-1]
		switch {
		case halfStep == 32 && dt == unit01.F16:
			widenF16AVX512(&dst[0], &src[0], n)
		case halfStep == 32:
			widenBF16AVX512(&dst[0], &src[0], n)
		case dt == unit01.F16:
			widenF16AVX2(&dst[0], &src[0], n)
		default:
			widenBF16AVX2(&dst[0], &src[0], n)
		}
	}
	widenHalfGo(dt, dst[e:], src[2*e:])
}

// roundHalf sets dst to src rounded to F16 or BF16 (ties to even), as
// float32s: the activations as llama.cpp's dot products see them. The
// rounding kernels take 16 values a step on either level (they use AVX2
// and F16C only).
func roundHalf(dt unit01.DType, dst, src []float32) {
	n := 0
	if halfStep > 0 {
		n = len(src) / 16
	}
	e := 16 * n
	if n > 0 {
		_, _ = dst[e-1], src[e-1]
		if dt == unit01.F16 {
			roundF16AVX2(&dst[0], &src[0], n)
		} else {
			roundBF16AVX2(&dst[0], &src[0], n)
		}
	}
	roundHalfGo(dt, dst[e:len(src)], src[e:])
}
