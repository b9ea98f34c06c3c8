package unit12

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit07"
)

// scoreTol compares a pass over several rows with decode steps one at a
// time: the same arithmetic, summed in another order by the batched
// products.
var scoreTol = oracle.Tol{Atol: 2e-5, Rtol: 2e-5}

func TestC12_1_NewScorer(t *testing.T) {
	s := newSession(t, tinyConfig(64, 32), 1)
	for _, n := range []int{0, -1} {
		if _, err := NewScorer(s, n); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("NewScorer with at most %d tokens a pass: %v; want an error wrapping unit00.ErrInvalid", n, err)
		}
	}
	if _, err := NewScorer(s, 1); err != nil {
		t.Errorf("NewScorer with at most 1 token a pass: %v; want a scorer (a plain decode step)", err)
	}
}

// TestC12_1_ScoreMatchesSteps: the rows of one pass are the logits that
// decode steps one token at a time give, at every length up to and past
// the 64 rows of a block, from an empty cache and after a prompt.
func TestC12_1_ScoreMatchesSteps(t *testing.T) {
	c := tinyConfig(96, 160)
	g := oracle.NewRand(12)
	for _, pos0 := range []int{0, 3} {
		for _, T := range []int{1, 2, 5, 9, 64, 70} {
			tokens := make([]int, T)
			for i := range tokens {
				tokens[i] = g.Intn(c.Vocab)
			}
			tokens[0], tokens[T-1] = 0, c.Vocab-1 // the first and last id too
			prompt := []int{7, 8, 9}[:pos0]
			s, ref := newSession(t, c, 2), newSession(t, c, 2)
			if pos0 > 0 {
				mustPrefill(t, s, prompt)
				mustPrefill(t, ref, prompt)
			}
			sc, err := NewScorer(s, 70)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := sc.Score(tokens)
			if err != nil {
				t.Fatalf("Score of %d tokens at position %d: %v", T, pos0, err)
			}
			if rows.Rows != T || rows.Cols != c.Vocab || s.Len() != pos0+T {
				t.Fatalf("Score of %d tokens at position %d: a %d × %d matrix, %d positions in the cache; want %d × %d and %d", T, pos0, rows.Rows, rows.Cols, s.Len(), T, c.Vocab, pos0+T)
			}
			want := stepLogits(t, ref, tokens)
			for i := range T {
				if !oracle.AssertClose(t, fmt.Sprintf("Score of %d tokens at position %d: row %d against decode steps", T, pos0, i), rows.Row(i), want[i], scoreTol) {
					break
				}
			}
			// The cache holds the right keys and values: the next step agrees.
			got, err := s.Step(5)
			if err != nil {
				t.Fatal(err)
			}
			oracle.AssertClose(t, fmt.Sprintf("the decode step after Score of %d tokens at position %d", T, pos0), got, stepLogits(t, ref, []int{5})[0], scoreTol)
		}
	}
}

// TestC12_1_ScoreAfterTruncate: take the tokens of a pass back and score
// others in their place, as verification does after a rejection; the new
// rows see only what the cache still holds.
func TestC12_1_ScoreAfterTruncate(t *testing.T) {
	c := tinyConfig(64, 64)
	s, ref := newSession(t, c, 3), newSession(t, c, 3)
	mustPrefill(t, s, []int{1, 2, 3, 4})
	mustPrefill(t, ref, []int{1, 2, 3, 4, 10, 11})
	sc, err := NewScorer(s, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Score([]int{10, 11, 12, 13}); err != nil {
		t.Fatal(err)
	}
	if err := s.Truncate(6); err != nil { // keep 10 and 11, drop 12 and 13
		t.Fatal(err)
	}
	rows, err := sc.Score([]int{40, 41, 42})
	if err != nil {
		t.Fatal(err)
	}
	want := stepLogits(t, ref, []int{40, 41, 42})
	for i := range 3 {
		oracle.AssertClose(t, fmt.Sprintf("row %d of a pass after a rejection took two positions back", i), rows.Row(i), want[i], scoreTol)
	}
}

// TestC12_1_ScoreErrors: bad passes are refused before anything happens;
// a pass that fills the context exactly is not bad.
func TestC12_1_ScoreErrors(t *testing.T) {
	c := tinyConfig(64, 12)
	s := newSession(t, c, 4)
	mustPrefill(t, s, []int{1, 2, 3, 4, 5, 6, 7, 8})
	sc, err := NewScorer(s, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		tokens []int
		want   error
	}{
		{"no tokens", nil, unit00.ErrInvalid},
		{"6 tokens, more than the 5 of a pass", []int{1, 2, 3, 4, 5, 6}, unit00.ErrInvalid},
		{"a token of −1", []int{1, -1}, unit00.ErrInvalid},
		{"the token Vocab", []int{c.Vocab, 1}, unit00.ErrInvalid},
		{"5 tokens at position 8 of 12", []int{1, 2, 3, 4, 5}, unit07.ErrContextFull},
	} {
		if _, err := sc.Score(tc.tokens); !errors.Is(err, tc.want) || s.Len() != 8 {
			t.Errorf("Score of %s: %v, %d positions in the cache; want an error wrapping %v, and the cache left at 8", tc.name, err, s.Len(), tc.want)
		}
	}
	ref := newSession(t, c, 4)
	mustPrefill(t, ref, []int{1, 2, 3, 4, 5, 6, 7, 8})
	rows, err := sc.Score([]int{9, 10, 11, 12})
	if err != nil || s.Len() != 12 {
		t.Fatalf("Score of 4 tokens at position 8 of 12 (the context exactly full): %v, %d positions; want no error and 12", err, s.Len())
	}
	want := stepLogits(t, ref, []int{9, 10, 11, 12})
	oracle.AssertClose(t, "the last row of a pass that fills the context, after refused passes", rows.Row(3), want[3], scoreTol)
}

func mustPrefill(t testing.TB, s *unit07.Session, tokens []int) {
	t.Helper()
	if _, err := s.Prefill(tokens); err != nil {
		t.Fatal(err)
	}
}
