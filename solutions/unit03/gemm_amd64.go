//go:build amd64 && !purego

package unit03

import "github.com/llmforge/forge/unit00"

// The assembly micro-kernels (gemm_amd64.s): one mr×nr tile of C from
// packed panels. accumulate adds to C instead of overwriting it.

//go:noescape
func kernelAVX2(kc int, a, b, c *float32, ldc int, accumulate bool)

//go:noescape
func kernelAVX512(kc int, a, b, c *float32, ldc int, accumulate bool)

//go:noescape
func kernelAVX512x8(kc int, a, b, c *float32, ldc int, accumulate bool)

//go:noescape
func kernelAVX512x4(kc int, a, b, c *float32, ldc int, accumulate bool)

// supported reports whether this CPU can run kernel k.
func (k Kernel) supported() bool {
	switch k {
	case KernelAVX2:
		return unit00.CPUSIMD() >= unit00.SIMDAVX2
	case KernelAVX512:
		return unit00.CPUSIMD() >= unit00.SIMDAVX512
	}
	return true
}

// microAsm runs an assembly kernel on the first rows rows of a tile: all
// mr of them, or 8 or 4 with the AVX-512 kernel (see Kernel.edgeRows). The
// slices are checked for length first: assembly does no bounds checks.
func microAsm(k Kernel, rows, kc int, a, b, c []float32, ldc int, accumulate bool) {
	g := k.geometry()
	_, _, _ = a[kc*g.mr-1], b[kc*g.nr-1], c[(rows-1)*ldc+g.nr-1]
	switch {
	case k == KernelAVX2:
		kernelAVX2(kc, &a[0], &b[0], &c[0], ldc, accumulate)
	case rows == 4:
		kernelAVX512x4(kc, &a[0], &b[0], &c[0], ldc, accumulate)
	case rows == 8:
		kernelAVX512x8(kc, &a[0], &b[0], &c[0], ldc, accumulate)
	default:
		kernelAVX512(kc, &a[0], &b[0], &c[0], ldc, accumulate)
	}
}

//go:noescape
func dot4AVX2(x, w0, w1, w2, w3 []float32) (s0, s1, s2, s3 float32)

//go:noescape
func dot4AVX512(x, w0, w1, w2, w3 []float32) (s0, s1, s2, s3 float32)

// dot4Asm computes the four dot products of x with w0…w3 over the longest
// prefix the kernel's vector width allows, and returns its length.
func dot4Asm(k Kernel, x, w0, w1, w2, w3 []float32) (s [4]float32, n int) {
	switch k {
	case KernelAVX512:
		if n = len(x) &^ 31; n > 0 {
			s[0], s[1], s[2], s[3] = dot4AVX512(x[:n], w0[:n], w1[:n], w2[:n], w3[:n])
		}
	case KernelAVX2:
		if n = len(x) &^ 15; n > 0 {
			s[0], s[1], s[2], s[3] = dot4AVX2(x[:n], w0[:n], w1[:n], w2[:n], w3[:n])
		}
	}
	return s, n
}

//go:noescape
func packA12AVX(dst, src *float32, lda, kc int)

// packPanelAsm packs one full 12-row panel of A for the AVX-512 kernel, and
// reports whether it did (only full AVX-512 panels qualify): eight steps at
// a time in assembly, with 4×4 transposes in registers, the last kc mod 8
// steps in Go.
func packPanelAsm(panel []float32, a Mat, row, p0, kc, mr int) bool {
	if mr != 12 || unit00.CPUSIMD() < unit00.SIMDAVX512 {
		return false
	}
	_, _ = panel[12*kc-1], a.Data[(row+11)*a.Stride+p0+kc-1]
	k8 := kc &^ 7
	if k8 > 0 {
		packA12AVX(&panel[0], &a.Data[row*a.Stride+p0], a.Stride, k8)
	}
	for p := k8; p < kc; p++ {
		step := panel[p*12 : p*12+12]
		for r := range step {
			step[r] = a.Data[(row+r)*a.Stride+p0+p]
		}
	}
	return true
}

//go:noescape
func packB32AVX512(dst, src *float32, ldb, kc int)

// packBPanelAsm packs one full 32-column panel of B (not transposed) for
// the AVX-512 kernel, and reports whether it did.
func packBPanelAsm(panel []float32, b Mat, p0, kc, j, nr int) bool {
	if nr != 32 || kc == 0 || unit00.CPUSIMD() < unit00.SIMDAVX512 {
		return false
	}
	_, _ = panel[32*kc-1], b.Data[(p0+kc-1)*b.Stride+j+31]
	packB32AVX512(&panel[0], &b.Data[p0*b.Stride+j], b.Stride, kc)
	return true
}
