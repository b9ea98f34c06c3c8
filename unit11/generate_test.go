package unit11

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// TestC11_3_LongPrompt: a prompt of several prefill chunks (64 tokens at
// most each, the last one partial) runs whole, in order, exactly once.
func TestC11_3_LongPrompt(t *testing.T) {
	c := tinyConfig(300, 256)
	for _, n := range []int{1, 63, 64, 65, 129, 150} {
		prompt := make([]int, n)
		for i := range prompt {
			prompt[i] = (11*i + 5) % c.Vocab
		}
		want := byHand(t, newSession(t, c, 8), prompt, 6)
		s := newSession(t, c, 8)
		res, err := Generate(context.Background(), s, newSampler(t, c.Vocab, greedyParams()), prompt, Options{MaxTokens: 6})
		if err != nil {
			t.Fatalf("a %d-token prompt: %v", n, err)
		}
		// The last token is sampled but never fed back: n + 5 positions.
		if s.Len() != n+5 || fmt.Sprint(res.Tokens) != fmt.Sprint(want) {
			t.Fatalf("a %d-token prompt, 6 greedy tokens: %v with %d positions used; want %v with %d (every prompt token prefilled once, chunk by chunk, then 5 steps)",
				n, res.Tokens, s.Len(), want, n+5)
		}
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
		{"max tokens 1", prompt, Options{MaxTokens: 1}, greedy[:1], StopLength}, // 1 is a limit, not "no limit" (≤ 0 is)
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
		says   []string // what the message must name
	}{
		{"an empty prompt", nil, unit00.ErrInvalid, []string{"empty"}},
		{"a prompt longer than the context", long, unit07.ErrContextFull, nil},
		{"a token outside the vocabulary, late in the prompt", badLate, unit00.ErrInvalid, []string{"90", "300"}},
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
		for _, w := range tc.says {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("Generate with %s: error %q does not say %q; name what is wrong (an empty prompt; the bad token and its index)", tc.name, err, w)
			}
		}
		if s.Len() != 2 || len(res.Tokens) != 0 {
			t.Fatalf("Generate with %s: the session holds %d positions (want the 2 it had) and %d tokens came out: check the prompt before running any of it", tc.name, s.Len(), len(res.Tokens))
		}
	}
	// A sampler made for another vocabulary: its error comes back, naming
	// the token it was sampling, and nothing is made up in its place.
	s0 := newSession(t, c, 3)
	res0, err := Generate(context.Background(), s0, newSampler(t, c.Vocab+1, DefaultParams()), []int{1, 2}, Options{MaxTokens: 5})
	if !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), "token 0") || len(res0.Tokens) != 0 {
		t.Fatalf("Generate with a sampler for %d tokens and a model of %d: %v, %d tokens; want the sampler's error wrapping unit00.ErrInvalid, naming token 0, and no tokens", c.Vocab+1, c.Vocab, err, len(res0.Tokens))
	}
	// A negative token late in the prompt is caught before the first chunk.
	s := newSession(t, c, 3)
	negLate := make([]int, 100)
	negLate[95] = -1
	if _, err := Generate(context.Background(), s, newSampler(t, c.Vocab, DefaultParams()), negLate, Options{MaxTokens: 5}); !errors.Is(err, unit00.ErrInvalid) || s.Len() != 0 {
		t.Fatalf("a prompt with token -1 at position 95: %v with %d positions used; want unit00.ErrInvalid and none used", err, s.Len())
	}
	// A prompt that fills the context exactly is allowed: it leaves no
	// position to feed a token back, so one token is sampled, and that is all.
	s = newSession(t, c, 3)
	if _, err := s.Prefill(make([]int, 126)); err != nil {
		t.Fatal(err)
	}
	res, err := Generate(context.Background(), s, newSampler(t, c.Vocab, DefaultParams()), []int{1, 2}, Options{})
	if err != nil || len(res.Tokens) != 1 || res.Stop != StopContext || s.Len() != 128 {
		t.Fatalf("a 2-token prompt after 126 of 128 positions: %v, %d tokens, stop %v, %d positions; want no error, 1 token, StopContext, 128 (a prompt that exactly fits is not too long)",
			err, len(res.Tokens), res.Stop, s.Len())
	}
	// With 126 of 128 positions used, a 3-token prompt no longer fits.
	s = newSession(t, c, 3)
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
	if res.GenTime != 0 {
		t.Errorf("Generate canceled during the prefill: GenTime %v, want 0: it stops there, and nothing is sampled or decoded", res.GenTime)
	}
	// Canceled while the prompt runs: the next look, before the second
	// chunk, must see it.
	s = newSession(t, c, 4)
	ctx = &cancelOnWork{Context: context.Background(), s: s, closed: closedChan()}
	res, err = Generate(ctx, s, newSampler(t, c.Vocab, DefaultParams()), prompt, Options{})
	if !errors.Is(err, context.Canceled) || res.Stop != StopCanceled || len(res.Tokens) != 0 || s.Len() < 1 || s.Len() > 64 {
		t.Fatalf("Generate of a 300-token prompt, canceled once the first chunk ran: %v, stop %v, %d tokens, %d positions; want context.Canceled, StopCanceled, no tokens, and at most one chunk (64 tokens) processed: look at ctx before every chunk, not once",
			err, res.Stop, len(res.Tokens), s.Len())
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

// cancelOnWork is a context that is canceled as soon as the session holds
// a position: the moment the first prefill chunk has run. It answers both
// ways of looking, Err and Done.
type cancelOnWork struct {
	context.Context
	s      *unit07.Session
	closed chan struct{}
}

func (c *cancelOnWork) Done() <-chan struct{} {
	if c.s.Len() > 0 {
		return c.closed
	}
	return nil // never canceled, so far
}

func (c *cancelOnWork) Err() error {
	if c.s.Len() > 0 {
		return context.Canceled
	}
	return nil
}

func closedChan() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}
