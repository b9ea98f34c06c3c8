package unit05

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

func TestC5_1_Validate(t *testing.T) {
	for _, n := range configs {
		if err := n.c.Validate(); err != nil {
			t.Errorf("Validate of the valid config %s: %v", n.name, err)
		}
	}
	good := configs[1].c
	// The edges of valid: any positive base and ε, however small, and
	// every grouping of the heads from MHA to MQA.
	for _, edit := range []struct {
		what string
		edit func(c *Config)
	}{
		{"RopeBase 0.5", func(c *Config) { c.RopeBase = 0.5 }},
		{"RMSEps 1e-30", func(c *Config) { c.RMSEps = 1e-30 }},
		{"KVHeads = Heads = 8", func(c *Config) { c.KVHeads = 8 }},
		{"KVHeads 1", func(c *Config) { c.KVHeads = 1 }},
		{"HeadDim 2, one layer, Vocab 1, MaxSeq 1", func(c *Config) { c.HeadDim, c.Layers, c.Vocab, c.MaxSeq = 2, 1, 1, 1 }},
		{"RopeFactors of HeadDim/2 ones", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2, 1) }},
		{"RopeFactors from 1e-30 to 1e30", func(c *Config) {
			c.RopeFactors = ropeFactors(c.HeadDim/2, 8)
			c.RopeFactors[0], c.RopeFactors[len(c.RopeFactors)-1] = 1e-30, 1e30
		}},
		{"HeadDim 2 and one RopeFactor", func(c *Config) { c.HeadDim, c.RopeFactors = 2, []float32{0.5} }},
		{"Yarn of factor 4 over 32768", func(c *Config) { c.Yarn = NewYarn(4, 32768) }},
		{"Yarn of factor 1 over 1, and RopeFactors", func(c *Config) { c.Yarn, c.RopeFactors = NewYarn(1, 1), ropeFactors(c.HeadDim/2, 2) }},
		{"Yarn with betas close together and a tiny magnitude", func(c *Config) {
			c.Yarn = &Yarn{Factor: 1e6, OrigCtx: 1, BetaFast: 1.0000001, BetaSlow: 1, AttnFactor: 1e-30}
		}},
	} {
		c := good
		edit.edit(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("Validate of a valid config with %s: %v", edit.what, err)
		}
	}
	bad := []struct {
		field string // the error must name it
		edit  func(c *Config)
	}{
		{"Dim", func(c *Config) { c.Dim = 0 }},
		{"Dim", func(c *Config) { c.Dim = -64 }},
		{"Layers", func(c *Config) { c.Layers = -1 }},
		{"Layers", func(c *Config) { c.Layers = 0 }},
		{"Heads", func(c *Config) { c.Heads = 0 }},
		{"KVHeads", func(c *Config) { c.KVHeads = 0 }},
		{"KVHeads", func(c *Config) { c.KVHeads = 3 }},  // 8 query heads cannot share 3 kv heads
		{"KVHeads", func(c *Config) { c.KVHeads = 16 }}, // more kv heads than query heads
		{"HeadDim", func(c *Config) { c.HeadDim = 0 }},
		{"HeadDim", func(c *Config) { c.HeadDim = 7 }},
		{"FFN", func(c *Config) { c.FFN = 0 }},
		{"Vocab", func(c *Config) { c.Vocab = 0 }},
		{"MaxSeq", func(c *Config) { c.MaxSeq = 0 }},
		{"RopeBase", func(c *Config) { c.RopeBase = 0 }},
		{"RopeBase", func(c *Config) { c.RopeBase = math.NaN() }},
		{"RopeBase", func(c *Config) { c.RopeBase = math.Inf(1) }},
		{"RopeBase", func(c *Config) { c.RopeBase = -10000 }},
		{"RopeBase", func(c *Config) { c.RopeBase = math.Inf(-1) }},
		{"RMSEps", func(c *Config) { c.RMSEps = 0 }},
		{"RMSEps", func(c *Config) { c.RMSEps = float32(math.NaN()) }},
		{"RMSEps", func(c *Config) { c.RMSEps = -1e-5 }},
		{"RMSEps", func(c *Config) { c.RMSEps = float32(math.Inf(1)) }},
		{"Rope", func(c *Config) { c.Rope = 7 }},
		{"Rope", func(c *Config) { c.Rope = -1 }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2-1, 1) }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2+1, 1) }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim, 1) }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = []float32{} }}, // empty is not nil: no factors for HeadDim/2 pairs
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2, 0) }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2, 1); c.RopeFactors[c.HeadDim/2-1] = -2 }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2, 1); c.RopeFactors[1] = float32(math.NaN()) }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2, 1); c.RopeFactors[0] = float32(math.Inf(1)) }},
		{"RopeFactors", func(c *Config) { c.RopeFactors = ropeFactors(c.HeadDim/2, 1); c.RopeFactors[2] = 0 }},
		{"Yarn.Factor", func(c *Config) { c.Yarn = NewYarn(0, 64) }},
		{"Yarn.Factor", func(c *Config) { c.Yarn = NewYarn(0.999, 64) }},
		{"Yarn.Factor", func(c *Config) { c.Yarn = NewYarn(math.NaN(), 64) }},
		{"Yarn.Factor", func(c *Config) { c.Yarn = NewYarn(math.Inf(1), 64) }},
		{"Yarn.OrigCtx", func(c *Config) { c.Yarn = NewYarn(4, 0) }},
		{"Yarn.OrigCtx", func(c *Config) { c.Yarn = NewYarn(4, -1) }},
		{"Yarn.BetaSlow", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaSlow = 0 }},
		{"Yarn.BetaSlow", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaSlow = -1 }},
		{"Yarn.BetaSlow", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaSlow = math.NaN() }},
		{"Yarn.BetaSlow", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaFast, c.Yarn.BetaSlow = math.Inf(1), math.Inf(1) }},
		{"Yarn.BetaFast", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaFast = 1 }}, // equal to BetaSlow: no ramp
		{"Yarn.BetaFast", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaFast = 0.5 }},
		{"Yarn.BetaFast", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaFast = math.NaN() }},
		{"Yarn.BetaFast", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.BetaFast = math.Inf(1) }},
		{"Yarn.AttnFactor", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.AttnFactor = 0 }},
		{"Yarn.AttnFactor", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.AttnFactor = -1 }},
		{"Yarn.AttnFactor", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.AttnFactor = math.NaN() }},
		{"Yarn.AttnFactor", func(c *Config) { c.Yarn = NewYarn(4, 64); c.Yarn.AttnFactor = math.Inf(1) }},
		{"Yarn.AttnFactor", func(c *Config) { c.Yarn = &Yarn{Factor: 4, OrigCtx: 64, BetaFast: 32, BetaSlow: 1} }}, // a Yarn{} literal without NewYarn's defaults
		// Two faults: the error names the first in the doc comment's order.
		{"Dim", func(c *Config) { c.Dim, c.Rope = 0, 7 }},
		{"HeadDim", func(c *Config) { c.HeadDim, c.RopeBase = 7, 0 }},
		{"RopeFactors", func(c *Config) { c.RopeFactors, c.Yarn = []float32{}, NewYarn(0, 64) }},
		{"Yarn.Factor", func(c *Config) { c.Yarn = NewYarn(0, 0) }},
		{"Yarn.OrigCtx", func(c *Config) { c.Yarn = NewYarn(2, 0); c.Yarn.AttnFactor = 0 }},
	}
	// A factor count that is off says how many it wants.
	c := good
	c.RopeFactors = ropeFactors(c.HeadDim/2+1, 1)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprint(c.HeadDim/2)) || !strings.Contains(err.Error(), fmt.Sprint(c.HeadDim/2+1)) {
		t.Errorf("Validate with %d RopeFactors for HeadDim %d = %v; want an error that gives both the count and the %d wanted (HeadDim/2)", len(c.RopeFactors), c.HeadDim, err, c.HeadDim/2)
	}
	for _, b := range bad {
		c := good
		b.edit(&c)
		err := c.Validate()
		switch {
		case err == nil:
			t.Errorf("Validate(%+v) = nil; want an error naming %s", c, b.field)
		case !errors.Is(err, unit00.ErrInvalid):
			t.Errorf("Validate(%+v) = %q, which does not wrap unit00.ErrInvalid", c, err)
		case !regexp.MustCompile(`\b` + b.field + `\b`).MatchString(err.Error()):
			t.Errorf("Validate(%+v) = %q, which does not name the field %s (as a word of its own: HeadDim is not Dim)", c, err, b.field)
		}
	}
}

// ropeFactors returns n factors, all f.
func ropeFactors(n int, f float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// std returns the standard deviation of x around its mean.
func std(x []float32) (mean, sd float64) {
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (float64(v) - mean) * (float64(v) - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)))
}

// rows returns a Dense matrix's elements (RandomWeights makes Dense ones).
func rows(t *testing.T, name string, m Matrix) []float32 {
	t.Helper()
	d, ok := m.(*Dense)
	if !ok {
		t.Fatalf("RandomWeights made %s a %T, want *Dense", name, m)
	}
	return dense(d.W)
}

func TestC5_1_RandomWeights(t *testing.T) {
	c := Config{Dim: 128, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 16, FFN: 352, Vocab: 500, MaxSeq: 16, RopeBase: 10000, RMSEps: 1e-5, QKVBias: true}
	w, err := RandomWeights(c, 7)
	if err != nil {
		t.Fatalf("RandomWeights: %v", err)
	}
	if err := w.Check(c); err != nil {
		t.Fatalf("RandomWeights made weights that fail Check: %v", err)
	}
	// The scale of each tensor, from the doc comment. The sample mean and
	// std are estimates: both may miss by 4 standard errors (σ/√n for the
	// mean, about σ/√(2n) for the std), no more.
	l := w.Layers[1]
	scales := []struct {
		name     string
		x        []float32
		mean, sd float64
	}{
		{"token_embd", rows(t, "Embed", w.Embed), 0, 1 / math.Sqrt(128)},
		{"output", rows(t, "Output", w.Output), 0, 1 / math.Sqrt(128)},
		{"attn_q (Xavier)", rows(t, "Wq", l.Wq), 0, math.Sqrt(2.0 / (128 + 128))},
		{"attn_k (Xavier)", rows(t, "Wk", l.Wk), 0, math.Sqrt(2.0 / (128 + 32))},
		{"attn_v (Xavier)", rows(t, "Wv", l.Wv), 0, math.Sqrt(2.0 / (128 + 32))},
		{"attn_output (Xavier)", rows(t, "Wo", l.Wo), 0, math.Sqrt(2.0 / (128 + 128))},
		{"ffn_gate (He)", rows(t, "Gate", l.Gate), 0, math.Sqrt(2.0 / 128)},
		{"ffn_up (He)", rows(t, "Up", l.Up), 0, math.Sqrt(2.0 / 128)},
		{"ffn_down (Xavier)", rows(t, "Down", l.Down), 0, math.Sqrt(2.0 / (128 + 352))},
		{"attn_norm", l.AttnNorm, 1, 0.1},
		{"ffn_norm", l.FFNNorm, 1, 0.1},
		{"output_norm", w.OutNorm, 1, 0.1},
		{"attn_q.bias", l.Bq, 0, 0.2},
		{"attn_k.bias", l.Bk, 0, 0.2},
		{"attn_v.bias", l.Bv, 0, 0.2},
	}
	for _, s := range scales {
		if len(s.x) == 0 {
			t.Errorf("%s: empty; RandomWeights must draw every tensor the config has", s.name)
			continue
		}
		n := float64(len(s.x))
		mean, sd := std(s.x)
		if math.Abs(mean-s.mean) > 4*s.sd/math.Sqrt(n) || math.Abs(sd-s.sd) > 4*s.sd/math.Sqrt(2*n) {
			t.Errorf("%s: mean %.4f, std %.4f over %d values; want mean %.4f and std %.4f (see RandomWeights' doc comment for each tensor's scale)", s.name, mean, sd, len(s.x), s.mean, s.sd)
		}
	}
	// Seeds: the same seed gives the same weights, another seed others.
	again, _ := RandomWeights(c, 7)
	other, _ := RandomWeights(c, 8)
	a, b, o := rows(t, "Wv", w.Layers[0].Wv), rows(t, "Wv", again.Layers[0].Wv), rows(t, "Wv", other.Layers[0].Wv)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("RandomWeights with the same seed differs at attn_v element %d: %v then %v", i, a[i], b[i])
		}
	}
	if a[0] == o[0] && a[1] == o[1] && a[2] == o[2] {
		t.Errorf("RandomWeights with seeds 7 and 8 gives the same attn_v: the seed must drive the generator")
	}
	// Layers are drawn independently, not copied.
	if x, y := rows(t, "Wq", w.Layers[0].Wq), rows(t, "Wq", w.Layers[1].Wq); x[0] == y[0] && x[1] == y[1] {
		t.Errorf("layers 0 and 1 have the same attn_q: draw every tensor afresh")
	}
	// Tying, and biases only when asked.
	c.TiedEmbeddings, c.QKVBias = true, false
	tied, err := RandomWeights(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	if tied.Output != tied.Embed {
		t.Errorf("with TiedEmbeddings, Output must be the same Matrix as Embed")
	}
	if tied.Layers[0].Bq != nil || tied.Layers[0].Bk != nil || tied.Layers[0].Bv != nil {
		t.Errorf("without QKVBias the biases must be nil")
	}
	if w.Output == w.Embed {
		t.Errorf("without TiedEmbeddings, Output must be its own matrix")
	}
	if _, err := RandomWeights(Config{}, 1); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("RandomWeights of an invalid config: error %v, want one wrapping unit00.ErrInvalid", err)
	}
}

func TestC5_1_Check(t *testing.T) {
	c := configs[3].c // tied, with biases
	fresh := func() *Weights { w, _ := testWeights(c, 1); return w }
	if err := fresh().Check(c); err != nil {
		t.Fatalf("Check of weights that fit: %v", err)
	}
	g := oracle.NewRand(2)
	other := func(out, in int) Matrix { return &Dense{W: randMat(g, out, in)} }
	bad := []struct {
		tensor string // the error must name it, as GGUF does
		edit   func(w *Weights)
	}{
		{"token_embd", func(w *Weights) { w.Embed = other(c.Vocab+1, c.Dim); w.Output = w.Embed }},
		{"output_norm", func(w *Weights) { w.OutNorm = w.OutNorm[1:] }},
		{"blk", func(w *Weights) { w.Layers = w.Layers[:1] }},
		{"blk.1.attn_q", func(w *Weights) { w.Layers[1].Wq = other(c.Dim, c.Dim+1) }},
		{"blk.0.attn_k", func(w *Weights) { w.Layers[0].Wk = other(c.QDim(), c.Dim) }},
		{"blk.0.attn_v", func(w *Weights) { w.Layers[0].Wv = nil }},
		{"blk.1.attn_output", func(w *Weights) { w.Layers[1].Wo = other(c.QDim(), c.Dim+2) }},
		{"blk.0.ffn_gate", func(w *Weights) { w.Layers[0].Gate = other(c.Dim, c.FFN) }},
		{"blk.1.attn_norm", func(w *Weights) { w.Layers[1].AttnNorm = append(w.Layers[1].AttnNorm, 1) }},
		{"blk", func(w *Weights) { w.Layers = append(w.Layers, w.Layers[0]) }}, // a layer too many
		{"blk.1.ffn_up", func(w *Weights) { w.Layers[1].Up = other(c.FFN, c.Dim-1) }},
		{"blk.0.ffn_down", func(w *Weights) { w.Layers[0].Down = other(c.FFN, c.Dim) }},
		{"blk.1.ffn_norm", func(w *Weights) { w.Layers[1].FFNNorm = nil }},
		{"blk.0.attn_k.bias", func(w *Weights) { w.Layers[0].Bk = w.Layers[0].Bk[:3] }},
		{"blk.1.attn_q.bias", func(w *Weights) { w.Layers[1].Bq = nil }},
		{"output", func(w *Weights) { w.Output = other(c.Vocab, c.Dim) }}, // untied, but the config says tied
	}
	for _, b := range bad {
		w := fresh()
		b.edit(w)
		err := w.Check(c)
		switch {
		case err == nil:
			t.Errorf("Check of weights with a bad %s returned nil", b.tensor)
		case !errors.Is(err, unit00.ErrInvalid):
			t.Errorf("Check: %q does not wrap unit00.ErrInvalid", err)
		case !strings.Contains(err.Error(), b.tensor):
			t.Errorf("Check of weights with a bad %s: %q does not name the tensor", b.tensor, err)
		}
	}
	// On an untied configuration without biases: a bias the config does
	// not have, an output of the wrong shape, and an output tied although
	// the config says untied.
	c2 := configs[0].c
	fresh2 := func() *Weights { w, _ := testWeights(c2, 3); return w }
	if err := fresh2().Check(c2); err != nil {
		t.Fatalf("Check of untied weights that fit: %v", err)
	}
	for _, b := range []struct {
		tensor, what string
		edit         func(w *Weights)
	}{
		{"blk.0.attn_v.bias", "a bias the config does not have", func(w *Weights) { w.Layers[0].Bv = make([]float32, c2.KVDim()) }},
		{"output", "an untied output of the wrong shape", func(w *Weights) { w.Output = other(c2.Vocab-1, c2.Dim) }},
		{"output", "an output tied to token_embd when the config says untied", func(w *Weights) { w.Output = w.Embed }},
	} {
		w := fresh2()
		b.edit(w)
		if err := w.Check(c2); err == nil || !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), b.tensor) {
			t.Errorf("Check of %s: %v, want an error wrapping unit00.ErrInvalid that names %s", b.what, err, b.tensor)
		}
	}
}
