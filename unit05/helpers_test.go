package unit05

import (
	"fmt"
	"github.com/llmforge/forge/testkit/testmat"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// randMat, checkPadding and dense are testkit/testmat's:
// padded views whose padding holds a sentinel no correct code touches.
var (
	randMat      = testmat.Rand
	checkPadding = testmat.CheckPadding
	dense        = testmat.Dense
)

// testTokens is testkit/testmat's Tokens: n seeded ids below vocab.
var testTokens = testmat.Tokens

// named is a test configuration.
type named struct {
	name string
	c    Config
}

// configs cover what a forward pass must get right: MHA, GQA and MQA; both
// RoPE pairings; tied and untied embeddings; with and without q/k/v biases;
// a HeadDim that is not Dim/Heads; one layer and several.
var configs = []named{
	{"mha-norm-untied", Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 16, FFN: 160, Vocab: 300, MaxSeq: 64, RopeBase: 10000, RMSEps: 1e-5, Rope: RopeNorm}},
	{"gqa-norm-untied-llama3", Config{Dim: 64, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 8, FFN: 176, Vocab: 300, MaxSeq: 64, RopeBase: 500000, RMSEps: 1e-5, Rope: RopeNorm}},
	{"mqa-norm-tied", Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 1, HeadDim: 16, FFN: 160, Vocab: 300, MaxSeq: 64, RopeBase: 10000, RMSEps: 1e-6, Rope: RopeNorm, TiedEmbeddings: true}},
	{"gqa-neox-tied-bias-qwen2", Config{Dim: 64, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 8, FFN: 176, Vocab: 300, MaxSeq: 64, RopeBase: 1000000, RMSEps: 1e-6, Rope: RopeNeox, TiedEmbeddings: true, QKVBias: true}},
	{"mha-neox-untied-bias", Config{Dim: 48, Layers: 1, Heads: 3, KVHeads: 3, HeadDim: 16, FFN: 128, Vocab: 200, MaxSeq: 64, RopeBase: 10000, RMSEps: 1e-3, Rope: RopeNeox, QKVBias: true}}, // a large eps: the config's must be used
	{"wide-heads-3-layers", Config{Dim: 64, Layers: 3, Heads: 4, KVHeads: 2, HeadDim: 24, FFN: 150, Vocab: 257, MaxSeq: 64, RopeBase: 10000, RMSEps: 1e-5, Rope: RopeNorm}},
	// Llama 3.2's RoPE: a factor per pair, from 1 (the fastest pairs) to 32
	// (the slowest), with the smooth ramp between them.
	{"gqa-norm-llama3-rope-factors", Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, FFN: 160, Vocab: 300, MaxSeq: 64, RopeBase: 500000, RMSEps: 1e-5, Rope: RopeNorm,
		RopeFactors: []float32{1, 1, 1, 1.5, 3.25, 9, 32, 32}}},
	// Qwen2.5's YaRN, scaled down: factor 4 over an original context of 32,
	// so that half the table lies beyond it (pair 0 keeps its angle, pair
	// 1 is half interpolated, the other six are slowed 4 times).
	{"gqa-neox-bias-qwen2-yarn", Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, FFN: 160, Vocab: 300, MaxSeq: 64, RopeBase: 10000, RMSEps: 1e-6, Rope: RopeNeox,
		QKVBias: true, Yarn: NewYarn(4, 32)}},
}

// testWeights returns weights for c drawn with the oracle's generator (not
// your RandomWeights, so a bug there cannot hide one here), as unit05
// Weights and as the oracle's float64 copy of the very same numbers. Scales
// follow RandomWeights' doc comment.
func testWeights(c Config, seed uint64) (*Weights, *oracle.LlamaWeights) {
	g := oracle.NewRand(seed)
	matrix := func(out, in int, std float64) (Matrix, []float64) {
		data := g.Normal(out*in, 0, std)
		return &Dense{W: unit03.MatOf(out, in, data), Kernel: unit03.Best()}, oracle.Float64s(data)
	}
	vector := func(n int, mean, std float64) ([]float32, []float64) {
		v := g.Normal(n, mean, std)
		return v, oracle.Float64s(v)
	}
	d, q, kv := c.Dim, c.QDim(), c.KVDim()
	w, o := &Weights{}, &oracle.LlamaWeights{}
	w.Embed, o.Embed = matrix(c.Vocab, d, 0.125)
	for range c.Layers {
		var l Layer
		var ol oracle.LlamaLayer
		l.AttnNorm, ol.AttnNorm = vector(d, 1, 0.1)
		l.Wq, ol.Wq = matrix(q, d, 0.15)
		l.Wk, ol.Wk = matrix(kv, d, 0.15)
		l.Wv, ol.Wv = matrix(kv, d, 0.15)
		if c.QKVBias {
			l.Bq, ol.Bq = vector(q, 0, 0.2)
			l.Bk, ol.Bk = vector(kv, 0, 0.2)
			l.Bv, ol.Bv = vector(kv, 0, 0.2)
		}
		l.Wo, ol.Wo = matrix(d, q, 0.15)
		l.FFNNorm, ol.FFNNorm = vector(d, 1, 0.1)
		l.Gate, ol.Wgate = matrix(c.FFN, d, 0.17)
		l.Up, ol.Wup = matrix(c.FFN, d, 0.17)
		l.Down, ol.Wdown = matrix(d, c.FFN, 0.1)
		w.Layers, o.Layers = append(w.Layers, l), append(o.Layers, ol)
	}
	w.OutNorm, o.OutNorm = vector(d, 1, 0.1)
	w.Output = w.Embed // o.Output stays nil: tied
	if !c.TiedEmbeddings {
		w.Output, o.Output = matrix(c.Vocab, d, 0.125)
	}
	return w, o
}

// oracleConfig is c in the oracle's terms.
func oracleConfig(c Config) oracle.LlamaConfig {
	o := oracle.LlamaConfig{Dim: c.Dim, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		FFN: c.FFN, Vocab: c.Vocab, RopeBase: c.RopeBase, RMSEps: float64(c.RMSEps), NeoX: c.Rope == RopeNeox}
	if c.RopeFactors != nil {
		o.RopeFactors = oracle.Float64s(c.RopeFactors)
	}
	if y := c.Yarn; y != nil {
		o.Yarn = &oracle.Yarn{Factor: y.Factor, OrigCtx: y.OrigCtx, BetaFast: y.BetaFast, BetaSlow: y.BetaSlow, AttnFactor: y.AttnFactor}
	}
	return o
}

// flat concatenates the oracle's rows.
func flat(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// newModel builds a model on test weights, failing the test on an error.
func newModel(t testing.TB, c Config, w *Weights, p *unit03.Pool) *Model {
	t.Helper()
	m, err := NewModel(c, w, p)
	if err != nil {
		t.Fatalf("NewModel(%+v): %v", c, err)
	}
	return m
}

func (n named) String() string { return fmt.Sprintf("%s %+v", n.name, n.c) }

// mustPanicIn is mustPanic for a check that method must make itself, before
// it hands its arguments on: the panic is raised in unit05 and its message
// names the method ("Forward: …"). A check further down (Logits' own,
// unit03's Block) would panic too, but name the wrong call.
func mustPanicIn(t *testing.T, what, method string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	msg := fmt.Sprint(v)
	switch {
	case !panicked:
		t.Errorf("%s did not panic: shapes that do not fit are a programming error, panic through unit00.Check", what)
	case !strings.HasPrefix(msg, "check failed at unit05/") || !strings.Contains(msg, method):
		t.Errorf("%s panicked with %q; want %s's own check (unit00.Check in unit05, its message naming %s) before it hands the shapes on", what, msg, method, method)
	}
}

// mustPanic checks that f panics through unit00.Check, whose message starts
// "check failed at": a panic from further down (an index out of range, a
// slice beyond its capacity) means the shapes were never checked, and a
// learner reading it cannot tell which argument was wrong.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	switch {
	case !panicked:
		t.Errorf("%s did not panic: shapes that do not fit are a programming error, panic through unit00.Check", what)
	case !strings.HasPrefix(fmt.Sprint(v), "check failed at "):
		t.Errorf("%s panicked with %q, not through unit00.Check: check the shapes with unit00.Check before using them", what, v)
	}
}
