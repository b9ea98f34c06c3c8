package unit05

// RandomWeights returns seeded random weights for c, the same for the same
// seed on every machine. Matrices are drawn from a normal distribution
// scaled by their fan-in and fan-out, so activations keep a steady size
// through any number of layers:
//
//   - Wq, Wk, Wv, Wo, Down: Xavier (Glorot), std √(2 / (in + out));
//   - Gate, Up: He (Kaiming), std √(2 / in), as they feed a SiLU;
//   - Embed (and an untied Output): std 1/√Dim, so a logit, the dot
//     product of a normalised state with a row, has a std near 1;
//   - AttnNorm, FFNNorm, OutNorm: 1 + N(0, 0.1²), near 1 but not equal, so
//     a norm weight that is never applied shows;
//   - Bq, Bk, Bv (with QKVBias): N(0, 0.2²).
//
// With TiedEmbeddings, Output is Embed. An invalid config is an error.
func RandomWeights(c Config, seed uint64) (*Weights, error) {
	panic("TODO(5.1): write RandomWeights, see docs/unit05.md")
}

// Check verifies that w fits c: every matrix present with the shape c
// implies (a layer with an MoE block has no Gate, Up or Down, and its
// block is Dim wide), every norm and bias of the right length, biases
// present exactly when c.QKVBias, and Output the same Matrix as Embed exactly when
// c.TiedEmbeddings. The error names the tensor as GGUF does
// (blk.3.attn_k) and wraps unit00.ErrInvalid.
func (w *Weights) Check(c Config) error {
	panic("TODO(5.1): write Weights.Check, see docs/unit05.md")
}
