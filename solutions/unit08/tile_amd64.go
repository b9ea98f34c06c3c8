//go:build amd64 && !purego

package unit08

import (
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
)

// tileKernel: this CPU runs tileAVX512.
var tileKernel = unit00.CPUSIMD() >= unit00.SIMDAVX512

// tileAVX512 is one 4×64 block of mulRows (tile_amd64.s).
//
//go:noescape
func tileAVX512(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta *float32)

// mulRowsFast runs mulRows' rows in blocks of 4 with the assembly kernel
// (64 columns at a time, the last columns in Go) and returns how many rows
// it did: none on a CPU without AVX-512.
func mulRowsFast(rows, cols, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta []float32) int {
	if !tileKernel || k == 0 {
		return 0
	}
	r := 0
	for ; r+4 <= rows; r += 4 {
		j := 0
		for ; j+64 <= cols; j += 64 {
			tile4x64(k, a[r*lda:], lda, b[j:], ldb, c[r*ldc+j:], ldc, alpha, beta, r)
		}
		if j < cols {
			mulRowsGo(4, cols-j, k, a[r*lda:], lda, b[j:], ldb, c[r*ldc+j:], ldc, alpha, beta, r)
		}
	}
	return r
}

// tile4x64 checks that the block lies inside the slices (assembly checks
// nothing) and runs the kernel on rows off … off+3 of alpha and beta.
func tile4x64(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta []float32, off int) {
	_, _, _, _ = a[3*lda+k-1], b[(k-1)*ldb+63], c[3*ldc+63], beta[off+3]
	var al *float32
	if alpha != nil {
		_ = alpha[off+3]
		al = &alpha[off]
	}
	tileAVX512(k, &a[0], lda, &b[0], ldb, &c[0], ldc, al, &beta[off])
}

// dotsAVX512 is dots for head widths that are a multiple of 16
// (tile_amd64.s).
//
//go:noescape
func dotsAVX512(n int, q *float32, k *float32, ldk int, chunks int, out *float32, scale float32)

// dots16AVX512 is dots for 16·n16 keys, 16 at a time (tile_amd64.s).
//
//go:noescape
func dots16AVX512(n16 int, q *float32, k *float32, ldk int, chunks int, out *float32, scale float32)

// dots16F16AVX512 is dots16AVX512 for keys kept as halves, ldk bytes
// apart (tile_amd64.s).
//
//go:noescape
func dots16F16AVX512(n16 int, q *float32, k *byte, ldk int, chunks int, out *float32, scale float32)

// dots sets out[j] = scale·(q · row j of k) for every row of k: a decode
// step's scores against a block of keys, read where they lie. Sixteen
// keys at a time, the rest one by one.
func dots(out, q []float32, k unit03.Mat, scale float32) {
	n, hd := k.Rows, len(q)
	if !tileKernel || hd%16 != 0 || n == 0 {
		dotsMatVec(out, q, k, scale)
		return
	}
	j := n / 16 * 16
	if j > 0 { // each kernel's reads and writes checked first: assembly checks nothing
		_, _ = out[j-1], k.Data[(j-1)*k.Stride+hd-1]
		dots16AVX512(j/16, &q[0], &k.Data[0], k.Stride, hd/16, &out[0], scale)
	}
	if rest := n - j; rest > 0 {
		_, _ = out[j+rest-1], k.Data[(j+rest-1)*k.Stride+hd-1]
		dotsAVX512(rest, &q[0], &k.Data[j*k.Stride], k.Stride, hd/16, &out[j], scale)
	}
}

// dotsF16 sets out[j] = scale·(q · key j) for n keys kept as halves, key j
// at k[j·ldk:], widened as they are read: sixteen keys at a time in
// assembly, the rest in Go.
func dotsF16(out, q []float32, k []byte, ldk, n int, scale float32) {
	hd := len(q)
	j := 0
	if tileKernel && hd%16 == 0 && n >= 16 {
		j = n / 16 * 16
		_, _ = out[j-1], k[(j-1)*ldk+2*hd-1]
		dots16F16AVX512(j/16, &q[0], &k[0], ldk, hd/16, &out[0], scale)
	}
	dotsF16Go(out[j:n], q, k[j*ldk:], ldk, scale)
}

// widenF16AVX512 widens rows rows of n·16 halves, row i at src + i·lds
// bytes, into dst + i·n·16 floats (tile_amd64.s).
//
//go:noescape
func widenF16AVX512(dst *float32, src *byte, lds, rows, n int)

// widenQ8AVX512 widens rows rows of n Q8_0 blocks, row i at src + i·lds
// bytes, into dst + i·n·32 floats (tile_amd64.s).
//
//go:noescape
func widenQ8AVX512(dst *float32, src *byte, lds, rows, n int)

// widenF16Rows widens n rows of w halves, row i at src[i·lds:], into dst
// (w floats a row): one call of the kernel for every row, when w is a
// multiple of 16, so that a block of keys costs no call per row.
func widenF16Rows(dst []float32, w int, src []byte, lds, n int) {
	if !tileKernel || w%16 != 0 || n == 0 {
		widenF16Go(dst, w, src, lds, n)
		return
	}
	_, _ = dst[n*w-1], src[(n-1)*lds+2*w-1]
	widenF16AVX512(&dst[0], &src[0], lds, n, w/16)
}

// widenQ8Rows widens n rows of w values kept as Q8_0 blocks, row i at
// src[i·lds:], into dst (w floats a row), in one call of the kernel.
func widenQ8Rows(dst []float32, w int, src []byte, lds, n int) {
	if !tileKernel || n == 0 {
		widenQ8Go(dst, w, src, lds, n)
		return
	}
	_, _ = dst[n*w-1], src[(n-1)*lds+w/Q8Block*Q8BlockBytes-1]
	widenQ8AVX512(&dst[0], &src[0], lds, n, w/Q8Block)
}

// transpose16AVX512 transposes 16·n16 keys of 16·hd16 floats, 16 by 16
// in registers (tile_amd64.s).
//
//go:noescape
func transpose16AVX512(kt *float32, ld int, kb *float32, ldk int, n16, hd16 int)

// transpose writes the n keys of hd floats in kb (row stride ldk) into kt
// as hd rows of n (row stride ld), as transposeGo does: sixteen keys at a
// time in assembly when hd is a multiple of 16, the rest in Go.
func transpose(kt []float32, ld int, kb []float32, ldk, n, hd int) {
	j := 0
	if tileKernel && hd%16 == 0 && n >= 16 {
		j = n / 16 * 16
		_, _ = kt[(hd-1)*ld+j-1], kb[(j-1)*ldk+hd-1]
		transpose16AVX512(&kt[0], ld, &kb[0], ldk, j/16, hd/16)
	}
	if j < n {
		transposeGo(kt[j:], ld, kb[j*ldk:], ldk, n-j, hd)
	}
}

// expBlockAVX512 folds one row of 16·n16 scores: the maximum, the
// exponentials in place and their sum in one call (tile_amd64.s).
//
//go:noescape
func expBlockAVX512(x *float32, n16 int, floor float32) (top, sum float32)

// softmaxParts is unit02.SoftmaxParts(x, x, 1, floor) for a row of a
// block's finite scores: fused in assembly when the row is a whole number
// of 16s (every row but a few on the diagonal), where the two passes and
// their calls were a fifth of a prompt's flash attention.
func softmaxParts(x []float32, floor float32) (top, sum float32) {
	if !tileKernel || len(x) == 0 || len(x)%16 != 0 {
		return unit02.SoftmaxParts(x, x, 1, floor)
	}
	return expBlockAVX512(&x[0], len(x)/16, floor)
}
