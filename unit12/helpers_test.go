package unit12

import (
	"math"
	"testing"

	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
)

// tinyConfig is a model small enough that a test generates thousands of
// tokens in a second.
func tinyConfig(vocab, maxSeq int) unit05.Config {
	return unit05.Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, FFN: 128, Vocab: vocab,
		MaxSeq: maxSeq, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}
}

// newSession builds a seeded model of config c (unit05's reference or
// yours) and an empty session over it.
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

func greedyParams() unit11.Params {
	p := unit11.DefaultParams()
	p.Temperature = 0
	return p
}

func newSampler(t testing.TB, vocab int, p unit11.Params) *unit11.Sampler {
	t.Helper()
	s, err := unit11.NewSampler(vocab, p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// argmax is the greedy choice: the highest logit, the lowest id on a tie.
func argmax(logits []float32) int {
	best := 0
	for i, v := range logits {
		if v > logits[best] {
			best = i
		}
	}
	return best
}

// plainGreedy is greedy decoding written out on a session of its own:
// prefill, then argmax and step, n tokens.
func plainGreedy(t testing.TB, s *unit07.Session, prompt []int, n int) []int {
	t.Helper()
	logits, err := s.Prefill(prompt)
	var out []int
	for err == nil && len(out) < n {
		out = append(out, argmax(logits))
		if len(out) < n {
			logits, err = s.Step(out[len(out)-1])
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stepLogits returns, for each token of tokens, the logits after it, as
// decode steps one at a time on s would: the reference Score is checked
// against.
func stepLogits(t testing.TB, s *unit07.Session, tokens []int) [][]float64 {
	t.Helper()
	var rows [][]float64
	for _, tok := range tokens {
		l, err := s.Step(tok)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]float64, len(l))
		for i, v := range l {
			row[i] = float64(v)
		}
		rows = append(rows, row)
	}
	return rows
}

// poisoned is newSession with the output row of token bad set to NaN:
// a model whose logit of bad is NaN at every position.
func poisoned(t testing.TB, c unit05.Config, seed uint64, bad int) *unit07.Session {
	t.Helper()
	w, err := unit05.RandomWeights(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	out, ok := w.Output.(*unit05.Dense)
	if !ok || out == w.Embed {
		t.Fatalf("RandomWeights gave an output matrix of type %T, tied %v; want an untied *unit05.Dense", w.Output, out == w.Embed)
	}
	out.W.Row(bad)[0] = float32(math.NaN())
	m, err := unit05.NewModel(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return unit07.NewSession(m)
}

// newSpeculator makes a speculator with maxDraft 8 and fails the test on
// an error.
func newSpeculator(t testing.TB, s *unit07.Session, smp *unit11.Sampler, d Drafter) *Speculator {
	t.Helper()
	sp, err := NewSpeculator(s, smp, d, 8)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// newDrafter makes a draft model's drafter (maxDraft 8) over a fresh
// session of config c and seed, sampling with p.
func newDrafter(t testing.TB, c unit05.Config, seed uint64, p unit11.Params) *ModelDrafter {
	t.Helper()
	d, err := NewModelDrafter(newSession(t, c, seed), newSampler(t, c.Vocab, p), 8)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fixedDrafter proposes what it is told: a fixed list of tokens after any
// text (or an error), deterministically. It fails the test when asked for
// fewer than one token: a Speculator that has no room for a draft does not
// ask for one.
type fixedDrafter struct {
	t      testing.TB
	vocab  int
	tokens []int
	q      [][]float64 // if set, returned with the tokens
	err    error
	all    bool // return every token, however many were asked for
}

func (f *fixedDrafter) Vocab() int { return f.vocab }

func (f *fixedDrafter) Draft(history []int, n int) ([]int, [][]float64, error) {
	if n < 1 && f.t != nil {
		f.t.Fatalf("the drafter was asked for %d tokens after a text of %d: a pass with no room for a draft should not ask", n, len(history))
	}
	if f.err != nil {
		return nil, nil, f.err
	}
	k := min(max(n, 0), len(f.tokens))
	if f.all {
		k = len(f.tokens)
	}
	if f.q != nil {
		return f.tokens[:k], f.q[:min(k, len(f.q))], nil
	}
	return f.tokens[:k], nil, nil
}
