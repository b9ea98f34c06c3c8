package unit07

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/stretchr/testify/require"
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

	// The whole context in one prefill, and in one chunked prefill: exactly
	// full is not too full. One token more is.
	for _, chunked := range []bool{false, true} {
		s := NewSession(m)
		prefill, how := s.Prefill, "Prefill"
		if chunked {
			prefill, how = func(toks []int) ([]float32, error) { return s.PrefillChunked(toks, 40) }, "PrefillChunked (chunks of 40)"
		}
		_, err := prefill(tokens[:maxSeq+1])
		require.ErrorIs(t, err, ErrContextFull, "%s of %d tokens into an empty session of %d positions", how, maxSeq+1, maxSeq)
		require.Equal(t, 0, s.Len(), "Len() after a rejected %s of %d tokens: a rejected call must change nothing", how, maxSeq+1)
		got := must(prefill(tokens[:maxSeq]))
		require.Equal(t, maxSeq, s.Len(), "Len() after a %s of all %d positions", how, maxSeq)
		oracle.AssertClose(t, fmt.Sprintf("%s of all %d positions: the last position's logits against before", how, maxSeq), got, oracle.Float64s(last), cachedTol)
		_, err = s.Step(tokens[maxSeq])
		require.ErrorIs(t, err, ErrContextFull, "Step after a %s of all %d positions", how, maxSeq)
	}
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
		kept := NewSession(m)
		must(kept.Prefill(a))
		if err := kept.Truncate(keep); err != nil {
			t.Fatalf("Truncate(%d) of 30 positions: %v", keep, err)
		}
		if kept.Len() != keep {
			t.Fatalf("Len() = %d after Truncate(%d)", kept.Len(), keep)
		}
		must(kept.Prefill(b[:3]))
		got := must(kept.Step(b[3]))
		want := lastLogits(t, m, concat(a[:keep], b[:4]...))
		oracle.AssertClose(t, fmt.Sprintf("Truncate(%d) of a 30-token sequence, then 4 new tokens: logits against Model.Forward over the first %d tokens and the new ones", keep, keep), got, want, cachedTol)
	}
	// Bad lengths, on the session of the Reset check above (25 positions).
	for _, n := range []int{s.Len() + 1, -1} {
		before := s.Len()
		if err := s.Truncate(n); !errors.Is(err, unit00.ErrInvalid) || s.Len() != before {
			t.Errorf("Truncate(%d) of a session of %d positions: error %v, Len %d; want one wrapping unit00.ErrInvalid and Len unchanged", n, before, err, s.Len())
		}
	}
}

// TestC7_4_CacheTruncate checks Cache.Truncate and Cache.Reset on their own:
// every n from 0 to Len() is a length to keep, anything else an error that
// changes nothing; Reset keeps the cache's memory and capacity.
func TestC7_4_CacheTruncate(t *testing.T) {
	const layers, maxSeq, kvDim = 2, 6, 4
	c := NewCache(layers, maxSeq, kvDim)
	require.NoError(t, c.Advance(5), "Advance(5) on an empty cache of 6")
	for _, bad := range []int{-1, 6, 7} {
		require.ErrorIs(t, c.Truncate(bad), unit00.ErrInvalid, "Truncate(%d) with Len() 5", bad)
		require.Equal(t, 5, c.Len(), "Len() after the rejected Truncate(%d): a rejected call must change nothing", bad)
	}
	for _, keep := range []int{5, 3, 0} {
		require.NoError(t, c.Truncate(keep), "Truncate(%d) from Len() %d", keep, c.Len())
		require.Equal(t, keep, c.Len(), "Len() after Truncate(%d)", keep)
	}
	require.NoError(t, c.Advance(maxSeq), "Advance(%d) after Truncate(0): the whole capacity is free again", maxSeq)
	keys, bytes := c.Keys(1), c.Bytes()
	keys.Set(2, 1, 42)
	c.Reset()
	require.Equal(t, 0, c.Len(), "Len() after Reset")
	require.Equal(t, maxSeq, c.Cap(), "Cap() after Reset: the capacity stays")
	require.Equal(t, bytes, c.Bytes(), "Bytes() after Reset: the memory is kept")
	require.Equal(t, float32(42), c.Keys(1).At(2, 1), "layer 1's key (2, 1) after Reset: Reset keeps the memory (rows are rewritten before they are read again), it does not allocate anew")
	require.ErrorIs(t, c.Truncate(1), unit00.ErrInvalid, "Truncate(1) of an empty cache")
	require.NoError(t, c.Truncate(0), "Truncate(0) of an empty cache")
}

func TestC7_4_BadInput(t *testing.T) {
	must := mustFor(t)
	n := configs[0]
	m := newModel(t, n.c, 95, nil)
	s := NewSession(m)
	tokens := testTokens(96, 10, n.c.Vocab)
	must(s.Prefill(tokens[:8]))
	for _, bad := range []struct {
		what string
		call func() error
	}{
		{"an empty Prefill", func() error { _, err := s.Prefill(nil); return err }},
		{"Prefill of [1, Vocab]", func() error { _, err := s.Prefill([]int{1, n.c.Vocab}); return err }},
		{"Step(−1)", func() error { _, err := s.Step(-1); return err }},
		{"Step(Vocab)", func() error { _, err := s.Step(n.c.Vocab); return err }},
		{"PrefillChunked of [1, 2, Vocab+7] in chunks of 1", func() error { _, err := s.PrefillChunked([]int{1, 2, n.c.Vocab + 7}, 1); return err }},
		{"PrefillChunked of [1, 2, Vocab] in chunks of 1", func() error { _, err := s.PrefillChunked([]int{1, 2, n.c.Vocab}, 1); return err }},
		{"PrefillChunked of [1, 2, −1] in chunks of 1", func() error { _, err := s.PrefillChunked([]int{1, 2, -1}, 1); return err }},
		{"PrefillChunked of no tokens", func() error { _, err := s.PrefillChunked(nil, 4); return err }},
		{"PrefillChunked with a chunk size of 0", func() error { _, err := s.PrefillChunked(tokens, 0); return err }},
		{"PrefillChunked with a chunk size of −1", func() error { _, err := s.PrefillChunked(tokens, -1); return err }},
	} {
		var err error
		if v, panicked := oracle.Panics(func() { err = bad.call() }); panicked {
			t.Fatalf("%s panicked (%v): bad input is an error wrapping unit00.ErrInvalid, never a panic", bad.what, v)
		}
		if !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("%s: error %v, want one wrapping unit00.ErrInvalid", bad.what, err)
		}
		if s.Len() != 8 {
			t.Fatalf("%s: Len() = %d after it, want 8: a rejected call must change nothing (check everything before running any piece)", bad.what, s.Len())
		}
	}
	must(s.Step(tokens[8]))
	got := must(s.Step(tokens[9]))
	oracle.AssertClose(t, "logits after rejected input, against Model.Forward", got, lastLogits(t, m, tokens), cachedTol)
}
