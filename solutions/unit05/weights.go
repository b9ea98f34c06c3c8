package unit05

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

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
	if err := c.Validate(); err != nil {
		return nil, err
	}
	g := rand.New(rand.NewPCG(seed, 0x466f726765)) // "Forge"
	normal := func(n int, mean, std float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(mean + std*g.NormFloat64())
		}
		return x
	}
	matrix := func(out, in int, std float64) Matrix {
		return NewDense(unit03.MatOf(out, in, normal(out*in, 0, std)))
	}
	xavier := func(out, in int) Matrix { return matrix(out, in, math.Sqrt(2/float64(in+out))) }
	he := func(out, in int) Matrix { return matrix(out, in, math.Sqrt(2/float64(in))) }

	d, q, kv := c.Dim, c.QDim(), c.KVDim()
	w := &Weights{Embed: matrix(c.Vocab, d, 1/math.Sqrt(float64(d)))}
	for range c.Layers {
		l := Layer{
			AttnNorm: normal(d, 1, 0.1),
			Wq:       xavier(q, d),
			Wk:       xavier(kv, d),
			Wv:       xavier(kv, d),
			Wo:       xavier(d, q),
			FFNNorm:  normal(d, 1, 0.1),
			Gate:     he(c.FFN, d),
			Up:       he(c.FFN, d),
			Down:     xavier(d, c.FFN),
		}
		if c.QKVBias {
			l.Bq, l.Bk, l.Bv = normal(q, 0, 0.2), normal(kv, 0, 0.2), normal(kv, 0, 0.2)
		}
		w.Layers = append(w.Layers, l)
	}
	w.OutNorm = normal(d, 1, 0.1)
	w.Output = w.Embed
	if !c.TiedEmbeddings {
		w.Output = matrix(c.Vocab, d, 1/math.Sqrt(float64(d)))
	}
	return w, nil
}

// Check verifies that w fits c: every matrix present with the shape c
// implies (a layer with an MoE block has no Gate, Up or Down, and its
// block is Dim wide), every norm and bias of the right length, biases
// present exactly when c.QKVBias, and Output the same Matrix as Embed exactly when
// c.TiedEmbeddings. The error names the tensor as GGUF does
// (blk.3.attn_k) and wraps unit00.ErrInvalid.
func (w *Weights) Check(c Config) error {
	bad := func(name, format string, args ...any) error {
		return fmt.Errorf("weights: %s: %s: %w", name, fmt.Sprintf(format, args...), unit00.ErrInvalid)
	}
	// sparse checks a mixture-of-experts layer (prefix p): its block is
	// d wide, and it has no dense feed-forward beside it.
	sparse := func(p string, l *Layer, d int) error {
		if w := l.MoE.Width(); w != d {
			return bad(p+"ffn_gate_inp", "the mixture of experts is %d wide, want %d", w, d)
		}
		if l.Gate != nil || l.Up != nil || l.Down != nil {
			return bad(p+"ffn_gate", "a mixture-of-experts layer has a dense ffn_gate, ffn_up or ffn_down too")
		}
		return nil
	}
	matrix := func(name string, m Matrix, out, in int) error {
		if m == nil {
			return bad(name, "missing")
		}
		if o, i := m.Dims(); o != out || i != in {
			return bad(name, "%d×%d, want %d×%d", o, i, out, in)
		}
		return nil
	}
	vector := func(name string, v []float32, n int) error {
		if len(v) != n {
			return bad(name, "length %d, want %d", len(v), n)
		}
		return nil
	}
	d, q, kv := c.Dim, c.QDim(), c.KVDim()
	if len(w.Layers) != c.Layers {
		return bad("blk", "%d layers, want %d", len(w.Layers), c.Layers)
	}
	errs := []error{matrix("token_embd", w.Embed, c.Vocab, d), vector("output_norm", w.OutNorm, d), matrix("output", w.Output, c.Vocab, d)}
	for i := range w.Layers {
		l, p := &w.Layers[i], fmt.Sprintf("blk.%d.", i)
		bias := 0 // the bias lengths, scaled: 0 when there must be none
		if c.QKVBias {
			bias = 1
		}
		errs = append(errs,
			vector(p+"attn_norm", l.AttnNorm, d),
			matrix(p+"attn_q", l.Wq, q, d),
			matrix(p+"attn_k", l.Wk, kv, d),
			matrix(p+"attn_v", l.Wv, kv, d),
			vector(p+"attn_q.bias", l.Bq, bias*q),
			vector(p+"attn_k.bias", l.Bk, bias*kv),
			vector(p+"attn_v.bias", l.Bv, bias*kv),
			matrix(p+"attn_output", l.Wo, d, q),
			vector(p+"ffn_norm", l.FFNNorm, d),
		)
		if l.MoE != nil {
			errs = append(errs, sparse(p, l, d))
			continue
		}
		errs = append(errs,
			matrix(p+"ffn_gate", l.Gate, c.FFN, d),
			matrix(p+"ffn_up", l.Up, c.FFN, d),
			matrix(p+"ffn_down", l.Down, d, c.FFN),
		)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if tied := w.Output == w.Embed; tied != c.TiedEmbeddings {
		return bad("output", "tied to token_embd is %v, but the config's TiedEmbeddings is %v", tied, c.TiedEmbeddings)
	}
	return nil
}
