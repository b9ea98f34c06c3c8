package unit02

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
)

// TestC2_3_RMSNormOneRow normalises tensors that hold a single row: a rank-1
// tensor (one row, the whole tensor) and [1 n] or [1 1 n] shapes. The
// last row is also the first, so whatever the code does with "the next row"
// must stay inside the tensor.
func TestC2_3_RMSNormOneRow(t *testing.T) {
	g := oracle.NewRand(35)
	eachSIMD(t, func(t *testing.T) {
		for _, dims := range [][]int{{40}, {1, 40}, {1, 1, 9}, {1}, {17}} {
			n := dims[len(dims)-1]
			x := g.Normal(n, 0, 2)
			w := g.Uniform(n, 0.5, 1.5)
			xt, dst := tensorOf(t, x, dims...), tensorOf(t, make([]float32, n), dims...)
			what := fmt.Sprintf("RMSNorm of a %v tensor (one row)", dims)
			require.NoError(t, noPanic(t, what, func() error { return RMSNorm(dst, xt, w, 1e-5) }), what)
			oracle.AssertClose(t, what, dst.F32(), oracle.RMSNorm(oracle.Float64s(x), oracle.Float64s(w), 1e-5), normTol)
		}
	})
}
