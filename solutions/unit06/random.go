package unit06

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// Validate checks e: 1 ≤ Used ≤ Experts ≤ MaxExperts, a positive FFN and a
// SharedFFN not negative. The error names the field and wraps
// unit00.ErrInvalid.
func (e Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("moe config: %s: %w", fmt.Sprintf(format, args...), unit00.ErrInvalid)
	}
	switch {
	case e.Experts < 1 || e.Experts > MaxExperts:
		return bad("Experts %d, want 1 to %d", e.Experts, MaxExperts)
	case e.Used < 1 || e.Used > e.Experts:
		return bad("Used %d, want 1 to Experts (%d)", e.Used, e.Experts)
	case e.FFN < 1:
		return bad("FFN %d, want at least 1", e.FFN)
	case e.SharedFFN < 0:
		return bad("SharedFFN %d, want 0 (none) or more", e.SharedFFN)
	}
	return nil
}

// RandomWeights returns seeded random weights for a model of shape c whose
// every layer's feed-forward is a mixture of experts of shape e: the same
// for the same seed on every machine. The attention, norms and embeddings
// are those of unit05.RandomWeights(c, seed) made with c.FFN = 1 (c.FFN
// plays no part in an MoE model); each layer's MoE (a *MoE) has a
// router of std 1/√Dim, so that a normalised token's logits have a std near
// 1 and its choice is clear, and experts (and a shared expert when
// e.SharedFFN > 0) drawn as unit05 draws its dense feed-forward: Gate and
// Up with std √(2/Dim), Down with std √(2/(Dim+FFN)); the shared gate
// input has std 1/√Dim. The layers have no dense Gate, Up or Down. An
// invalid c or e is an error wrapping unit00.ErrInvalid.
func RandomWeights(c unit05.Config, e Config, seed uint64) (*unit05.Weights, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	// unit05's weights for everything but the feed-forward, which MoE
	// replaces: drawn with a dense FFN 1 wide, not the c.FFN that could
	// be gigabytes of matrices thrown away.
	dense := c
	dense.FFN = 1
	w, err := unit05.RandomWeights(dense, seed)
	if err != nil {
		return nil, err
	}
	g := rand.New(rand.NewPCG(seed, 0x4d6f45)) // "MoE"
	normal := func(n int, std float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(std * g.NormFloat64())
		}
		return x
	}
	matrix := func(out, in int, std float64) unit05.Matrix {
		return unit05.NewDense(unit03.MatOf(out, in, normal(out*in, std)))
	}
	d := c.Dim
	he, xavier := math.Sqrt(2/float64(d)), math.Sqrt(2/float64(d+e.FFN))
	for i := range w.Layers {
		mw := &Weights{Router: matrix(e.Experts, d, 1/math.Sqrt(float64(d))), Used: e.Used, Renormalize: e.Renormalize}
		for range e.Experts {
			mw.Gate = append(mw.Gate, matrix(e.FFN, d, he))
			mw.Up = append(mw.Up, matrix(e.FFN, d, he))
			mw.Down = append(mw.Down, matrix(d, e.FFN, xavier))
		}
		if e.SharedFFN > 0 {
			mw.SharedGateInp = normal(d, 1/math.Sqrt(float64(d)))
			mw.SharedGate = matrix(e.SharedFFN, d, he)
			mw.SharedUp = matrix(e.SharedFFN, d, he)
			mw.SharedDown = matrix(d, e.SharedFFN, math.Sqrt(2/float64(d+e.SharedFFN)))
		}
		moe, err := New(mw)
		if err != nil {
			return nil, err
		}
		l := &w.Layers[i]
		l.MoE, l.Gate, l.Up, l.Down = moe, nil, nil, nil
	}
	return w, nil
}
