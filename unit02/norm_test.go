package unit02

import (
	"errors"
	"fmt"
	"math"
	"testing"

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
