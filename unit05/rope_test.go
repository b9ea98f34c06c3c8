package unit05

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// ropeTol: the tables hold float32 roundings of exact cos and sin, and a
// rotation adds two float32 products, so each output is within a few ulps
// of the float64 rotation of the same float32 input.
var ropeTol = oracle.Tol{Atol: 1e-6, Rtol: 1e-6}

func TestC5_2_Rope(t *testing.T) {
	g := oracle.NewRand(53)
	for _, style := range []RopeStyle{RopeNorm, RopeNeox} {
		for _, hd := range []int{2, 8, 64, 128} {
			for _, base := range []float64{10000, 500000} {
				const maxPos = 4096
				r := NewRope(hd, maxPos, base, style)
				// Position 0, small ones, and large ones, where an angle
				// computed in float32 has lost its fraction.
				for _, pos := range []int{0, 1, 2, 7, 100, 1000, 4095} {
					x := g.Normal(hd, 0, 1)
					want := oracle.Float64s(x)
					oracle.Rope(want, pos, base, style == RopeNeox)
					r.Rotate(x, pos)
					oracle.AssertClose(t, fmt.Sprintf("Rope(%v, headDim %d, base %g).Rotate at position %d", style, hd, base, pos), x, want, ropeTol)
				}
			}
		}
	}
	for _, style := range []RopeStyle{RopeNorm, RopeNeox} {
		r := NewRope(8, 10, 10000, style)
		mustPanic(t, fmt.Sprintf("Rope(%v, 10 positions).Rotate at position 10, one past the table", style), func() { r.Rotate(make([]float32, 8), 10) })
		mustPanic(t, fmt.Sprintf("Rope(%v, 10 positions).Rotate at position −1", style), func() { r.Rotate(make([]float32, 8), -1) })
		mustPanic(t, fmt.Sprintf("Rope(%v, headDim 8).Rotate of a vector of 10", style), func() { r.Rotate(make([]float32, 10), 3) })
		mustPanic(t, fmt.Sprintf("Rope(%v, headDim 8).Rotate of a vector of 6", style), func() { r.Rotate(make([]float32, 6), 3) })
		// The last position of the table is in it.
		x := []float32{1, 2, 3, 4, 5, 6, 7, 8}
		want := oracle.Float64s(x)
		oracle.Rope(want, 9, 10000, style == RopeNeox)
		r.Rotate(x, 9)
		oracle.AssertClose(t, fmt.Sprintf("Rope(%v, 10 positions).Rotate at position 9, the table's last", style), x, want, ropeTol)
	}
	for _, bad := range []struct {
		headDim, maxPos int
	}{{0, 10}, {-2, 10}, {7, 10}, {8, -1}} {
		mustPanic(t, fmt.Sprintf("NewRope(headDim %d, maxPos %d)", bad.headDim, bad.maxPos), func() { NewRope(bad.headDim, bad.maxPos, 10000, RopeNorm) })
	}
	if v, panicked := oracle.Panics(func() { NewRope(8, 0, 10000, RopeNorm) }); panicked {
		t.Errorf("NewRope(headDim 8, maxPos 0) panicked (%v): no positions is an empty table, not an error", v)
	}
}

// TestC5_2_RopeFactors: Llama 3's frequency factors divide each pair's
// angle: at 32, pair i turns 32 times more slowly than NewRope's.
func TestC5_2_RopeFactors(t *testing.T) {
	g := oracle.NewRand(55)
	for _, style := range []RopeStyle{RopeNorm, RopeNeox} {
		for _, hd := range []int{2, 8, 64, 128} {
			factors := make([]float32, hd/2)
			for i := range factors { // 1 … 32, and values between
				factors[i] = float32(1 + 31*math.Pow(float64(i)/float64(max(1, hd/2-1)), 2) + 0.25*g.Float64())
			}
			const maxPos = 4096
			r := NewRopeFactors(hd, maxPos, 500000, style, factors)
			for _, pos := range []int{0, 1, 3, 100, 4095} {
				x := g.Normal(hd, 0, 1)
				want := oracle.Float64s(x)
				oracle.RopeFactors(want, pos, 500000, style == RopeNeox, oracle.Float64s(factors))
				r.Rotate(x, pos)
				oracle.AssertClose(t, fmt.Sprintf("NewRopeFactors(%v, headDim %d, factors %.3g …).Rotate at position %d", style, hd, factors[:min(4, len(factors))], pos), x, want, ropeTol)
			}
		}
		// No factors is NewRope, and so are factors of 1.
		for _, factors := range [][]float32{nil, {1, 1, 1, 1}} {
			x, y := g.Normal(8, 0, 1), make([]float32, 8)
			copy(y, x)
			NewRopeFactors(8, 200, 10000, style, factors).Rotate(x, 199)
			NewRope(8, 200, 10000, style).Rotate(y, 199)
			oracle.AssertClose(t, fmt.Sprintf("NewRopeFactors(%v, factors %v) against NewRope at position 199", style, factors), x, oracle.Float64s(y), oracle.Tol{})
		}
	}
	for _, n := range []int{3, 5, 8, 0} {
		mustPanic(t, fmt.Sprintf("NewRopeFactors(headDim 8) with %d factors (want 4)", n), func() { NewRopeFactors(8, 10, 10000, RopeNorm, make([]float32, n)) })
	}
}

// TestC5_2_RopeYarn: YaRN keeps the fast pairs' angles, slows the slow
// pairs Factor times, blends those between, and scales every rotation by
// AttnFactor·(1 + 0.1·ln Factor).
func TestC5_2_RopeYarn(t *testing.T) {
	g := oracle.NewRand(56)
	yarns := []Yarn{
		*NewYarn(4, 32768),  // Qwen2.5's: the blend from pair 23 to 40 of a head of 128 at base 10⁶
		*NewYarn(4, 64),     // a short original context: few pairs keep their angles
		*NewYarn(8, 4096),   // a wider stretch
		*NewYarn(1, 256),    // no stretch: plain RoPE
		*NewYarn(2.5, 1000), // a factor that is not a power of two
		{Factor: 16, OrigCtx: 2048, BetaFast: 8, BetaSlow: 0.5, AttnFactor: 0.7}, // betas and a magnitude of their own
		{Factor: 3, OrigCtx: 50, BetaFast: 2, BetaSlow: 1.5, AttnFactor: 1.25},   // a ramp one or two pairs wide
		*NewYarn(4, 2), // no pair turns even once in 2 positions: low = high = 0, a ramp of width 0 (ggml's 0.001)
		*NewYarn(2, 1), // the shortest original context there is
		// A context so long that the pair turning once lies past the head:
		// high is clamped to headDim − 1, and the ramp's slope depends on it.
		{Factor: 4, OrigCtx: 1 << 30, BetaFast: 1e6, BetaSlow: 1, AttnFactor: 1},
	}
	for _, style := range []RopeStyle{RopeNorm, RopeNeox} {
		for _, hd := range []int{2, 8, 64, 128} {
			for _, base := range []float64{10000, 1e6} {
				for k, y := range yarns {
					var factors []float32
					if k%2 == 1 { // with Llama 3's factors too, on every other
						factors = make([]float32, hd/2)
						for i := range factors {
							factors[i] = float32(1 + 7*g.Float64())
						}
					}
					var f64 []float64 // the oracle's factors: nil for none
					if factors != nil {
						f64 = oracle.Float64s(factors)
					}
					const maxPos = 4096
					r := NewRopeYarn(hd, maxPos, base, style, factors, &y)
					for _, pos := range []int{0, 1, 5, 63, 64, 700, 4095} {
						x := g.Normal(hd, 0, 1)
						want := oracle.Float64s(x)
						oracle.RopeYarn(want, pos, base, style == RopeNeox, f64, &oracle.Yarn{Factor: y.Factor, OrigCtx: y.OrigCtx, BetaFast: y.BetaFast, BetaSlow: y.BetaSlow, AttnFactor: y.AttnFactor})
						r.Rotate(x, pos)
						oracle.AssertClose(t, fmt.Sprintf("NewRopeYarn(%v, headDim %d, base %g, factors %v, %+v).Rotate at position %d", style, hd, base, factors != nil, y, pos), x, want, ropeTol)
					}
				}
			}
		}
		// No YaRN is NewRopeFactors exactly.
		x, y := g.Normal(8, 0, 1), make([]float32, 8)
		copy(y, x)
		NewRopeYarn(8, 200, 10000, style, []float32{1, 2, 3, 4}, nil).Rotate(x, 199)
		NewRopeFactors(8, 200, 10000, style, []float32{1, 2, 3, 4}).Rotate(y, 199)
		oracle.AssertClose(t, fmt.Sprintf("NewRopeYarn(%v, nil) against NewRopeFactors at position 199", style), x, oracle.Float64s(y), oracle.Tol{})
	}
	mustPanic(t, "NewRopeYarn with 3 factors for a head of 8", func() { NewRopeYarn(8, 10, 10000, RopeNorm, make([]float32, 3), NewYarn(4, 64)) })
	mustPanic(t, "NewRopeYarn with headDim 7", func() { NewRopeYarn(7, 10, 10000, RopeNorm, nil, NewYarn(4, 64)) })
	mustPanic(t, "NewRopeYarn with a Factor of 0.5", func() { NewRopeYarn(8, 10, 10000, RopeNorm, nil, NewYarn(0.5, 64)) })
	mustPanic(t, "NewRopeYarn with an OrigCtx of 0", func() { NewRopeYarn(8, 10, 10000, RopeNorm, nil, NewYarn(4, 0)) })
}

func TestC5_2_RotateHeads(t *testing.T) {
	g := oracle.NewRand(54)
	const hd, heads, T, pos0 = 16, 3, 5, 9
	for _, style := range []RopeStyle{RopeNorm, RopeNeox} {
		r := NewRope(hd, 32, 10000, style)
		x := randMat(g, T, heads*hd)
		want := make([]float64, 0, T*heads*hd)
		for i := range T {
			for h := range heads {
				v := oracle.Float64s(x.Row(i)[h*hd : (h+1)*hd])
				oracle.Rope(v, pos0+i, 10000, style == RopeNeox)
				want = append(want, v...)
			}
		}
		r.RotateHeads(x, pos0)
		oracle.AssertCloseShape(t, fmt.Sprintf("Rope(%v).RotateHeads of %d rows × %d heads from position %d", style, T, heads, pos0), dense(x), want, []int{T, heads, hd}, ropeTol)
		checkPadding(t, "RotateHeads", x)
	}
	var empty unit03.Mat
	NewRope(4, 4, 10000, RopeNorm).RotateHeads(empty, 0) // no rows: nothing to do, no panic
	r := NewRope(hd, 32, 10000, RopeNorm)
	mustPanic(t, "RotateHeads of rows 40 wide with heads of 16", func() { r.RotateHeads(randMat(g, 2, 40), 0) })
	mustPanic(t, "RotateHeads of rows 8 wide with heads of 16", func() { r.RotateHeads(randMat(g, 2, 8), 0) })
	mustPanic(t, "RotateHeads of 5 rows from position 28 with a table of 32 positions", func() { r.RotateHeads(randMat(g, 5, hd), 28) })
}
