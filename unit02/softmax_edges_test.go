package unit02

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
)

// TestC2_4_SoftmaxOneRow applies Softmax to tensors that hold a single row:
// rank 1, [1 n] and [1 1 n]. The last row is also the first, so whatever
// the code does with "the next row" must stay inside the tensor.
func TestC2_4_SoftmaxOneRow(t *testing.T) {
	g := oracle.NewRand(49)
	eachSIMD(t, func(t *testing.T) {
		for _, dims := range [][]int{{33}, {1, 33}, {1, 1, 9}, {1}, {17}} {
			n := dims[len(dims)-1]
			x := g.Normal(n, 0, 3)
			xt, dst := tensorOf(t, x, dims...), tensorOf(t, make([]float32, n), dims...)
			what := fmt.Sprintf("Softmax of a %v tensor (one row)", dims)
			require.NoError(t, noPanic(t, what, func() error { return Softmax(dst, xt) }), what)
			oracle.AssertClose(t, what, dst.F32(), oracle.Softmax(oracle.Float64s(x), 1, nil), softmaxTol(x, 1))
		}
	})
}

// TestC2_4_SoftmaxSmallestNormal puts a logit exactly −87.33654 below the
// maximum: e^−87.33654 ≈ 1.17550e−38 is still a normal float32 (the smallest
// is 1.17549435e−38), so its probability must come out right, not flushed
// to zero. Only results below the smallest normal may become 0. The rows are
// shorter than any vector, so every build takes the scalar road.
func TestC2_4_SoftmaxSmallestNormal(t *testing.T) {
	const lo = float32(-87.33654) // float32(ln(smallest normal float32)), rounded up
	eachSIMD(t, func(t *testing.T) {
		for _, x := range [][]float32{{0, lo}, {lo, 0, lo}, {3, 3 + lo}} {
			dst := make([]float32, len(x))
			SoftmaxRow(dst, x, 1, nil)
			// No absolute floor: every probability here is a normal float32.
			tol := oracle.Tol{Rtol: softmaxTol(x, 1).Rtol}
			oracle.AssertClose(t, fmt.Sprintf("SoftmaxRow(%v): e^−87.33654 ≈ 1.1755e−38 is a normal float32, not 0", x), dst, oracle.Softmax(oracle.Float64s(x), 1, nil), tol)
		}
	})
}

// TestC2_4_PlusInfLogit gives the row functions a +Inf logit. Its maximum is
// +Inf, which is not the all-masked row (maximum −Inf): the +Inf position
// is the most likely one, never the impossible one. Either the limit (1 and
// log-probability 0 there) or NaN (the overflow made visible) is accepted;
// zero probability, or log-probability −Inf, is wrong.
func TestC2_4_PlusInfLogit(t *testing.T) {
	posInf := float32(math.Inf(1))
	for _, x := range [][]float32{{posInf, 0, -1}, {2, posInf}} {
		at := 0
		if x[1] == posInf {
			at = 1
		}
		dst := make([]float32, len(x))
		SoftmaxRow(dst, x, 1, nil)
		if p := dst[at]; p != 1 && p == p {
			t.Errorf("SoftmaxRow(%v) = %v: the +Inf logit has probability %v, want 1 (or NaN); a +Inf maximum is not a fully masked row", x, dst, p)
		}
		LogSoftmaxRow(dst, x, 1, nil)
		if lp := dst[at]; lp != 0 && lp == lp {
			t.Errorf("LogSoftmaxRow(%v) = %v: the +Inf logit has log-probability %v, want 0 (or NaN); only a maximum of −Inf (test math.IsInf(m, -1), not math.IsInf(m, 0)) means a fully masked row", x, dst, lp)
		}
	}
}
