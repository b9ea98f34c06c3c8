package unit08

import "github.com/llmforge/forge/unit03"

// mulRows computes, for the rows r < rows and columns j < cols of C,
//
//	C[r][j] = alpha[r]·C[r][j] + beta[r]·Σ_{p<k} A[r][p]·B[p][j]
//
// or, with alpha nil, C[r][j] = beta[r]·Σ_p …: a small matrix product
// with a scale per row, reading its operands where they lie. Row r of A
// starts at a[r·lda], row p of B at b[p·ldb], row r of C at c[r·ldc].
// Attention runs both of its products through it: the scores Q·Kᵀ (B a
// block of keys, transposed; beta the 1/√d scale) and the output
// α·O + β·P·V (B the values as the cache holds them).
//
// Blocks of 4 rows go to the assembly kernel where this CPU has one
// (mulRowsFast says how many rows it did); the rest is the Go loop below.
func mulRows(rows, cols, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta []float32) {
	r := mulRowsFast(rows, cols, k, a, lda, b, ldb, c, ldc, alpha, beta)
	if r < rows {
		mulRowsGo(rows-r, cols, k, a[r*lda:], lda, b, ldb, c[r*ldc:], ldc, alpha, beta, r)
	}
}

// mulRowsGo is mulRows in Go, for rows off of alpha and beta: row r of
// this call is scaled by alpha[off+r] and beta[off+r]. It works through
// the columns 64 at a time, each row's sums in an array on the stack.
func mulRowsGo(rows, cols, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta []float32, off int) {
	var acc [64]float32
	for r := range rows {
		for j0 := 0; j0 < cols; j0 += 64 {
			n := min(64, cols-j0)
			sum := acc[:n]
			clear(sum)
			ar := a[r*lda : r*lda+k]
			for p, x := range ar {
				bp := b[p*ldb+j0 : p*ldb+j0+n]
				for j, y := range bp {
					sum[j] += x * y
				}
			}
			cr := c[r*ldc+j0 : r*ldc+j0+n]
			s := beta[off+r]
			if alpha == nil {
				for j := range cr {
					cr[j] = s * sum[j]
				}
				continue
			}
			t := alpha[off+r]
			for j := range cr {
				cr[j] = t*cr[j] + s*sum[j]
			}
		}
	}
}

// dotsMatVec is dots as unit03's matrix–vector product: the scores of q
// against a block of keys are the keys times q, then scaled. The road of
// a CPU without the AVX-512 kernel, and of head widths it does not take.
func dotsMatVec(out, q []float32, k unit03.Mat, scale float32) {
	out = out[:k.Rows]
	unit03.MatVec(nil, unit03.Best(), out, k, q)
	for j := range out {
		out[j] *= scale
	}
}

// transposeGo writes the n keys of hd floats in kb (row stride ldk) into kt
// as hd rows of n (row stride ld): the layout in which a row of queries
// multiplies a block of keys with mulRows. Four keys at a time, so that
// each step writes four adjacent floats. transpose runs it where it has no
// assembly.
func transposeGo(kt []float32, ld int, kb []float32, ldk, n, hd int) {
	key := func(j int) []float32 { return kb[j*ldk : j*ldk+hd] }
	j := 0
	for ; j+4 <= n; j += 4 {
		k0, k1, k2, k3 := key(j), key(j+1), key(j+2), key(j+3)
		for d := range hd {
			o := kt[d*ld+j : d*ld+j+4]
			o[0], o[1], o[2], o[3] = k0[d], k1[d], k2[d], k3[d]
		}
	}
	for ; j < n; j++ {
		for d, x := range key(j) {
			kt[d*ld+j] = x
		}
	}
}
