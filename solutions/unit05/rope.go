package unit05

import (
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// Rope applies rotary position embeddings: it rotates each pair of a head's
// dimensions by an angle proportional to the token's position, so the dot
// product of a rotated query and a rotated key depends on how far apart the
// two tokens are, not on where they are.
type Rope struct {
	style   RopeStyle
	headDim int
	maxPos  int
	// cos and sin hold cos(pos·θᵢ) and sin(pos·θᵢ) at pos*headDim/2 + i.
	cos, sin []float32
}

// NewRope precomputes the rotations of positions [0, maxPos) for heads of
// headDim dimensions (even), with θᵢ = base^(−2i/headDim) for pair i. The
// angles are computed in float64 and rounded once: pos·θ₀ reaches
// thousands of radians, where float32 would lose the angle's fraction.
func NewRope(headDim, maxPos int, base float64, style RopeStyle) *Rope {
	return NewRopeFactors(headDim, maxPos, base, style, nil)
}

// NewRopeFactors is NewRope with pair i's θᵢ divided by factors[i], as
// llama.cpp applies a Llama 3 model's rope_freqs: θᵢ =
// base^(−2i/headDim) / factors[i]. factors nil is NewRope. It panics
// (unit00.Check) as NewRope does, and unless factors is nil or holds
// headDim/2 values.
func NewRopeFactors(headDim, maxPos int, base float64, style RopeStyle, factors []float32) *Rope {
	return NewRopeYarn(headDim, maxPos, base, style, factors, nil)
}

// NewRopeYarn is NewRopeFactors with YaRN, as ggml's rope computes it
// (ext_factor 1): with θᵢ NewRopeFactors' angle per position and s =
// y.Factor, pair i turns at θᵢ·((1 − rᵢ)/s + rᵢ), where the ramp rᵢ = 1 −
// clamp((i − low) / max(0.001, high − low), 0, 1) runs between the pairs
// low = max(0, ⌊dim(y.BetaFast)⌋) and high = min(headDim − 1,
// ⌈dim(y.BetaSlow)⌉), dim(β) = headDim·ln(y.OrigCtx/(2πβ)) / (2·ln base)
// being the pair that turns β times over y.OrigCtx positions; and every
// cos and sin is multiplied by y.AttnFactor·(1 + 0.1·ln s). y nil is
// NewRopeFactors. It panics (unit00.Check) as NewRopeFactors does, and
// unless y is nil or has a Factor ≥ 1 and a positive OrigCtx (Validate
// checks the rest).
func NewRopeYarn(headDim, maxPos int, base float64, style RopeStyle, factors []float32, y *Yarn) *Rope {
	unit00.Check(headDim > 0 && headDim%2 == 0 && maxPos >= 0, "NewRope: headDim must be even and positive, maxPos non-negative")
	unit00.Check(factors == nil || len(factors) == headDim/2, "NewRopeFactors: want headDim/2 factors")
	unit00.Check(y == nil || (y.Factor >= 1 && y.OrigCtx > 0), "NewRopeYarn: want a Factor of at least 1 and a positive OrigCtx")
	half := headDim / 2
	r := &Rope{style: style, headDim: headDim, maxPos: maxPos,
		cos: make([]float32, maxPos*half), sin: make([]float32, maxPos*half)}
	scale, mix := 1.0, func(int) float64 { return 1 }
	if y != nil {
		scale, mix = yarn(headDim, base, y)
	}
	for i := range half {
		theta := math.Pow(base, -2*float64(i)/float64(headDim)) * mix(i)
		if factors != nil {
			theta /= float64(factors[i])
		}
		for pos := range maxPos {
			s, c := math.Sincos(float64(pos) * theta)
			r.cos[pos*half+i], r.sin[pos*half+i] = float32(scale*c), float32(scale*s)
		}
	}
	return r
}

// yarn returns YaRN's magnitude and, for each pair, the multiplier of its
// frequency: 1 for the fast pairs that keep their angles (extrapolated),
// 1/s for the slow ones that are interpolated, and a linear blend between.
// The blend runs over the pairs that turn between BetaFast and BetaSlow
// times within the original context: pair i turns OrigCtx·base^(−2i/d) / 2π
// times, so it turns β times at i = d·ln(OrigCtx/(2πβ)) / (2·ln base).
func yarn(headDim int, base float64, y *Yarn) (scale float64, mix func(i int) float64) {
	dim := func(beta float64) float64 {
		return float64(headDim) * math.Log(float64(y.OrigCtx)/(2*math.Pi*beta)) / (2 * math.Log(base))
	}
	low := math.Max(0, math.Floor(dim(y.BetaFast)))
	high := math.Min(float64(headDim-1), math.Ceil(dim(y.BetaSlow)))
	mix = func(i int) float64 {
		ramp := 1 - min(1, max(0, (float64(i)-low)/max(0.001, high-low))) // 1: extrapolate, 0: interpolate
		return (1-ramp)/y.Factor + ramp
	}
	return y.AttnFactor * (1 + 0.1*math.Log(y.Factor)), mix
}

// Rotate rotates one head vector x (len headDim) in place for position pos:
// each pair (a, b) becomes (a·cos − b·sin, a·sin + b·cos). The pairs are
// (x[2i], x[2i+1]) for RopeNorm and (x[i], x[i+headDim/2]) for RopeNeox.
// It panics (unit00.Check) if pos is outside [0, maxPos) or len(x) is not
// headDim.
func (r *Rope) Rotate(x []float32, pos int) {
	unit00.Check(pos >= 0 && pos < r.maxPos && len(x) == r.headDim, "Rope.Rotate: position beyond the table or wrong head width")
	half := r.headDim / 2
	cos, sin := r.cos[pos*half:(pos+1)*half], r.sin[pos*half:(pos+1)*half]
	if r.style == RopeNeox {
		lo, hi := x[:half], x[half:]
		for i := range half {
			a, b := lo[i], hi[i]
			lo[i], hi[i] = a*cos[i]-b*sin[i], a*sin[i]+b*cos[i]
		}
		return
	}
	for i := range half {
		a, b := x[2*i], x[2*i+1]
		x[2*i], x[2*i+1] = a*cos[i]-b*sin[i], a*sin[i]+b*cos[i]
	}
}

// RotateHeads rotates every head of every row of x in place: x holds
// x.Cols/headDim heads side by side per row, and row t is the token at
// position pos0+t.
func (r *Rope) RotateHeads(x unit03.Mat, pos0 int) {
	unit00.Check(x.Cols%r.headDim == 0, "Rope.RotateHeads: row width is not a whole number of heads")
	for t := 0; t < x.Rows; t++ {
		row := x.Row(t)
		for h := 0; h < x.Cols; h += r.headDim {
			r.Rotate(row[h:h+r.headDim], pos0+t)
		}
	}
}
