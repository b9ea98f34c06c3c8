package oracle

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MatMul returns C = A·B in float64 (gonum's Dgemm) for row-major A (m×k,
// row stride lda) and B (k×n, stride ldb), or B given transposed (n×k) when
// transB is set.
func MatMul(a []float32, lda int, b []float32, ldb int, m, n, k int, transB bool) []float64 {
	return matMul(widen(a, m, k, lda), widen2(b, n, k, ldb, transB), m, n, k, transB)
}

// MatMulAbs returns |A|·|B|, the scale of a product's rounding error: a sum
// of k products computed in float32 is within k·ε·(|A|·|B|)ᵢⱼ of the exact
// value, whatever the order of the additions.
func MatMulAbs(a []float32, lda int, b []float32, ldb int, m, n, k int, transB bool) []float64 {
	aa, bb := widen(a, m, k, lda), widen2(b, n, k, ldb, transB)
	for i := range aa {
		aa[i] = math.Abs(aa[i])
	}
	for i := range bb {
		bb[i] = math.Abs(bb[i])
	}
	return matMul(aa, bb, m, n, k, transB)
}

// widen copies a rows×cols float32 matrix of stride ld into a dense float64 one.
func widen(x []float32, rows, cols, ld int) []float64 {
	out := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			out[i*cols+j] = float64(x[i*ld+j])
		}
	}
	return out
}

// widen2 widens B, which is k×n, or n×k when transposed.
func widen2(b []float32, n, k, ldb int, transB bool) []float64 {
	if transB {
		return widen(b, n, k, ldb)
	}
	return widen(b, k, n, ldb)
}

func matMul(a, b []float64, m, n, k int, transB bool) []float64 {
	c := make([]float64, m*n)
	if m == 0 || n == 0 || k == 0 {
		return c
	}
	tb, ldb, brows, bcols := blas.NoTrans, n, k, n
	if transB {
		tb, ldb, brows, bcols = blas.Trans, k, n, k
	}
	blas64.Gemm(blas.NoTrans, tb, 1,
		blas64.General{Rows: m, Cols: k, Stride: k, Data: a},
		blas64.General{Rows: brows, Cols: bcols, Stride: ldb, Data: b},
		0, blas64.General{Rows: m, Cols: n, Stride: n, Data: c})
	return c
}

// AssertBound fails t unless |got[i] − want[i]| ≤ bound[i] for every i,
// with a message naming the worst element (as a multi-index of shape) and
// the share of its bound it used.
func AssertBound(t testing.TB, what string, got []float32, want, bound []float64, shape []int) bool {
	t.Helper()
	bad, worst, used := 0, -1, 0.0
	for i := range want {
		err := math.Abs(float64(got[i]) - want[i])
		u := err / bound[i]
		if err == 0 {
			u = 0
		}
		if math.IsNaN(float64(got[i])) || err > bound[i] {
			bad++
			if math.IsNaN(u) {
				u = math.Inf(1)
			}
		}
		if worst < 0 || u > used {
			worst, used = i, u
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements beyond their error bound\n\tworst at %s: got %.9g, want %.12g, |err| %.3g = %s of its bound %.3g",
			what, bad, len(want), FormatIndex(worst, shape), got[worst], want[worst], math.Abs(float64(got[worst])-want[worst]), percent(used), bound[worst])
		return false
	}
	if worst >= 0 && testing.Verbose() {
		t.Logf("%s: worst element used %s of its bound", what, percent(used))
	}
	return true
}
