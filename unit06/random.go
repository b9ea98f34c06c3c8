package unit06

import "github.com/llmforge/forge/unit05"

// Validate checks e: 1 ≤ Used ≤ Experts ≤ MaxExperts, a positive FFN and a
// SharedFFN not negative. The error names the field and wraps
// unit00.ErrInvalid.
func (e Config) Validate() error {
	panic("TODO(6.4): write Config.Validate, see docs/unit06.md")
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
	panic("TODO(6.4): write RandomWeights, see docs/unit06.md")
}
