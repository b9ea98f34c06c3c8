package unit02

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
)

var negInf = float32(math.Inf(-1))

// softmaxTol is the budget of a softmax of x/temp. Each probability is one
// exponential (≈2 ulp) divided by a sum of n of them (whose error grows like
// √n·ε): 64 ulp covers rows of thousands. But the exponent zᵢ − m is itself
// rounded to float32 first, with an absolute error of about ε·|z|, and
// e^(z+δ) = e^z·(1+δ): so the relative budget also grows with the size of
// the logits, 4·ε·max|z|. At logits of 1e4 a float32 softmax is good to
// about 1e-3 in its small probabilities, and no float32 code can do better.
// The absolute floor is for probabilities below 1e-30, which may underflow.
func softmaxTol(x []float32, temp float32) oracle.Tol {
	return oracle.Tol{Atol: 1e-30, Rtol: (64 + 4*maxFiniteAbs(x, temp)) * eps32}
}

// logSoftmaxTol: log-probabilities are differences of O(|z|) terms, so
// their error is relative to the row's scale rather than to each value.
func logSoftmaxTol(x []float32, temp float32) oracle.Tol {
	return oracle.Tol{Atol: 64 * eps32 * (maxFiniteAbs(x, temp) + 1), Rtol: 16 * eps32}
}

// maxFiniteAbs is max |x/temp| over the finite entries: masked (−Inf)
// entries carry no rounding error of their own and must not inflate the
// budget.
func maxFiniteAbs(x []float32, temp float32) float64 {
	m := 0.0
	for _, v := range x {
		if z := math.Abs(float64(v / temp)); !math.IsInf(z, 0) {
			m = math.Max(m, z)
		}
	}
	return m
}

// logitRows returns test rows: ordinary logits, logits of magnitude 1e4
// (their exponentials overflow unless the maximum is subtracted first), a
// row with one dominant entry, and constant rows.
func logitRows(n int) map[string][]float32 {
	g := oracle.NewRand(uint64(40 + n))
	huge := g.Uniform(n, -1e4, 1e4)
	one := g.Normal(n, 0, 1)
	one[n/2] = 50
	return map[string][]float32{
		"normal":    g.Normal(n, 0, 3),
		"±1e4":      huge,
		"one of 50": one,
		"constant":  make([]float32, n),
		"subnormal": g.Uniform(n, -1e-40, 1e-40),
	}
}

// causalMask returns a row of n additive mask entries that hides every
// position after pos (−Inf) and keeps the rest (0).
func causalMask(n, pos int) []float32 {
	m := make([]float32, n)
	for i := pos + 1; i < n; i++ {
		m[i] = negInf
	}
	return m
}

func TestC2_4_Softmax(t *testing.T) {
	eachSIMD(t, func(t *testing.T) {
		for _, n := range lengths {
			for name, x := range logitRows(n) {
				for _, temp := range []float32{1, 0.5, 2.5} {
					what := fmt.Sprintf("SoftmaxRow(%s, n=%d, temp %g)", name, n, temp)
					dst := make([]float32, n)
					SoftmaxRow(dst, x, temp, nil)
					want := oracle.Softmax(oracle.Float64s(x), float64(temp), nil)
					oracle.AssertClose(t, what, dst, want, softmaxTol(x, temp))
					if s := oracle.Sum(dst); beyond(s, 1, softmaxTol(x, temp).Rtol) {
						t.Errorf("%s sums to %.9f, want 1", what, s)
					}
				}
				mask := causalMask(n, n/3)
				dst := make([]float32, n)
				SoftmaxRow(dst, x, 1, mask)
				oracle.AssertClose(t, fmt.Sprintf("SoftmaxRow(%s, n=%d, causal mask at %d)", name, n, n/3), dst,
					oracle.Softmax(oracle.Float64s(x), 1, oracle.Float64s(mask)), softmaxTol(x, 1))
			}
		}
	})
}

func TestC2_4_SoftmaxEdges(t *testing.T) {
	eachSIMD(t, func(t *testing.T) {
		for _, n := range []int{1, 5, 17, 100} {
			// Everything masked: documented to give all zeros, not NaN.
			x := oracle.NewRand(44).Normal(n, 0, 1)
			dst := make([]float32, n)
			SoftmaxRow(dst, x, 1, causalMask(n, -1))
			for i, v := range dst {
				if v != 0 {
					t.Fatalf("SoftmaxRow of a fully masked row of %d: element %d = %v, want 0 (a fully masked row has no probability mass)", n, i, v)
				}
			}
			allNegInf := make([]float32, n)
			for i := range allNegInf {
				allNegInf[i] = negInf
			}
			SoftmaxRow(dst, allNegInf, 1, nil)
			if i, ok := allFinite(dst); !ok || dst[0] != 0 {
				t.Fatalf("SoftmaxRow of a row of −Inf: element %d = %v, want all zeros", i, dst[max(i, 0)])
			}
		}
		// In place, with a mask.
		x := []float32{3, 1, -2, 8, 0.5}
		want := oracle.Softmax(oracle.Float64s(x), 2, oracle.Float64s(causalMask(5, 2)))
		tol := softmaxTol(x, 2)
		SoftmaxRow(x, x, 2, causalMask(5, 2))
		oracle.AssertClose(t, "SoftmaxRow in place with a mask", x, want, tol)
	})
	if _, panicked := oracle.Panics(func() { SoftmaxRow(make([]float32, 2), make([]float32, 2), 0, nil) }); !panicked {
		t.Errorf("SoftmaxRow with temperature 0 did not panic")
	}
}

func TestC2_4_LogSoftmax(t *testing.T) {
	for _, n := range lengths {
		for name, x := range logitRows(n) {
			for _, temp := range []float32{1, 0.5} {
				dst := make([]float32, n)
				LogSoftmaxRow(dst, x, temp, nil)
				oracle.AssertClose(t, fmt.Sprintf("LogSoftmaxRow(%s, n=%d, temp %g)", name, n, temp), dst,
					oracle.LogSoftmax(oracle.Float64s(x), float64(temp), nil), logSoftmaxTol(x, temp))
			}
		}
	}
	// log of a probability too small for float32: computed directly it is
	// exact, as log(softmax) it would be log(0) = −Inf.
	x := []float32{0, -200, -1000}
	dst := make([]float32, 3)
	LogSoftmaxRow(dst, x, 1, nil)
	oracle.AssertClose(t, "LogSoftmaxRow([0 -200 -1000])", dst, []float64{0, -200, -1000}, oracle.Tol{Rtol: 4 * eps32})
	LogSoftmaxRow(x, x, 1, causalMask(3, 1)) // in place with a mask
	if x[0] != 0 || beyond(float64(x[1]), -200, 1e-4) || !math.IsInf(float64(x[2]), -1) {
		t.Errorf("LogSoftmaxRow in place with a mask = %v, want [0 -200 -Inf]", x)
	}
	all := []float32{negInf, negInf}
	LogSoftmaxRow(all, all, 1, nil)
	if !math.IsInf(float64(all[0]), -1) || !math.IsInf(float64(all[1]), -1) {
		t.Errorf("LogSoftmaxRow of a row of −Inf = %v, want all −Inf", all)
	}
}

func TestC2_4_SoftmaxTensor(t *testing.T) {
	x := tensorOf(t, oracle.NewRand(45).Normal(4*33, 0, 5), 4, 33)
	dst, _ := unit01.Zeros(unit01.F32, unit01.MustShape(4, 33))
	if err := Softmax(dst, x); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 4; r++ {
		row := x.F32()[r*33 : (r+1)*33]
		oracle.AssertClose(t, fmt.Sprintf("Softmax row %d", r), dst.F32()[r*33:(r+1)*33],
			oracle.Softmax(oracle.Float64s(row), 1, nil), softmaxTol(row, 1))
	}
}

func TestC2_4_SoftmaxChecks(t *testing.T) {
	for _, f := range []struct {
		name string
		f    func(dst, x []float32, temp float32, mask []float32)
	}{{"SoftmaxRow", SoftmaxRow}, {"LogSoftmaxRow", LogSoftmaxRow}} {
		for _, c := range []struct {
			what         string
			ndst, nx, nm int // nm < 0: no mask
			temp         float32
		}{
			{"dst shorter than x", 3, 4, -1, 1},
			{"dst longer than x", 5, 4, -1, 1},
			{"a mask shorter than x", 4, 4, 3, 1},
			{"a mask longer than x", 4, 4, 5, 1},
			{"temperature 0", 4, 4, -1, 0},
			{"a negative temperature", 4, 4, -1, -0.5},
			{"a negative temperature and a mask", 4, 4, 4, -2},
		} {
			dst := []float32{7, 7, 7, 7, 7}[:c.ndst]
			var mask []float32
			if c.nm >= 0 {
				mask = make([]float32, c.nm)
			}
			what := fmt.Sprintf("%s with %s", f.name, c.what)
			if !mustCheckPanic(t, what, func() { f.f(dst, oracle.NewRand(46).Normal(c.nx, 0, 1), c.temp, mask) }) {
				continue
			}
			for i, v := range dst {
				if v != 7 {
					t.Errorf("%s wrote %v into dst[%d] before it panicked: check the arguments first", what, v, i)
					break
				}
			}
		}
		if _, panicked := oracle.Panics(func() { f.f(nil, nil, 1, nil) }); panicked {
			t.Errorf("%s of an empty row panicked: there is nothing to do", f.name)
		}
	}
}

// TestC2_4_MaskAndTemperature combines a temperature other than 1 with a
// mask, at every length: the mask is added after the division by the
// temperature, z = x/temp + mask, and it may hold finite penalties besides
// 0 and −Inf.
func TestC2_4_MaskAndTemperature(t *testing.T) {
	g := oracle.NewRand(47)
	eachSIMD(t, func(t *testing.T) {
		for _, n := range lengths {
			x := g.Normal(n, 0, 4)
			mask := make([]float32, n)
			for i := range mask {
				switch g.Intn(4) {
				case 0:
					mask[i] = negInf
				case 1:
					mask[i] = -float32(g.Intn(8)) * 0.75
				}
			}
			mask[g.Intn(n)] = 0 // at least one position stays visible
			for _, temp := range []float32{0.7, 3} {
				z := make([]float32, n)
				for i := range z {
					z[i] = x[i]/temp + mask[i]
				}
				want := oracle.Softmax(oracle.Float64s(x), float64(temp), oracle.Float64s(mask))
				wantLog := oracle.LogSoftmax(oracle.Float64s(x), float64(temp), oracle.Float64s(mask))
				what := fmt.Sprintf("(n=%d, temp %g, a mask with −Inf and finite penalties)", n, temp)
				dst := make([]float32, n)
				SoftmaxRow(dst, x, temp, mask)
				oracle.AssertClose(t, "SoftmaxRow"+what, dst, want, softmaxTol(z, 1))
				LogSoftmaxRow(dst, x, temp, mask)
				oracle.AssertClose(t, "LogSoftmaxRow"+what, dst, wantLog, logSoftmaxTol(z, 1))
				in := append([]float32(nil), x...)
				SoftmaxRow(in, in, temp, mask)
				oracle.AssertClose(t, "SoftmaxRow in place"+what, in, want, softmaxTol(z, 1))
				in = append(in[:0], x...)
				LogSoftmaxRow(in, in, temp, mask)
				oracle.AssertClose(t, "LogSoftmaxRow in place"+what, in, wantLog, logSoftmaxTol(z, 1))
			}
		}
	})
}

func TestC2_4_SoftmaxTensorChecks(t *testing.T) {
	checkRowsErrors(t, "Softmax", Softmax)
	for _, dims := range [][]int{{3, 0}, {0, 4}, {0}} {
		z := tensorOf(t, nil, dims...)
		what := fmt.Sprintf("Softmax of an empty %v tensor", dims)
		require.NoError(t, noPanic(t, what, func() error { return Softmax(z, z) }), what)
	}
	// Many short rows, in place: each row is its own distribution.
	x := oracle.NewRand(48).Normal(9*5, 0, 3)
	xt := tensorOf(t, append([]float32(nil), x...), 9, 5)
	require.NoError(t, Softmax(xt, xt))
	for r := 0; r < 9; r++ {
		row := x[r*5 : (r+1)*5]
		oracle.AssertClose(t, fmt.Sprintf("Softmax in place, row %d of [9 5]", r), xt.F32()[r*5:(r+1)*5], oracle.Softmax(oracle.Float64s(row), 1, nil), softmaxTol(row, 1))
	}
}
