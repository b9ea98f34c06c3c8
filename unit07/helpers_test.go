package unit07

import (
	"fmt"
	"github.com/llmforge/forge/testkit/testmat"
	"github.com/llmforge/forge/testkit/testmodel"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// The oracle's copies of a model, and seeded tokens: testkit/testmodel's
// and testkit/testmat's.
var (
	oracleWeights = testmodel.Weights
	oracleConfig  = testmodel.Config
	testTokens    = testmat.Tokens
)

// configs cover the cache's shapes: MHA, GQA and MQA (the cache holds the
// key/value heads only), both RoPE pairings, biases, tied embeddings.
var configs = []struct {
	name string
	c    unit05.Config
}{
	{"mha", unit05.Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 16, FFN: 160, Vocab: 300, MaxSeq: 96, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}},
	{"gqa-llama3", unit05.Config{Dim: 64, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 8, FFN: 176, Vocab: 300, MaxSeq: 96, RopeBase: 500000, RMSEps: 1e-5, Rope: unit05.RopeNorm, RopeFactors: []float32{1, 1.5, 8, 32}}},
	{"mqa-tied", unit05.Config{Dim: 64, Layers: 3, Heads: 4, KVHeads: 1, HeadDim: 16, FFN: 160, Vocab: 300, MaxSeq: 96, RopeBase: 10000, RMSEps: 1e-6, Rope: unit05.RopeNorm, TiedEmbeddings: true}},
	{"gqa-qwen2", unit05.Config{Dim: 64, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 8, FFN: 176, Vocab: 300, MaxSeq: 96, RopeBase: 1000000, RMSEps: 1e-6, Rope: unit05.RopeNeox, TiedEmbeddings: true, QKVBias: true}},
}

// cachedTol compares cached logits with a full forward pass's. Both are
// float32 computations of the same function; they differ only in how the
// products are cut up (a matrix–vector product for a decode step, a GEMM
// over the whole sequence for Forward), so a few ulps of the logits.
var cachedTol = oracle.Tol{Atol: 2e-5, Rtol: 2e-5}

// newModel builds a seeded model (unit05's reference or yours, DEPS=ref).
func newModel(t testing.TB, c unit05.Config, seed uint64, p *unit03.Pool) *unit05.Model {
	t.Helper()
	w, err := unit05.RandomWeights(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := unit05.NewModel(c, w, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lastLogits returns the logits of the last position of a full forward pass
// over tokens: what a cached session must reproduce.
func lastLogits(t testing.TB, m *unit05.Model, tokens []int) []float64 {
	t.Helper()
	logits := unit03.NewMat(len(tokens), m.Config.Vocab)
	if err := m.Forward(logits, tokens); err != nil {
		t.Fatal(err)
	}
	return oracle.Float64s(logits.Row(len(tokens) - 1))
}

// mustFor returns a helper that fails t on an error and copies the logits
// (a session's slice is overwritten by its next call):
// got := must(s.Step(tok)).
func mustFor(t testing.TB) func([]float32, error) []float32 {
	return func(logits []float32, err error) []float32 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), logits...)
	}
}

func concat(a []int, b ...int) []int { return append(append([]int(nil), a...), b...) }

func describe(name string, c unit05.Config) string {
	return fmt.Sprintf("%s (heads %d, kv heads %d, %d layers)", name, c.Heads, c.KVHeads, c.Layers)
}

// mustPanic checks that f panics through unit00.Check, whose message starts
// "check failed at": a panic from further down (an index out of range, a
// negative make) means the arguments were never checked.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	switch {
	case !panicked:
		t.Errorf("%s did not panic: sizes that do not fit are a programming error, panic through unit00.Check", what)
	case !strings.HasPrefix(fmt.Sprint(v), "check failed at "):
		t.Errorf("%s panicked with %q, not through unit00.Check: check the arguments with unit00.Check before using them", what, v)
	}
}
