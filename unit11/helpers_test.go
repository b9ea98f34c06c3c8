package unit11

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
)

// tinyConfig is a model small enough that a test generates hundreds of
// tokens in milliseconds.
func tinyConfig(vocab, maxSeq int) unit05.Config {
	return unit05.Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, FFN: 128, Vocab: vocab,
		MaxSeq: maxSeq, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}
}

// newSession builds a seeded model of config c (unit05's reference or
// yours) and a session over it.
func newSession(t testing.TB, c unit05.Config, seed uint64) *unit07.Session {
	t.Helper()
	w, err := unit05.RandomWeights(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := unit05.NewModel(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return unit07.NewSession(m)
}

// gpt2 returns the GPT-2 tokenizer of unit04's test data: byte-level, so
// every byte is a token of its own.
func gpt2(t testing.TB) *unit04.Tokenizer {
	t.Helper()
	v, err := unit04.LoadVocab(filepath.Join("..", "unit04", "testdata", "ggml-vocab-gpt-2.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := unit04.New(v)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// byteTokens maps each byte to the id of the token that stands for it
// alone.
func byteTokens(t testing.TB, tok *unit04.Tokenizer) [256]int {
	t.Helper()
	var ids [256]int
	found := 0
	for id := range tok.VocabSize() {
		if b := tok.TokenBytes(id); len(b) == 1 && ids[b[0]] == 0 {
			ids[b[0]] = id
			found++
		}
	}
	if found < 256 {
		t.Fatalf("the GPT-2 vocabulary has single-byte tokens for %d bytes, want 256", found)
	}
	return ids
}

// toOracle is p as the oracle's parameters.
func toOracle(p Params) oracle.SamplingParams {
	return oracle.SamplingParams{Temperature: p.Temperature, TopK: p.TopK, TopP: p.TopP, MinP: p.MinP,
		RepeatPenalty: p.RepeatPenalty, FrequencyPenalty: p.FrequencyPenalty, PresencePenalty: p.PresencePenalty,
		PenaltyLastN: p.PenaltyLastN}
}

// logitSets are the logit vectors the sampler tests run on: smooth, peaked,
// flat, with exact ties, and with masked (−Inf) tokens.
func logitSets(n int) map[string][]float32 {
	g := oracle.NewRand(111)
	ties := g.Normal(n, 0, 2)
	for i := range ties {
		ties[i] = float32(math.Round(float64(ties[i]))) // a few distinct values, each many times
	}
	masked := g.Normal(n, 0, 2)
	for i := 0; i < n; i += 3 {
		masked[i] = float32(math.Inf(-1))
	}
	peaked := g.Normal(n, 0, 1)
	peaked[min(7, n-1)], peaked[max(n-2, 0)] = 9, 8
	return map[string][]float32{
		"normal": g.Normal(n, 0, 2),
		"peaked": peaked,
		"flat":   g.Normal(n, 0, 0.05),
		"ties":   ties,
		"masked": masked,
		"large":  g.Normal(n, 30, 5), // far from zero: softmax must subtract the maximum
		// Spread over hundreds of nats: many tokens' float32 probabilities
		// underflow to 0, though their logits are finite and their float64
		// probabilities are not 0.
		"wide":    g.Normal(n, 0, 60),
		"allsame": make([]float32, n),
	}
}
