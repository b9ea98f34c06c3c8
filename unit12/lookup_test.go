package unit12

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit11"
)

func TestC12_4_NewLookup(t *testing.T) {
	for _, tc := range []struct{ vocab, minN, maxN int }{{0, 1, 3}, {-1, 1, 3}, {64, 0, 3}, {64, -1, 3}, {64, 3, 2}} {
		if _, err := NewLookup(tc.vocab, tc.minN, tc.maxN); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("NewLookup(vocab %d, n-grams of %d to %d): %v; want an error wrapping unit00.ErrInvalid", tc.vocab, tc.minN, tc.maxN, err)
		}
	}
	l, err := NewLookup(64, 2, 2)
	if err != nil || l.Vocab() != 64 {
		t.Fatalf("NewLookup(64, 2, 2): %v; want a lookup for 64 tokens", err)
	}
	if _, err := NewLookup(1, 1, 1); err != nil {
		t.Fatalf("NewLookup(1, 1, 1), the smallest valid: %v; want a lookup", err)
	}
}

func TestC12_4_Draft(t *testing.T) {
	for _, tc := range []struct {
		name       string
		history    []int
		minN, maxN int
		n          int
		want       []int
	}{
		{"a 3-gram seen before", []int{1, 2, 3, 4, 1, 2, 3}, 1, 3, 8, []int{4, 1, 2, 3}},
		{"as many as asked", []int{1, 2, 3, 4, 1, 2, 3}, 1, 3, 2, []int{4, 1}},
		{"one asked", []int{1, 2, 3, 4, 1, 2, 3}, 1, 3, 1, []int{4}},
		{"none asked", []int{1, 2, 3, 4, 1, 2, 3}, 1, 3, 0, nil},
		{"a negative number asked", []int{1, 2, 3, 4, 1, 2, 3}, 1, 3, -1, nil},
		{"two tokens, the same", []int{5, 5}, 1, 3, 4, []int{5}},
		{"the longest n-gram wins over a later shorter one", []int{1, 2, 3, 7, 9, 2, 3, 8, 1, 2, 3}, 1, 3, 1, []int{7}},
		{"the latest appearance wins", []int{1, 2, 5, 1, 2, 6, 1, 2}, 1, 2, 1, []int{6}},
		{"the latest appearance, with its continuation up to the end", []int{4, 4, 5, 6, 4, 4}, 2, 2, 4, []int{5, 6, 4, 4}},
		{"a run of one token overlaps itself", []int{7, 7, 7}, 1, 2, 4, []int{7}},
		{"a run, longest match", []int{7, 7, 7, 7}, 1, 3, 4, []int{7}},
		{"nothing repeats", []int{1, 2, 3, 4}, 1, 3, 4, nil},
		{"only a 1-gram repeats, minN 2", []int{1, 2, 9, 2}, 2, 3, 4, nil},
		{"only a 1-gram repeats, minN 1", []int{1, 2, 9, 2}, 1, 3, 4, []int{9, 2}},
		{"maxN longer than the text", []int{5, 6, 5}, 1, 10, 4, []int{6, 5}},
		{"maxN bounds the match", []int{1, 2, 3, 8, 0, 2, 3, 9, 1, 2, 3}, 1, 2, 1, []int{9}},
		{"one token", []int{5}, 1, 3, 4, nil},
		{"no text", nil, 1, 3, 4, nil},
	} {
		l, err := NewLookup(16, tc.minN, tc.maxN)
		if err != nil {
			t.Fatal(err)
		}
		got, q, err := l.Draft(tc.history, tc.n)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) || q != nil {
			t.Errorf("%s: Draft(%v, %d) with n-grams of %d to %d = %v, q %v, %v; want %v, nil q (deterministic), no error", tc.name, tc.history, tc.n, tc.minN, tc.maxN, got, q, err, tc.want)
		}
	}
}

// TestC12_4_GreedyIsTarget: prompt lookup changes how many passes the
// target takes, never what greedy decoding says, and on a text that
// repeats it saves passes.
func TestC12_4_GreedyIsTarget(t *testing.T) {
	c := tinyConfig(64, 200)
	prompt := []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 10, 11, 12, 13}
	want := plainGreedy(t, newSession(t, c, 36), prompt, 100)
	l, err := NewLookup(c.Vocab, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, gamma := range []int{1, 4, 8} {
		sp := newSpeculator(t, newSession(t, c, 36), newSampler(t, c.Vocab, greedyParams()), l)
		res, err := sp.Generate(context.Background(), prompt, Options{Options: unit11.Options{MaxTokens: 100}, Draft: gamma})
		if err != nil || fmt.Sprint(res.Tokens) != fmt.Sprint(want) {
			t.Fatalf("γ = %d, prompt lookup: %v, %v; want the target's greedy tokens %v", gamma, res.Tokens, err, want)
		}
		checkCounts(t, fmt.Sprintf("γ = %d, prompt lookup", gamma), res, gamma)
		if res.Passes >= 100 {
			t.Errorf("γ = %d, prompt lookup over greedy text that falls into a loop: %d passes for 100 tokens; want fewer (%d of %d drafted tokens accepted)", gamma, res.Passes, res.Accepted, res.Drafted)
		}
	}
}
