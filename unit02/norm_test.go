package unit02

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// normTol is the normalisations' budget: the statistic of a row is a sum of
// n terms, whose rounding error grows like √n·ε for random data, then a few
// roundings per element. For rows of up to 4097 this allows 64 ulp.
var normTol = oracle.Tol{Atol: 1e-30, Rtol: 64 * eps32}

func TestC2_3_RMSNorm(t *testing.T) {
	g := oracle.NewRand(31)
	eachSIMD(t, func(t *testing.T) {
		for _, n := range lengths {
			for _, scale := range []float64{1e-3, 1, 1e4, 1e15} {
				x := g.Normal(n, 0, scale)
				w := g.Uniform(n, 0.5, 1.5)
				dst := make([]float32, n)
				RMSNormRow(dst, x, w, 1e-6)
				oracle.AssertClose(t, fmt.Sprintf("RMSNormRow (n=%d, |x|≈%g)", n, scale), dst, oracle.RMSNorm(oracle.Float64s(x), oracle.Float64s(w), 1e-6), normTol)
				RMSNormRow(x, x, w, 1e-6) // in place
				oracle.AssertClose(t, fmt.Sprintf("RMSNormRow in place (n=%d)", n), x, oracle.Float64s(dst), oracle.Tol{Rtol: eps32})
			}
		}
		// eps belongs inside the square root: a row of zeros stays zero, and
		// a tiny row is scaled by 1/√eps, not divided by a near-zero norm.
		for _, x := range [][]float32{make([]float32, 8), {1e-4, -2e-4, 3e-4, 0}} {
			w := []float32{1, 1, 1, 1, 1, 1, 1, 1}[:len(x)]
			dst := make([]float32, len(x))
			RMSNormRow(dst, x, w, 1e-5)
			oracle.AssertClose(t, fmt.Sprintf("RMSNormRow(%v, eps 1e-5)", x), dst, oracle.RMSNorm(oracle.Float64s(x), oracle.Float64s(w), 1e-5), normTol)
		}
	})
}

func TestC2_3_LayerNorm(t *testing.T) {
	g := oracle.NewRand(32)
	for _, n := range lengths {
		for _, offset := range []float64{0, 1e6} {
			// A large mean with small spread: E[x²] − E[x]² cancels away
			// every significant digit of the variance; two passes do not.
			x := g.Normal(n, offset, 1)
			w, b := g.Uniform(n, 0.5, 1.5), g.Normal(n, 0, 1)
			dst := make([]float32, n)
			LayerNormRow(dst, x, w, b, 1e-5)
			oracle.AssertClose(t, fmt.Sprintf("LayerNormRow (n=%d, mean %g)", n, offset), dst,
				oracle.LayerNorm(oracle.Float64s(x), oracle.Float64s(w), oracle.Float64s(b), 1e-5), normTol)
			LayerNormRow(dst, x, w, nil, 1e-5)
			oracle.AssertClose(t, fmt.Sprintf("LayerNormRow without bias (n=%d)", n), dst,
				oracle.LayerNorm(oracle.Float64s(x), oracle.Float64s(w), nil, 1e-5), normTol)
		}
	}
}

func TestC2_3_RMSNormTensor(t *testing.T) {
	g := oracle.NewRand(33)
	x := tensorOf(t, g.Normal(3*40, 0, 2), 3, 40)
	w := g.Uniform(40, 0.5, 1.5)
	dst := tensorOf(t, make([]float32, 120), 3, 40)
	if err := RMSNorm(dst, x, w, 1e-5); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 3; r++ {
		row := oracle.Float64s(x.F32()[r*40 : (r+1)*40])
		oracle.AssertClose(t, fmt.Sprintf("RMSNorm row %d", r), dst.F32()[r*40:(r+1)*40], oracle.RMSNorm(row, oracle.Float64s(w), 1e-5), normTol)
	}
	if err := RMSNorm(dst, x, w[:39], 1e-5); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("RMSNorm with 39 weights for rows of 40: error = %v, want unit00.ErrInvalid", err)
	}
	xt, _ := x.Transpose(0, 1)
	if err := RMSNorm(tensorOf(t, make([]float32, 120), 40, 3), xt, w[:3], 1e-5); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("RMSNorm of a transposed (non-contiguous) tensor: error = %v, want unit00.ErrInvalid", err)
	}
	h, _ := unit01.Zeros(unit01.F16, unit01.MustShape(2, 4))
	if err := RMSNorm(h, h, w[:4], 1e-5); !errors.Is(err, unit00.ErrUnsupported) {
		t.Errorf("RMSNorm of an F16 tensor: error = %v, want unit00.ErrUnsupported", err)
	}
	if v := math.Abs(float64(dst.F32()[0])); v == 0 {
		t.Errorf("RMSNorm wrote nothing")
	}
}

func TestC2_3_RowChecks(t *testing.T) {
	f := make([]float32, 8)
	for _, c := range []struct {
		name          string
		dst, x, w, b  []float32
		layerNormOnly bool
	}{
		{"an empty row", nil, nil, nil, nil, false},
		{"dst shorter than x", f[:3], f[:4], f[:4], nil, false},
		{"dst longer than x", f[:5], f[:4], f[:4], nil, false},
		{"fewer weights than x", f[:4], f[:4], f[:3], nil, false},
		{"more weights than x", f[:4], f[:4], f[:5], nil, false},
		{"a bias shorter than x", f[:4], f[:4], f[:4], f[:3], true},
		{"a bias longer than x", f[:4], f[:4], f[:4], f[:5], true},
	} {
		if !c.layerNormOnly {
			mustCheckPanic(t, "RMSNormRow with "+c.name, func() { RMSNormRow(c.dst, c.x, c.w, 1e-5) })
		}
		mustCheckPanic(t, "LayerNormRow with "+c.name, func() { LayerNormRow(c.dst, c.x, c.w, c.b, 1e-5) })
	}
}

// TestC2_3_RMSNormExtremes normalises rows whose squares leave float32's
// range, with eps 0 so that nothing hides the row's own scale: squares of
// 1e20 overflow float32 and squares of 1e-25 underflow to zero, so a sum of
// squares kept in float32 gives a scale of 0 or +Inf.
func TestC2_3_RMSNormExtremes(t *testing.T) {
	g := oracle.NewRand(34)
	eachSIMD(t, func(t *testing.T) {
		for _, n := range lengths {
			for _, scale := range []float64{1e-25, 1e-21, 1e20, 1e-3} {
				x := g.Normal(n, 0, scale)
				w := g.Uniform(n, 0.5, 1.5)
				dst := make([]float32, n)
				RMSNormRow(dst, x, w, 0)
				oracle.AssertClose(t, fmt.Sprintf("RMSNormRow (n=%d, |x|≈%g, eps 0: the squares leave float32's range, sum them in float64)", n, scale), dst, oracle.RMSNorm(oracle.Float64s(x), oracle.Float64s(w), 0), normTol)
			}
		}
	})
}

func TestC2_3_RMSNormTensorChecks(t *testing.T) {
	checkRowsErrors(t, "RMSNorm", func(dst, x unit01.Tensor) error { return RMSNorm(dst, x, []float32{1, 1, 1, 1}, 1e-5) })
	x, dst := tensorOf(t, counting(8), 2, 4), tensorOf(t, make([]float32, 8), 2, 4)
	for _, n := range []int{3, 5, 0} {
		what := fmt.Sprintf("RMSNorm with %d weights for rows of 4", n)
		require.ErrorIs(t, noPanic(t, what, func() error { return RMSNorm(dst, x, make([]float32, n), 1e-5) }), unit00.ErrInvalid, what)
	}
	// A last axis of extent 0 has no rows to normalise, and no rows at all
	// is no work either: both are fine.
	for _, dims := range [][]int{{3, 0}, {0, 4}, {0}} {
		z := tensorOf(t, nil, dims...)
		what := fmt.Sprintf("RMSNorm of an empty %v tensor", dims)
		require.NoError(t, noPanic(t, what, func() error { return RMSNorm(z, z, make([]float32, dims[len(dims)-1]), 1e-5) }), what)
	}
}

// checkRowsErrors checks the errors shared by the row-wise tensor functions
// (RMSNorm, Softmax), each for rows of 4: every bad pair of tensors must be
// refused with the right error before anything is written.
func checkRowsErrors(t *testing.T, name string, f func(dst, x unit01.Tensor) error) {
	t.Helper()
	f32 := func(dims ...int) unit01.Tensor { return tensorOf(t, counting(oracle.Numel(dims)), dims...) }
	f16 := func(dims ...int) unit01.Tensor {
		h, err := unit01.Zeros(unit01.F16, unit01.MustShape(dims...))
		require.NoError(t, err)
		return h
	}
	transposed := func(rows, cols int) unit01.Tensor { // a [cols rows] view
		v, err := f32(rows, cols).Transpose(0, 1)
		require.NoError(t, err)
		return v
	}
	for _, c := range []struct {
		what   string
		dst, x unit01.Tensor
		want   error
	}{
		{"an F16 input into an F32 destination", f32(2, 4), f16(2, 4), unit00.ErrUnsupported},
		{"an F32 input into an F16 destination", f16(2, 4), f32(2, 4), unit00.ErrUnsupported},
		{"a [4 2] destination for a [2 4] input", f32(4, 2), f32(2, 4), unit00.ErrInvalid},
		{"an [8 4] destination for a [2 4] input", f32(8, 4), f32(2, 4), unit00.ErrInvalid},
		{"a [1 2 4] destination for a [2 4] input", f32(1, 2, 4), f32(2, 4), unit00.ErrInvalid},
		{"a scalar (rank 0): it has no rows", f32(), f32(), unit00.ErrInvalid},
		{"a transposed (non-contiguous) input", f32(2, 4), transposed(4, 2), unit00.ErrInvalid},
		{"a transposed (non-contiguous) destination", transposed(4, 2), f32(2, 4), unit00.ErrInvalid},
	} {
		var before []float32
		if c.dst.DType() == unit01.F32 {
			before = append(before, c.dst.Storage().Float32s()...)
		}
		what := fmt.Sprintf("%s of %s", name, c.what)
		require.ErrorIs(t, noPanic(t, what, func() error { return f(c.dst, c.x) }), c.want, what)
		if before != nil {
			require.Empty(t, cmp.Diff(before, c.dst.Storage().Float32s()), "%s of %s returned an error but wrote into dst (-before +after)", name, c.what)
		}
	}
}
