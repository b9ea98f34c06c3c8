package unit07

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

func TestC7_4_ContextFull(t *testing.T) {
	must := mustFor(t)
	n := configs[1]
	m := newModel(t, n.c, 80, nil)
	s := NewSession(m)
	tokens := testTokens(81, n.c.MaxSeq+5, n.c.Vocab)
	maxSeq := n.c.MaxSeq
	must(s.Prefill(tokens[:maxSeq-2]))
	must(s.Step(tokens[maxSeq-2]))
	last := must(s.Step(tokens[maxSeq-1])) // the last position: the context is now full
	if _, err := s.Step(tokens[maxSeq]); !errors.Is(err, ErrContextFull) {
		t.Fatalf("Step with all %d positions used: error %v, want one wrapping ErrContextFull", maxSeq, err)
	}
	if _, err := s.Prefill(tokens[maxSeq : maxSeq+3]); !errors.Is(err, ErrContextFull) {
		t.Fatalf("Prefill with all %d positions used: error %v, want ErrContextFull", maxSeq, err)
	}
	if s.Len() != maxSeq {
		t.Fatalf("Len() = %d after rejected calls, want %d: a rejected call must change nothing", s.Len(), maxSeq)
	}
	// A prefill that does not fit is rejected whole, not run in part.
	if err := s.Truncate(maxSeq - 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prefill(tokens[maxSeq-3 : maxSeq+1]); !errors.Is(err, ErrContextFull) || s.Len() != maxSeq-3 {
		t.Fatalf("Prefill of 4 tokens with 3 positions left: error %v, Len %d; want ErrContextFull and Len %d", err, s.Len(), maxSeq-3)
	}
	if _, err := s.PrefillChunked(tokens[maxSeq-3:maxSeq+1], 2); !errors.Is(err, ErrContextFull) || s.Len() != maxSeq-3 {
		t.Fatalf("PrefillChunked of 4 tokens with 3 positions left: error %v, Len %d; want ErrContextFull and Len %d, nothing run", err, s.Len(), maxSeq-3)
	}
	// Nothing was lost: the same last position gives the same logits.
	must(s.Prefill(tokens[maxSeq-3 : maxSeq-1]))
	again := must(s.Step(tokens[maxSeq-1]))
	oracle.AssertClose(t, "the last position's logits after rejected calls and a Truncate, against before", again, oracle.Float64s(last), cachedTol)
}

func TestC7_4_ResetTruncate(t *testing.T) {
	must := mustFor(t)
	n := configs[3]
	m := newModel(t, n.c, 90, nil)
	a, b := testTokens(91, 30, n.c.Vocab), testTokens(92, 25, n.c.Vocab)

	// Reset: a second sequence gives what a fresh session gives.
	s := NewSession(m)
	must(s.Prefill(a))
	s.Reset()
	if s.Len() != 0 {
		t.Fatalf("Len() = %d after Reset", s.Len())
	}
	must(s.Prefill(b[:20]))
	var got []float32
	for _, tok := range b[20:] {
		got = must(s.Step(tok))
	}
	oracle.AssertClose(t, "after Reset, a new sequence's logits against Model.Forward over that sequence alone", got, lastLogits(t, m, b), cachedTol)

	// Truncate: keep a prefix, continue with other tokens.
	for _, keep := range []int{0, 1, 12, 30} {
		s := NewSession(m)
		must(s.Prefill(a))
		if err := s.Truncate(keep); err != nil {
			t.Fatalf("Truncate(%d) of 30 positions: %v", keep, err)
		}
		if s.Len() != keep {
			t.Fatalf("Len() = %d after Truncate(%d)", s.Len(), keep)
		}
		must(s.Prefill(b[:3]))
		got := must(s.Step(b[3]))
		want := lastLogits(t, m, concat(a[:keep], b[:4]...))
		oracle.AssertClose(t, fmt.Sprintf("Truncate(%d) of a 30-token sequence, then 4 new tokens: logits against Model.Forward over the first %d tokens and the new ones", keep, keep), got, want, cachedTol)
	}
	if err := s.Truncate(s.Len() + 1); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Truncate beyond Len(): error %v, want one wrapping unit00.ErrInvalid", err)
	}
}

func TestC7_4_BadInput(t *testing.T) {
	must := mustFor(t)
	n := configs[0]
	m := newModel(t, n.c, 95, nil)
	s := NewSession(m)
	tokens := testTokens(96, 10, n.c.Vocab)
	must(s.Prefill(tokens[:8]))
	for _, bad := range []func() error{
		func() error { _, err := s.Prefill(nil); return err },
		func() error { _, err := s.Prefill([]int{1, n.c.Vocab}); return err },
		func() error { _, err := s.Step(-1); return err },
		func() error { _, err := s.PrefillChunked([]int{1, 2, n.c.Vocab + 7}, 1); return err },
		func() error { _, err := s.PrefillChunked(tokens, 0); return err },
	} {
		if err := bad(); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("bad input: error %v, want one wrapping unit00.ErrInvalid", err)
		}
		if s.Len() != 8 {
			t.Fatalf("Len() = %d after rejected input, want 8: a rejected call must change nothing", s.Len())
		}
	}
	must(s.Step(tokens[8]))
	got := must(s.Step(tokens[9]))
	oracle.AssertClose(t, "logits after rejected input, against Model.Forward", got, lastLogits(t, m, tokens), cachedTol)
}
