package unit05

import (
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
// It panics (unit00.Check) unless headDim is positive and even and maxPos
// is not negative; maxPos 0 is an empty table.
func NewRope(headDim, maxPos int, base float64, style RopeStyle) *Rope {
	panic("TODO(5.2): write NewRope, see docs/unit05.md")
}

// NewRopeFactors is NewRope with pair i's θᵢ divided by factors[i], as
// llama.cpp applies a Llama 3 model's rope_freqs: θᵢ =
// base^(−2i/headDim) / factors[i]. factors nil is NewRope. It panics
// (unit00.Check) as NewRope does, and unless factors is nil or holds
// headDim/2 values.
func NewRopeFactors(headDim, maxPos int, base float64, style RopeStyle, factors []float32) *Rope {
	panic("TODO(5.2): write NewRopeFactors, see docs/unit05.md")
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
	panic("TODO(5.2): write NewRopeYarn, see docs/unit05.md")
}

// Rotate rotates one head vector x (len headDim) in place for position pos:
// each pair (a, b) becomes (a·cos − b·sin, a·sin + b·cos). The pairs are
// (x[2i], x[2i+1]) for RopeNorm and (x[i], x[i+headDim/2]) for RopeNeox.
// It panics (unit00.Check) if pos is outside [0, maxPos) or len(x) is not
// headDim.
func (r *Rope) Rotate(x []float32, pos int) {
	panic("TODO(5.2): write Rope.Rotate, see docs/unit05.md")
}

// RotateHeads rotates every head of every row of x in place: x holds
// x.Cols/headDim heads side by side per row, and row t is the token at
// position pos0+t. It panics (unit00.Check) if x.Cols is not a multiple of
// headDim, or a row's position is outside the table.
func (r *Rope) RotateHeads(x unit03.Mat, pos0 int) {
	panic("TODO(5.2): write Rope.RotateHeads, see docs/unit05.md")
}
