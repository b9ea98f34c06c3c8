package unit12

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit11"
)

func TestC12_3_NewModelDrafter(t *testing.T) {
	c := tinyConfig(64, 32)
	smp := newSampler(t, c.Vocab, greedyParams())
	if _, err := NewModelDrafter(newSession(t, c, 1), smp, 0); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("NewModelDrafter with at most 0 tokens a call: %v; want an error wrapping unit00.ErrInvalid", err)
	}
	used := newSession(t, c, 1)
	mustPrefill(t, used, []int{1, 2})
	if _, err := NewModelDrafter(used, smp, 4); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("NewModelDrafter over a session that holds 2 positions: %v; want an error wrapping unit00.ErrInvalid: the drafter must know what its cache holds", err)
	}
	d, err := NewModelDrafter(newSession(t, c, 1), smp, 1)
	if err != nil || d.Vocab() != c.Vocab {
		t.Fatalf("NewModelDrafter(maxDraft 1): %v, Vocab %d; want a drafter for %d tokens", err, d.Vocab(), c.Vocab)
	}
}

// TestC12_3_DraftFollowsText: a greedy draft model proposes what greedy
// decoding from scratch would, whatever happened before: the text grows
// by accepted tokens, loses rejected ones, branches, or starts over. A
// drafter that does not take its cache back to what the text shares
// attends to tokens that are no longer there.
func TestC12_3_DraftFollowsText(t *testing.T) {
	c := tinyConfig(64, 96)
	d := newDrafter(t, c, 7, greedyParams())
	text := []int{3, 1, 4, 1, 5}
	step := func(what string, history []int, n int) []int {
		t.Helper()
		got, q, err := d.Draft(history, n)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := plainGreedy(t, newSession(t, c, 7), history, min(n, 8))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: Draft(%v, %d) = %v; want %v, what greedy decoding gives from scratch", what, history, n, got, want)
		}
		if len(q) != len(got) {
			t.Fatalf("%s: %d distributions for %d tokens", what, len(q), len(got))
		}
		for i, x := range got {
			if len(q[i]) != c.Vocab || q[i][x] != 1 {
				t.Fatalf("%s: greedy draft token %d (%d) has q of length %d with q(x) = %v; want %d and 1: the distribution it was drawn from", what, i, x, len(q[i]), q[i][x], c.Vocab)
			}
		}
		return slices.Clone(got)
	}
	first := step("the first draft", text, 4)
	text = append(text, first[:2]...) // two accepted, then a resampled token
	text = append(text, (first[2]+1)%c.Vocab)
	step("after two accepted and a rejection", text, 4)
	step("after the same text again", text, 3)
	text = append(text, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9)
	step("after ten more tokens", text, 8)
	step("asked for more than maxDraft (8)", text, 20)
	step("on a branch that leaves the text at its third token", []int{3, 1, 2, 7}, 4)
	step("on a text shorter than the cache holds", []int{3}, 2)
	step("on a long text again", append(slices.Clone(text), 1, 2, 3), 5)
	step("on a text that begins with another token (0)", []int{0, 6, 2, 8}, 4)
	step("on the first text again", text, 4)
	d.s.Reset()
	step("after its session was reset behind its back", text, 4)
	if err := d.s.Truncate(3); err != nil {
		t.Fatal(err)
	}
	step("after its session was truncated behind its back", text, 4)
	for _, n := range []int{0, -1} {
		if got, _, err := d.Draft(text, n); err != nil || len(got) != 0 {
			t.Fatalf("Draft of %d tokens: %v, %v; want none and no error", n, got, err)
		}
	}
	if got, _, err := d.Draft(nil, 4); err != nil || len(got) != 0 {
		t.Fatalf("Draft after no text: %v, %v; want none and no error", got, err)
	}
	if got, _, err := d.Draft([]int{1, 2, c.Vocab}, 4); !errors.Is(err, unit00.ErrInvalid) {
		t.Fatalf("Draft after a text with token %d, outside the vocabulary: %v, %v; want an error wrapping unit00.ErrInvalid", c.Vocab, got, err)
	}
	step("after an error", text, 4)
}

// TestC12_3_DraftNaN: a draft model whose logits go NaN is an error, not
// a proposal.
func TestC12_3_DraftNaN(t *testing.T) {
	c := tinyConfig(64, 32)
	s := poisoned(t, c, 10, 17)
	d, err := NewModelDrafter(s, newSampler(t, c.Vocab, unit11.DefaultParams()), 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := d.Draft([]int{1, 2, 3}, 4); !errors.Is(err, unit00.ErrInvalid) {
		t.Fatalf("Draft with a draft model whose logit of token 17 is NaN: %v, %v; want the sampler's error wrapping unit00.ErrInvalid", got, err)
	}
}

// TestC12_3_DraftDistribution: at a temperature, each q is the sampler
// chain's distribution after the text and the tokens drafted before it.
func TestC12_3_DraftDistribution(t *testing.T) {
	c := tinyConfig(64, 64)
	p := unit11.DefaultParams()
	p.Temperature, p.TopK, p.TopP, p.MinP, p.Seed = 1.3, 20, 0.9, 0.02, 5
	p.FrequencyPenalty, p.PenaltyLastN = 0.7, -1 // the penalties must see the text and the draft so far
	d := newDrafter(t, c, 8, p)
	text := []int{10, 11, 12, 11, 11}
	got, q, err := d.Draft(text, 5)
	if err != nil || len(got) != 5 {
		t.Fatalf("Draft(%v, 5) = %v, %v; want 5 tokens", text, got, err)
	}
	ref := newSession(t, c, 8)
	logits, err := ref.Prefill(text)
	if err != nil {
		t.Fatal(err)
	}
	history := slices.Clone(text)
	for i, x := range got {
		want := oracle.SamplingDist(logits, history, toOracle(p))
		oracle.AssertClose(t, fmt.Sprintf("q of draft token %d after %v", i, history), toF32(q[i]), want, oracle.Tol{Atol: 1e-5})
		if want[x] == 0 {
			t.Fatalf("draft token %d is %d, which the draft's distribution excludes", i, x)
		}
		history = append(history, x)
		if logits, err = ref.Step(x); err != nil {
			t.Fatal(err)
		}
	}
}

// TestC12_3_DraftContext: a draft model with a short context drafts what
// fits and nothing when the text does not fit at all.
func TestC12_3_DraftContext(t *testing.T) {
	c := tinyConfig(64, 16)
	d := newDrafter(t, c, 9, greedyParams())
	text := make([]int, 14)
	for _, tc := range []struct{ len, n, want int }{{14, 8, 3}, {16, 8, 1}, {17, 8, 0}, {30, 8, 0}, {5, 8, 8}} {
		text = text[:0]
		for i := range tc.len {
			text = append(text, i%c.Vocab)
		}
		got, _, err := d.Draft(text, tc.n)
		if err != nil || len(got) != tc.want {
			t.Errorf("Draft of %d tokens after a text of %d, with a draft context of 16: %d tokens, %v; want %d and no error (the last drafted token need not be fed back)", tc.n, tc.len, len(got), err, tc.want)
		}
	}
}

// TestC12_3_Prime: Prime runs a history but its last token through the
// draft model, keeping what the cache already shares with it, and the
// first draft after it is what greedy decoding gives from scratch. Too
// short a history, or one that does not fit, leaves the cache alone.
func TestC12_3_Prime(t *testing.T) {
	c := tinyConfig(64, 12)
	d := newDrafter(t, c, 7, greedyParams())
	prime := func(what string, history []int, want int) {
		t.Helper()
		if err := d.Prime(history); err != nil || d.s.Len() != want {
			t.Fatalf("%s: Prime(%v): %v, and the draft's cache holds %d positions; want no error and %d", what, history, err, d.s.Len(), want)
		}
		n := min(3, c.MaxSeq-len(history)+1)
		got, _, err := d.Draft(history, n)
		want2 := plainGreedy(t, newSession(t, c, 7), history, n)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want2) {
			t.Fatalf("%s: Draft(%v, %d) after Prime: %v, %v; want %v, what greedy decoding gives from scratch", what, history, n, got, err, want2)
		}
	}
	text := []int{3, 1, 4, 1, 5}
	prime("a fresh drafter", text, 4)
	prime("a text of 2 tokens", []int{2, 7}, 1)
	untouched := func(what string, history []int) {
		t.Helper()
		held := d.s.Len()
		if err := d.Prime(history); err != nil || d.s.Len() != held {
			t.Fatalf("%s: Prime(%v): %v, and the draft's cache holds %d positions; want no error and the %d it held, untouched", what, history, err, d.s.Len(), held)
		}
	}
	untouched("a text of 1 token", []int{2})
	untouched("no text", nil)
	prime("a branch that shares the first two tokens", []int{3, 1, 2, 7, 7}, 4)
	full := []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8}
	prime("a text that fills the draft context of 12 exactly", full, 11)
	untouched("a text of 13 tokens, more than the context of 12", append(slices.Clone(full), 9))
	if err := d.Prime([]int{1, 2, c.Vocab, 4}); !errors.Is(err, unit00.ErrInvalid) {
		t.Fatalf("Prime with token %d, outside the vocabulary: %v; want an error wrapping unit00.ErrInvalid", c.Vocab, err)
	}
	d.s.Reset()
	prime("after an error, and a reset behind the drafter's back", text, 4)
}

func toOracle(p unit11.Params) oracle.SamplingParams {
	return oracle.SamplingParams{Temperature: p.Temperature, TopK: p.TopK, TopP: p.TopP, MinP: p.MinP,
		RepeatPenalty: p.RepeatPenalty, FrequencyPenalty: p.FrequencyPenalty, PresencePenalty: p.PresencePenalty,
		PenaltyLastN: p.PenaltyLastN}
}
