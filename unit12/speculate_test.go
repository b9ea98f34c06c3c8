package unit12

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
)

// drafters are the draft kinds the greedy tests run: the target itself
// (always right), a model that shares its first layer (often right), an
// unrelated model (rarely right), and a drafter that proposes the same
// tokens after any text (deterministic q, nearly always wrong).
func drafters(t *testing.T, c tinyModel) []struct {
	name string
	d    Drafter
} {
	related := c.Config
	related.Layers = 1
	return []struct {
		name string
		d    Drafter
	}{
		{"the target itself", newDrafter(t, c.Config, c.seed, greedyParams())},
		{"a one-layer model sharing its first layer", newDrafter(t, related, c.seed, greedyParams())},
		{"an unrelated model", newDrafter(t, c.Config, c.seed+100, greedyParams())},
		{"a fixed proposal", &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{1, 2, 3, 4, 5, 6, 7, 8}}},
	}
}

type tinyModel struct {
	unit05.Config
	seed uint64
}

// TestC12_3_GreedyIsTarget: at temperature 0, speculative decoding gives
// the target's greedy tokens, token for token, whatever the drafter and
// γ, for more tokens than a block of 64.
func TestC12_3_GreedyIsTarget(t *testing.T) {
	m := tinyModel{tinyConfig(64, 160), 31}
	prompt := []int{5, 6, 7, 8}
	want := plainGreedy(t, newSession(t, m.Config, m.seed), prompt, 80)
	for _, gamma := range []int{1, 2, 3, 5, 8} {
		for _, dr := range drafters(t, m) {
			s := newSession(t, m.Config, m.seed)
			sp := newSpeculator(t, s, newSampler(t, m.Vocab, greedyParams()), dr.d)
			res, err := sp.Generate(context.Background(), prompt, Options{Options: unit11.Options{MaxTokens: 80}, Draft: gamma})
			if err != nil {
				t.Fatalf("γ = %d, drafting with %s: %v", gamma, dr.name, err)
			}
			if fmt.Sprint(res.Tokens) != fmt.Sprint(want) || res.Stop != unit11.StopLength {
				t.Fatalf("γ = %d, drafting with %s: greedy speculative decoding gave\n%v (stop %v); want the target's greedy tokens\n%v (stop %v)", gamma, dr.name, res.Tokens, res.Stop, want, unit11.StopLength)
			}
			checkCounts(t, fmt.Sprintf("γ = %d, drafting with %s", gamma, dr.name), res, gamma)
			if len(res.Tokens) != res.Accepted+res.Passes {
				t.Fatalf("γ = %d, drafting with %s: %d tokens from %d passes with %d accepted; want each pass to yield its accepted tokens and one more (and no pass to draft past MaxTokens)", gamma, dr.name, len(res.Tokens), res.Passes, res.Accepted)
			}
			if dr.name == "a fixed proposal" && res.Rejected == 0 {
				t.Fatalf("γ = %d, drafting the same 8 tokens after any text: no rejection in %d passes", gamma, res.Passes)
			}
			if dr.name == "the target itself" {
				passes := (80 + gamma) / (gamma + 1)
				if res.Rejected != 0 || res.Accepted != 80-passes || res.Passes != passes {
					t.Fatalf("γ = %d, drafting with the target itself: %d passes, %d accepted, %d rejected; want %d, %d, 0: a drafter that is always right yields γ+1 tokens a pass (γ accepted and a bonus token), fewer only where MaxTokens leaves less room", gamma, res.Passes, res.Accepted, res.Rejected, passes, 80-passes)
				}
			}
		}
	}
}

// checkCounts checks what must hold between a Result's counts.
func checkCounts(t *testing.T, what string, res Result, gamma int) {
	t.Helper()
	n := len(res.Tokens)
	switch {
	case res.Passes < 0 || res.Drafted < 0 || res.Accepted < 0 || res.Rejected < 0:
		t.Fatalf("%s: %d passes, %d drafted, %d accepted, %d rejected: counts are never negative", what, res.Passes, res.Drafted, res.Accepted, res.Rejected)
	case res.Accepted+res.Rejected > res.Drafted:
		t.Fatalf("%s: %d accepted and %d rejected of %d drafted", what, res.Accepted, res.Rejected, res.Drafted)
	case res.Rejected > res.Passes:
		t.Fatalf("%s: %d rejections in %d passes; want at most one a pass: judging stops at the first", what, res.Rejected, res.Passes)
	case res.Drafted > gamma*res.Passes:
		t.Fatalf("%s: %d drafted in %d passes; want at most γ = %d a pass", what, res.Drafted, res.Passes, gamma)
	case res.Passes < 1 || n > res.Passes+res.Accepted || n < res.Accepted:
		t.Fatalf("%s: %d tokens from %d passes with %d accepted; want each pass to yield its accepted tokens and one more", what, n, res.Passes, res.Accepted)
	}
}

// TestC12_3_Distribution: sampling at a temperature, the first two
// tokens of speculative decoding are distributed as the target's sampler
// chain gives them, P(t1, t2) = p(t1)·p(t2 | t1), exactly: a χ² test of
// 4000 seeded runs for several settings and drafters. The first pass
// drafts two tokens, so both judged positions, the residual and the bonus
// token all take part.
func TestC12_3_Distribution(t *testing.T) {
	// Smaller than tinyConfig: 16,000 generations.
	c := unit05.Config{Dim: 32, Layers: 2, Heads: 2, KVHeads: 1, HeadDim: 16, FFN: 64, Vocab: 16,
		MaxSeq: 16, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}
	prompt := []int{3, 9, 4}
	penalized := unit11.DefaultParams()
	penalized.Temperature, penalized.TopP, penalized.RepeatPenalty = 1, 0.8, 1.5
	wide := unit11.DefaultParams()
	wide.Temperature, wide.TopK, wide.TopP, wide.MinP = 1.5, 5, 1, 0
	related := c
	related.Layers = 1
	unrelated, oneLayer := newSession(t, c, 41), newSession(t, related, 40)
	model := func(s *unit07.Session) func(unit11.Params) Drafter {
		return func(p unit11.Params) Drafter {
			s.Reset()
			d, err := NewModelDrafter(s, newSampler(t, c.Vocab, p), 8)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	for _, tc := range []struct {
		name   string
		params unit11.Params
		draft  func(p unit11.Params) Drafter
	}{
		{"llama.cpp's defaults (temperature 0.8), an unrelated draft model", unit11.DefaultParams(), model(unrelated)},
		{"temperature 1.5, top-k 5, a one-layer draft", wide, model(oneLayer)},
		{"top-p 0.8 and a repeat penalty of 1.5, an unrelated draft", penalized, model(unrelated)},
		{"temperature 1.5, top-k 5, a deterministic draft", wide,
			func(unit11.Params) Drafter { return &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{9, 4}} }},
	} {
		exact := exactTwo(t, c, 40, prompt, tc.params)
		counts := make([]int, len(exact))
		s := newSession(t, c, 40)
		for run := range 4000 {
			p := tc.params
			p.Seed = uint64(run)
			s.Reset()
			sp := newSpeculator(t, s, newSampler(t, c.Vocab, p), tc.draft(p))
			res, err := sp.Generate(context.Background(), prompt, Options{Options: unit11.Options{MaxTokens: 3}, Draft: 2})
			if err != nil || len(res.Tokens) != 3 {
				t.Fatalf("%s, seed %d: %v tokens, %v", tc.name, run, res.Tokens, err)
			}
			counts[res.Tokens[0]*c.Vocab+res.Tokens[1]]++
		}
		stat, df, pass, impossible := oracle.ChiSquared(counts, exact, 1e-3)
		if impossible >= 0 {
			t.Fatalf("%s: the pair (%d, %d) came up %d times, but the target gives it probability 0", tc.name, impossible/c.Vocab, impossible%c.Vocab, counts[impossible])
		}
		if !pass {
			t.Fatalf("%s: the first two tokens of 4000 runs do not follow the target's distribution: χ² = %.1f with %d degrees of freedom (significance 0.001). Check the rule: accept with probability min(1, p/q), resample from norm(max(0, p − q)) at the first rejection, a bonus token from p when all stand, p and q of the same position", tc.name, stat, df)
		}
	}
}

// exactTwo is P(t1, t2) for the first two tokens the target samples after
// prompt, from the float64 sampler chain on its logits, indexed t1·Vocab +
// t2.
func exactTwo(t *testing.T, c unit05.Config, seed uint64, prompt []int, p unit11.Params) []float64 {
	t.Helper()
	s := newSession(t, c, seed)
	logits, err := s.Prefill(prompt)
	if err != nil {
		t.Fatal(err)
	}
	first := oracle.SamplingDist(logits, prompt, toOracle(p))
	out := make([]float64, c.Vocab*c.Vocab)
	for t1, p1 := range first {
		if p1 == 0 {
			continue
		}
		if err := s.Truncate(len(prompt)); err != nil {
			t.Fatal(err)
		}
		l2, err := s.Step(t1)
		if err != nil {
			t.Fatal(err)
		}
		for t2, p2 := range oracle.SamplingDist(l2, append(slices.Clone(prompt), t1), toOracle(p)) {
			out[t1*c.Vocab+t2] = p1 * p2
		}
	}
	return out
}

// TestC12_3_Stops: generation ends where unit11's would, for each reason,
// even in the middle of a pass's accepted tokens, and the target's cache
// then holds the text (all of it, or all but the last token).
func TestC12_3_Stops(t *testing.T) {
	m := tinyModel{tinyConfig(64, 40), 32}
	prompt := []int{5, 6, 7, 8}
	greedy := plainGreedy(t, newSession(t, m.Config, m.seed), prompt, 40-len(prompt)+1)
	run := func(what string, opt Options) (Result, *unit07.Session) {
		t.Helper()
		s := newSession(t, m.Config, m.seed)
		sp := newSpeculator(t, s, newSampler(t, m.Vocab, greedyParams()), newDrafter(t, m.Config, m.seed, greedyParams()))
		res, err := sp.Generate(context.Background(), prompt, opt)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkCache(t, what, s, prompt, res.Tokens)
		return res, s
	}
	opt := func(o unit11.Options) Options { return Options{Options: o, Draft: 4} }

	res, _ := run("MaxTokens 7", opt(unit11.Options{MaxTokens: 7}))
	if fmt.Sprint(res.Tokens) != fmt.Sprint(greedy[:7]) || res.Stop != unit11.StopLength || res.Drafted != 5 || res.Passes != 2 {
		t.Errorf("MaxTokens 7 with γ = 4 and a drafter always right: %v, stop %v, %d drafted in %d passes; want %v, StopLength, 5 drafted in 2 passes (4 and a bonus, then 1 and a bonus: draft no more than MaxTokens leaves room for)", res.Tokens, res.Stop, res.Drafted, res.Passes, greedy[:7])
	}
	res, _ = run("MaxTokens 1", opt(unit11.Options{MaxTokens: 1}))
	if fmt.Sprint(res.Tokens) != fmt.Sprint(greedy[:1]) || res.Stop != unit11.StopLength || res.Drafted != 0 {
		t.Errorf("MaxTokens 1: %v, stop %v, %d drafted; want %v, StopLength, none drafted", res.Tokens, res.Stop, res.Drafted, greedy[:1])
	}
	for _, at := range []int{0, 2, 5} { // the first token of a pass, one in the middle, a bonus token
		stop := greedy[at]
		if slices.Index(greedy, stop) != at {
			continue // it came earlier: another case
		}
		what := fmt.Sprintf("stop token %d, the greedy token at index %d", stop, at)
		res, _ = run(what, opt(unit11.Options{StopTokens: []int{stop}}))
		if fmt.Sprint(res.Tokens) != fmt.Sprint(greedy[:at]) || res.Stop != unit11.StopEOS {
			t.Errorf("%s: %v, stop %v; want %v, StopEOS: a stop token ends generation where it comes, even among a pass's accepted tokens, and is not part of the output", what, res.Tokens, res.Stop, greedy[:at])
		}
	}
	n := 0
	res, _ = run("OnToken false at the 3rd token", opt(unit11.Options{OnToken: func(int) bool { n++; return n < 3 }}))
	if len(res.Tokens) != 3 || res.Stop != unit11.StopRequested || n != 3 {
		t.Errorf("OnToken returning false at the 3rd token: %d tokens, stop %v, %d calls; want 3, StopRequested, 3", len(res.Tokens), res.Stop, n)
	}
	res, s := run("to the end of the context", opt(unit11.Options{}))
	if fmt.Sprint(res.Tokens) != fmt.Sprint(greedy) || res.Stop != unit11.StopContext || s.Len() != 40 {
		t.Errorf("generation to the end of a 40-position context after a 4-token prompt: %v, stop %v, %d positions; want %v (37 tokens: the last never fed), StopContext, 40", res.Tokens, res.Stop, s.Len(), greedy)
	}
	// Seven passes of 4 drafted and a bonus (35 tokens), then room for one
	// drafted token and the last, which is never fed.
	if res.Passes != 8 || res.Drafted != 29 {
		t.Errorf("generation to the end of a 40-position context, γ = 4, a drafter always right: %d passes, %d drafted; want 8 and 29: draft as much as the context has room for, and no more", res.Passes, res.Drafted)
	}
}

// checkCache checks that s holds the prompt and the tokens, or all of them
// but the last, with the right keys and values: a decode step from there
// gives what a fresh session gives.
func checkCache(t *testing.T, what string, s *unit07.Session, prompt, tokens []int) {
	t.Helper()
	text := append(slices.Clone(prompt), tokens...)
	n := s.Len()
	if n != len(text) && n != len(text)-1 {
		t.Fatalf("%s: the target's cache holds %d positions after a text of %d; want the text, or all of it but the last token", what, n, len(text))
	}
	if n == len(text) || n >= s.Cache.Cap() {
		return
	}
	got, err := s.Step(text[n])
	if err != nil {
		t.Fatal(err)
	}
	fresh := newSession(t, s.Model.Config, 0)
	fresh.Model = s.Model
	want, err := fresh.Prefill(text)
	if err != nil {
		t.Fatal(err)
	}
	oracle.AssertClose(t, what+": the logits after the text, from the cache Generate left", got, f64(want), scoreTol)
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestC12_3_Errors: what cannot run is refused before anything is
// processed; what a drafter gets wrong is reported.
func TestC12_3_Errors(t *testing.T) {
	c := tinyConfig(64, 20)
	smp := newSampler(t, c.Vocab, greedyParams())
	s := newSession(t, c, 33)
	if _, err := NewSpeculator(s, smp, &fixedDrafter{t: t, vocab: c.Vocab + 1}, 4); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("NewSpeculator with a drafter of %d tokens for a target of %d: %v; want an error wrapping unit00.ErrInvalid", c.Vocab+1, c.Vocab, err)
	}
	if _, err := NewSpeculator(s, smp, &fixedDrafter{t: t, vocab: c.Vocab}, 0); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("NewSpeculator with maxDraft 0: %v; want an error wrapping unit00.ErrInvalid", err)
	}
	if _, err := NewSpeculator(s, smp, &fixedDrafter{t: t, vocab: c.Vocab}, 1); err != nil {
		t.Errorf("NewSpeculator with maxDraft 1: %v; want a speculator", err)
	}
	sp := newSpeculator(t, s, smp, &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{1, 2}})
	for _, tc := range []struct {
		name   string
		prompt []int
		opt    Options
		want   error
	}{
		{"an empty prompt", nil, Options{Draft: 2}, unit00.ErrInvalid},
		{"a prompt token of −1", []int{1, -1}, Options{Draft: 2}, unit00.ErrInvalid},
		{"a prompt token of Vocab", []int{c.Vocab}, Options{Draft: 2}, unit00.ErrInvalid},
		{"a prompt of 21 tokens in a context of 20", make([]int, 21), Options{Draft: 2}, unit07.ErrContextFull},
		{"Draft 0", []int{1}, Options{Draft: 0}, unit00.ErrInvalid},
		{"Draft 9, more than maxDraft 8", []int{1}, Options{Draft: 9}, unit00.ErrInvalid},
		{"MinDraft 3 over Draft 2", []int{1}, Options{Draft: 2, MinDraft: 3}, unit00.ErrInvalid},
		{"a prompt of 19 tokens whose last is Vocab", append(make([]int, 18), c.Vocab), Options{Draft: 2}, unit00.ErrInvalid},
	} {
		res, err := sp.Generate(context.Background(), tc.prompt, tc.opt)
		if !errors.Is(err, tc.want) || s.Len() != 0 || len(res.Tokens) != 0 {
			t.Errorf("Generate with %s: %v, %d tokens, %d positions used; want an error wrapping %v before anything is processed", tc.name, err, len(res.Tokens), s.Len(), tc.want)
		}
	}
	res, err := sp.Generate(context.Background(), make([]int, 20), Options{Draft: 2})
	if err != nil || len(res.Tokens) != 1 || res.Stop != unit11.StopContext {
		t.Errorf("Generate with a prompt that fills the context of 20 exactly: %v, %d tokens, stop %v; want 1 token (from the prompt's last row) and StopContext", err, len(res.Tokens), res.Stop)
	}

	// A session that holds positions already: the prompt follows them.
	s.Reset()
	mustPrefill(t, s, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if _, err := sp.Generate(context.Background(), make([]int, 11), Options{Draft: 2}); !errors.Is(err, unit07.ErrContextFull) || s.Len() != 10 {
		t.Errorf("Generate with a prompt of 11 tokens after 10 of 20 positions: %v, %d positions; want ErrContextFull and the 10 left alone", err, s.Len())
	}
	res, err = sp.Generate(context.Background(), []int{11, 12}, Options{Draft: 2, Options: unit11.Options{MaxTokens: 3}})
	if err != nil || len(res.Tokens) != 3 {
		t.Fatalf("Generate of 3 tokens after 10 positions: %v, %v", res.Tokens, err)
	}
	checkCache(t, "Generate of 3 tokens after 10 positions", s, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, res.Tokens)
	if err := s.Truncate(0); err != nil {
		t.Fatal(err)
	}

	boom := errors.New("boom")
	s.Reset()
	sp = newSpeculator(t, s, smp, &fixedDrafter{t: t, vocab: c.Vocab, err: boom})
	if _, err := sp.Generate(context.Background(), []int{1, 2}, Options{Draft: 2}); !errors.Is(err, boom) {
		t.Errorf("Generate with a drafter that fails: %v; want its error, wrapped", err)
	}
	for _, bad := range []struct {
		name string
		d    *fixedDrafter
	}{
		{"proposes token Vocab", &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{1, c.Vocab}}},
		{"proposes token −1", &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{-1}}},
		{"proposes 3 tokens when asked for 2", &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{1, 2, 3}, all: true}},
		{"gives 1 distribution for 2 tokens", &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{1, 2}, q: [][]float64{make([]float64, c.Vocab)}, all: true}},
	} {
		s.Reset()
		sp = newSpeculator(t, s, smp, bad.d)
		// MaxTokens 3 leaves room for the two tokens asked for and a bonus.
		if res, err := sp.Generate(context.Background(), []int{1, 2}, Options{Draft: 2, Options: unit11.Options{MaxTokens: 3}}); err == nil || errors.Is(err, unit07.ErrContextFull) {
			t.Errorf("Generate with a drafter that %s: %v, %v; want an error saying so", bad.name, res.Tokens, err)
		}
	}
}

// TestC12_3_NaN: a target whose logits go NaN is an error, whichever row
// of a pass shows it: a drafted token's or the bonus token's.
func TestC12_3_NaN(t *testing.T) {
	c := tinyConfig(64, 32)
	for _, proposal := range [][]int{{1, 2}, nil} {
		s := poisoned(t, c, 11, 17)
		sp := newSpeculator(t, s, newSampler(t, c.Vocab, unit11.DefaultParams()), &fixedDrafter{t: t, vocab: c.Vocab, tokens: proposal})
		if res, err := sp.Generate(context.Background(), []int{1, 2, 3}, Options{Draft: 2}); !errors.Is(err, unit00.ErrInvalid) || len(res.Tokens) != 0 {
			t.Errorf("Generate with a target whose logit of token 17 is NaN, drafts %v: %v, %v; want no token and the sampler's error wrapping unit00.ErrInvalid", proposal, res.Tokens, err)
		}
	}
}

// TestC12_3_MinDraft: a proposal shorter than MinDraft is not verified.
func TestC12_3_MinDraft(t *testing.T) {
	c := tinyConfig(64, 64)
	prompt := []int{1, 2, 3}
	want := plainGreedy(t, newSession(t, c, 34), prompt, 10)
	for _, tc := range []struct{ min, proposed int }{{2, 1}, {1, 1}, {0, 1}, {2, 2}, {3, 2}, {4, 4}} {
		d := &fixedDrafter{t: t, vocab: c.Vocab, tokens: want[:tc.proposed]} // right only at the start
		s := newSession(t, c, 34)
		sp := newSpeculator(t, s, newSampler(t, c.Vocab, greedyParams()), d)
		res, err := sp.Generate(context.Background(), prompt, Options{Options: unit11.Options{MaxTokens: 10}, Draft: 4, MinDraft: tc.min})
		if err != nil || fmt.Sprint(res.Tokens) != fmt.Sprint(want) {
			t.Fatalf("MinDraft %d: %v, %v; want %v", tc.min, res.Tokens, err, want)
		}
		if used := res.Drafted > 0; used != (tc.proposed >= tc.min) {
			t.Errorf("MinDraft %d with a drafter that proposes %d token(s): %d drafted in %d passes; a proposal shorter than MinDraft is not sent to the target, one as long is", tc.min, tc.proposed, res.Drafted, res.Passes)
		}
	}
}

// TestC12_3_Cancel: a canceled context stops generation between passes.
func TestC12_3_Cancel(t *testing.T) {
	c := tinyConfig(64, 256)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := newSession(t, c, 35)
	sp := newSpeculator(t, s, newSampler(t, c.Vocab, unit11.DefaultParams()), &fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{1}})
	res, err := sp.Generate(ctx, make([]int, 100), Options{Draft: 1})
	if !errors.Is(err, context.Canceled) || res.Stop != unit11.StopCanceled || len(res.Tokens) != 0 || s.Len() >= 99 {
		t.Fatalf("Generate with a canceled context: %v, stop %v, %d tokens, %d positions; want context.Canceled, StopCanceled, no tokens, the prompt not processed", err, res.Stop, len(res.Tokens), s.Len())
	}
	if res.GenTime != 0 {
		t.Errorf("Generate canceled during the prefill: GenTime %v, want 0: it stops there, with no pass", res.GenTime)
	}
	// Canceled while the prompt runs: the next look, before the second
	// chunk of 64, must see it.
	s.Reset()
	res, err = sp.Generate(&cancelOnWork{Context: context.Background(), s: s}, make([]int, 150), Options{Draft: 1})
	if !errors.Is(err, context.Canceled) || res.Stop != unit11.StopCanceled || s.Len() != 64 {
		t.Fatalf("Generate of a 150-token prompt, canceled once the first chunk ran: %v, stop %v, %d positions; want context.Canceled, StopCanceled, and one chunk of 64 tokens processed: look at ctx before every chunk", err, res.Stop, s.Len())
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	n := 0
	s.Reset()
	res, err = sp.Generate(ctx, []int{1, 2, 3}, Options{Draft: 1, Options: unit11.Options{OnToken: func(int) bool {
		if n++; n == 3 {
			cancel()
		}
		return true
	}}})
	if !errors.Is(err, context.Canceled) || res.Stop != unit11.StopCanceled || len(res.Tokens) < 3 || len(res.Tokens) > 4 {
		t.Fatalf("Generate canceled at the third token: %v, stop %v, %d tokens; want context.Canceled, StopCanceled, and no pass after the one that yielded it (3 or 4 tokens)", err, res.Stop, len(res.Tokens))
	}
}

// cancelOnWork is a context that is canceled as soon as the session holds
// a position: the moment the first prefill chunk has run.
type cancelOnWork struct {
	context.Context
	s *unit07.Session
}

func (c *cancelOnWork) Done() <-chan struct{} {
	if c.s.Len() > 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return nil
}

func (c *cancelOnWork) Err() error {
	if c.s.Len() > 0 {
		return context.Canceled
	}
	return nil
}

// TestC12_3_Prompts: a prompt of one token (nothing to prefill: it goes
// through the first pass) and one longer than two prefill chunks give the
// target's greedy tokens.
func TestC12_3_Prompts(t *testing.T) {
	c := tinyConfig(64, 256)
	long := make([]int, 150)
	for i := range long {
		long[i] = (i * 7) % c.Vocab
	}
	for _, prompt := range [][]int{{9}, long} {
		want := plainGreedy(t, newSession(t, c, 37), prompt, 12)
		s := newSession(t, c, 37)
		sp := newSpeculator(t, s, newSampler(t, c.Vocab, greedyParams()), newDrafter(t, c, 38, greedyParams()))
		res, err := sp.Generate(context.Background(), prompt, Options{Options: unit11.Options{MaxTokens: 12}, Draft: 3})
		if err != nil || fmt.Sprint(res.Tokens) != fmt.Sprint(want) {
			t.Fatalf("a prompt of %d tokens: %v, %v; want %v", len(prompt), res.Tokens, err, want)
		}
		checkCache(t, fmt.Sprintf("a prompt of %d tokens", len(prompt)), s, prompt, res.Tokens)
	}
}

// TestC12_3_SameModelAlwaysAccepted: a draft that is the target itself,
// sampling with the same settings, proposes from q = p: the rule accepts
// every token, at any temperature.
func TestC12_3_SameModelAlwaysAccepted(t *testing.T) {
	c := tinyConfig(64, 128)
	p := unit11.DefaultParams()
	p.Temperature, p.TopK, p.Seed = 1.2, 0, 3
	sp := newSpeculator(t, newSession(t, c, 39), newSampler(t, c.Vocab, p), newDrafter(t, c, 39, p))
	res, err := sp.Generate(context.Background(), []int{4, 5, 6}, Options{Options: unit11.Options{MaxTokens: 60}, Draft: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejected != 0 || res.Accepted == 0 {
		t.Fatalf("drafting with the target itself at temperature 1.2: %d accepted, %d rejected; want none rejected: with q = p, min(1, p(x)/q(x)) = 1 (a rule that treats a sampled draft as a deterministic one accepts only with probability p(x))", res.Accepted, res.Rejected)
	}
}

// TestC12_3_PenaltiesSeeTheDraft: the target's distribution for the i-th
// drafted token is the sampler's after the text and the drafted tokens
// before it. With a presence penalty that forbids repeats, speculative
// greedy decoding repeats no token, as plain greedy decoding does, though
// the draft (the same model without the penalty) proposes repeats.
func TestC12_3_PenaltiesSeeTheDraft(t *testing.T) {
	c := tinyConfig(64, 128)
	p := greedyParams()
	p.PresencePenalty, p.PenaltyLastN = 1e4, -1
	prompt := []int{1, 20, 30}
	for _, gamma := range []int{2, 4, 8} {
		for _, seed := range []uint64{40, 41, 42} {
			sp := newSpeculator(t, newSession(t, c, seed), newSampler(t, c.Vocab, p), newDrafter(t, c, seed, greedyParams()))
			res, err := sp.Generate(context.Background(), prompt, Options{Options: unit11.Options{MaxTokens: 50}, Draft: gamma})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]bool{}
			for _, id := range append(slices.Clone(prompt), res.Tokens...) {
				if seen[id] {
					t.Fatalf("γ = %d, model %d: token %d repeats in %v + %v under a presence penalty of 10⁴: the target's distribution for a drafted token must see the tokens drafted (and accepted) before it in the same pass", gamma, seed, id, prompt, res.Tokens)
				}
				seen[id] = true
			}
		}
	}
}

// primingDrafter is a fixedDrafter that is a Primer: it notes each call,
// in order, and fails Prime with err if set.
type primingDrafter struct {
	fixedDrafter
	calls    []string
	primeErr error
}

func (p *primingDrafter) Prime(prompt []int) error {
	p.calls = append(p.calls, fmt.Sprint("prime ", prompt))
	return p.primeErr
}

func (p *primingDrafter) Draft(history []int, n int) ([]int, [][]float64, error) {
	p.calls = append(p.calls, "draft")
	return p.fixedDrafter.Draft(history, n)
}

// TestC12_3_Primes: Generate primes a drafter that is a Primer with the
// prompt, once, before its first draft, every call; a failing Prime ends
// the call with its error before any token.
func TestC12_3_Primes(t *testing.T) {
	c := tinyConfig(64, 32)
	smp := newSampler(t, c.Vocab, greedyParams())
	s := newSession(t, c, 5)
	d := &primingDrafter{fixedDrafter: fixedDrafter{t: t, vocab: c.Vocab, tokens: []int{1, 2}}}
	sp := newSpeculator(t, s, smp, d)
	for _, prompt := range [][]int{{4, 5, 6}, {7}} {
		d.calls = nil
		s.Reset()
		res, err := sp.Generate(context.Background(), prompt, Options{Draft: 2, Options: unit11.Options{MaxTokens: 5}})
		if err != nil || len(res.Tokens) != 5 {
			t.Fatalf("Generate of 5 tokens after %v with a priming drafter: %v, %v", prompt, res.Tokens, err)
		}
		if want := fmt.Sprint("prime ", prompt); len(d.calls) < 2 || d.calls[0] != want || slices.Contains(d.calls[1:], want) {
			t.Fatalf("Generate after %v called its drafter %q; want one %q, first, then drafts", prompt, d.calls, want)
		}
	}
	boom := errors.New("boom")
	d.primeErr = boom
	s.Reset()
	d.calls = nil
	res, err := sp.Generate(context.Background(), []int{4, 5, 6}, Options{Draft: 2})
	if !errors.Is(err, boom) || len(res.Tokens) != 0 || slices.Contains(d.calls, "draft") {
		t.Fatalf("Generate with a drafter whose Prime fails: %v, tokens %v, drafter calls %q; want its error, wrapped, before any draft or token", err, res.Tokens, d.calls)
	}
}
