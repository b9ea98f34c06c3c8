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
	unit00.Check(headDim > 0 && headDim%2 == 0 && maxPos >= 0, "NewRope: headDim must be even and positive, maxPos non-negative")
	unit00.Check(factors == nil || len(factors) == headDim/2, "NewRopeFactors: want headDim/2 factors")
	half := headDim / 2
	r := &Rope{style: style, headDim: headDim, maxPos: maxPos,
		cos: make([]float32, maxPos*half), sin: make([]float32, maxPos*half)}
	for i := range half {
		theta := math.Pow(base, -2*float64(i)/float64(headDim))
		if factors != nil {
			theta /= float64(factors[i])
		}
		for pos := range maxPos {
			s, c := math.Sincos(float64(pos) * theta)
			r.cos[pos*half+i], r.sin[pos*half+i] = float32(c), float32(s)
		}
	}
	return r
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
