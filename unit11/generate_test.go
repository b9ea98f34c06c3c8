package unit11

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit07"
)

func greedyParams() Params {
	p := DefaultParams()
	p.Temperature = 0
	return p
}

func newSampler(t testing.TB, vocab int, p Params) *Sampler {
	t.Helper()
	s, err := NewSampler(vocab, p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// byHand is greedy decoding written out: prefill, then argmax and step.
func byHand(t *testing.T, s *unit07.Session, prompt []int, n int) []int {
	t.Helper()
	logits, err := s.Prefill(prompt)
	var out []int
	for err == nil && len(out) < n {
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		out = append(out, best)
		logits, err = s.Step(best)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestC11_3_Greedy(t *testing.T) {
	c := tinyConfig(300, 128)
	prompt := []int{1, 20, 30, 40, 50}
	want := byHand(t, newSession(t, c, 1), prompt, 20)
	res, err := Generate(context.Background(), newSession(t, c, 1), newSampler(t, c.Vocab, greedyParams()), prompt, Options{MaxTokens: 20})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Tokens) != fmt.Sprint(want) || res.Stop != StopLength {
		t.Fatalf("Generate (greedy, 20 tokens) = %v, stop %v; want %v, stop %v (prefill, then pick the best, Step it, repeat)", res.Tokens, res.Stop, want, StopLength)
	}
	if res.PromptTime <= 0 || res.GenTime <= 0 {
		t.Errorf("PromptTime %v, GenTime %v: both must be measured", res.PromptTime, res.GenTime)
	}
}

func TestC11_3_Stops(t *testing.T) {
	c := tinyConfig(300, 64)
	prompt := []int{1, 20, 30, 40, 50}
	// Greedy with a presence penalty, so tokens do not repeat at once; the
	// reference is Generate's own unbounded run (its greedy part is
	// checked by TestC11_3_Greedy).
	p := greedyParams()
	p.PresencePenalty, p.PenaltyLastN = 2, -1
	ref, err := Generate(context.Background(), newSession(t, c, 2), newSampler(t, c.Vocab, p), prompt, Options{MaxTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	greedy := ref.Tokens
	stopAt := len(greedy) - 1 // a token that first appears after a few others
	for stopAt > 2 && slices.Index(greedy, greedy[stopAt]) < stopAt {
		stopAt--
	}
	if slices.Index(greedy, greedy[stopAt]) < stopAt {
		t.Fatalf("greedy decoding of the test model gives %v: no token appears first after position 2; change the seed", greedy)
	}
	long := make([]int, 60)
	for i := range long {
		long[i] = (7*i + 3) % c.Vocab
	}
	calls := 0
	cases := []struct {
		name   string
		prompt []int
		opt    Options
		tokens []int
		stop   StopReason
	}{
		{"a stop token", prompt, Options{StopTokens: []int{299, greedy[stopAt]}}, greedy[:stopAt], StopEOS},
		{"max tokens", prompt, Options{MaxTokens: 3}, greedy[:3], StopLength},
		{"OnToken says stop", prompt, Options{OnToken: func(int) bool { calls++; return calls < 4 }}, greedy[:4], StopRequested},
		// 60 prompt tokens in a context of 64: four more are processed, and
		// a fifth is sampled from the last position's logits.
		{"the context fills", long, Options{}, nil, StopContext},
	}
	for _, tc := range cases {
		s := newSession(t, c, 2)
		res, err := Generate(context.Background(), s, newSampler(t, c.Vocab, p), tc.prompt, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.stop == StopContext {
			if len(res.Tokens) != c.MaxSeq-len(tc.prompt)+1 || s.Len() != c.MaxSeq {
				t.Fatalf("%s: %d tokens generated and %d positions used; want %d tokens (the last never fed back) and all %d positions", tc.name, len(res.Tokens), s.Len(), c.MaxSeq-len(tc.prompt)+1, c.MaxSeq)
			}
		} else if fmt.Sprint(res.Tokens) != fmt.Sprint(tc.tokens) {
			t.Fatalf("%s: tokens %v, want %v", tc.name, res.Tokens, tc.tokens)
		}
		if res.Stop != tc.stop {
			t.Fatalf("%s: stop reason %v, want %v", tc.name, res.Stop, tc.stop)
		}
	}
}

// TestC11_3_BadPrompts: a prompt that cannot run is an error before
// anything is processed: the session is left as it was.
func TestC11_3_BadPrompts(t *testing.T) {
	c := tinyConfig(300, 128)
	long := make([]int, 129)
	badLate := make([]int, 100)
	badLate[90] = 300 // in the second prefill chunk
	cases := []struct {
		name   string
		prompt []int
		kind   error
	}{
		{"an empty prompt", nil, unit00.ErrInvalid},
		{"a prompt longer than the context", long, unit07.ErrContextFull},
		{"a token outside the vocabulary, late in the prompt", badLate, unit00.ErrInvalid},
	}
	for _, tc := range cases {
		s := newSession(t, c, 3)
		if _, err := s.Prefill([]int{5, 6}); err != nil {
			t.Fatal(err)
		}
		res, err := Generate(context.Background(), s, newSampler(t, c.Vocab, DefaultParams()), tc.prompt, Options{MaxTokens: 5})
		if !errors.Is(err, tc.kind) {
			t.Fatalf("Generate with %s: error %v, want one wrapping %v", tc.name, err, tc.kind)
		}
		if s.Len() != 2 || len(res.Tokens) != 0 {
			t.Fatalf("Generate with %s: the session holds %d positions (want the 2 it had) and %d tokens came out: check the prompt before running any of it", tc.name, s.Len(), len(res.Tokens))
		}
	}
	// With 126 of 128 positions used, a 3-token prompt no longer fits.
	s := newSession(t, c, 3)
	if _, err := s.Prefill(make([]int, 126)); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(context.Background(), s, newSampler(t, c.Vocab, DefaultParams()), []int{1, 2, 3}, Options{}); !errors.Is(err, unit07.ErrContextFull) || s.Len() != 126 {
		t.Fatalf("a 3-token prompt after 126 of 128 positions: %v with %d positions used; want ErrContextFull and 126", err, s.Len())
	}
}

func TestC11_3_Cancel(t *testing.T) {
	c := tinyConfig(300, 512)
	prompt := make([]int, 300)
	for i := range prompt {
		prompt[i] = i
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := newSession(t, c, 4)
	res, err := Generate(ctx, s, newSampler(t, c.Vocab, DefaultParams()), prompt, Options{})
	if !errors.Is(err, context.Canceled) || res.Stop != StopCanceled || len(res.Tokens) != 0 || s.Len() >= len(prompt) {
		t.Fatalf("Generate with a canceled context: %v, stop %v, %d tokens, %d positions; want context.Canceled, StopCanceled, no tokens, the prompt not (wholly) processed", err, res.Stop, len(res.Tokens), s.Len())
	}
	// Canceled from inside, after the third token: no fourth.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	n := 0
	res, err = Generate(ctx, newSession(t, c, 4), newSampler(t, c.Vocab, DefaultParams()), prompt[:10], Options{OnToken: func(int) bool {
		if n++; n == 3 {
			cancel()
		}
		return true
	}})
	if !errors.Is(err, context.Canceled) || res.Stop != StopCanceled || len(res.Tokens) != 3 {
		t.Fatalf("Generate canceled after the third token: %v, stop %v, %d tokens; want context.Canceled, StopCanceled, 3 tokens", err, res.Stop, len(res.Tokens))
	}
}

// TestC11_3_PenaltiesSeeEverything: with a huge presence penalty over the
// whole history, greedy decoding never repeats a token, prompt included.
func TestC11_3_PenaltiesSeeEverything(t *testing.T) {
	c := tinyConfig(300, 128)
	p := greedyParams()
	p.PresencePenalty, p.PenaltyLastN = 1e4, -1
	prompt := []int{1, 20, 30, 40, 50}
	res, err := Generate(context.Background(), newSession(t, c, 5), newSampler(t, c.Vocab, p), prompt, Options{MaxTokens: 60})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, id := range append(slices.Clone(prompt), res.Tokens...) {
		if seen[id] {
			t.Fatalf("token %d repeats in %v + %v: the penalties must see the prompt and every generated token", id, prompt, res.Tokens)
		}
		seen[id] = true
	}
}
