package unit07

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

func TestC7_2_Prefill(t *testing.T) {
	must := mustFor(t)
	for i, n := range configs {
		m := newModel(t, n.c, uint64(10+i), nil)
		s := NewSession(m)
		if want := 2 * n.c.Layers * n.c.MaxSeq * n.c.KVDim() * 4; s.Cache.Bytes() != want {
			t.Errorf("%s: the session's cache holds %d bytes, want %d: MaxSeq positions of the KVDim = KVHeads·HeadDim key/value heads, not the query heads", n.name, s.Cache.Bytes(), want)
		}
		prompt := testTokens(uint64(20+i), 17, n.c.Vocab)
		got := must(s.Prefill(prompt))
		if s.Len() != len(prompt) {
			t.Errorf("%s: Len() = %d after a prefill of %d tokens", n.name, s.Len(), len(prompt))
		}
		oracle.AssertClose(t, fmt.Sprintf("%s: Prefill of %d tokens: the last position's logits against Model.Forward's", describe(n.name, n.c), len(prompt)), got, lastLogits(t, m, prompt), cachedTol)
	}
}

func TestC7_2_Step(t *testing.T) {
	must := mustFor(t)
	p := unit03.NewPool(2)
	defer p.Close()
	for i, n := range configs {
		for _, pool := range []*unit03.Pool{nil, p} {
			m := newModel(t, n.c, uint64(30+i), pool)
			s := NewSession(m)
			tokens := testTokens(uint64(40+i), 12, n.c.Vocab)
			must(s.Prefill(tokens[:9]))
			for j := 9; j < len(tokens); j++ {
				got := must(s.Step(tokens[j]))
				what := fmt.Sprintf("%s, %d threads: Step(%d) at position %d after a prefill of 9", describe(n.name, n.c), pool.Threads(), tokens[j], j)
				if s.Len() != j+1 {
					t.Fatalf("%s: Len() = %d, want %d", what, s.Len(), j+1)
				}
				oracle.AssertClose(t, what+": logits against Model.Forward over the whole sequence", got, lastLogits(t, m, tokens[:j+1]), cachedTol)
			}
		}
	}
}

// TestC7_2_LongPrefill runs prefills longer than the 64 rows Model.Block
// computes at once, from an empty cache and after 10 cached positions: the
// logits against Model.Forward over everything so far. Once the session has
// run, a prefill allocates nothing.
func TestC7_2_LongPrefill(t *testing.T) {
	must := mustFor(t)
	for i, n := range []int{1, 3} {
		c := configs[n]
		m := newModel(t, c.c, uint64(45+i), nil)
		tokens := testTokens(uint64(47+i), 90, c.c.Vocab)
		s := NewSession(m)
		got := must(s.Prefill(tokens))
		oracle.AssertClose(t, fmt.Sprintf("%s: Prefill of 90 tokens into an empty cache: logits against Model.Forward's", describe(c.name, c.c)), got, lastLogits(t, m, tokens), cachedTol)
		s.Reset()
		must(s.Prefill(tokens[:10]))
		got = must(s.Prefill(tokens[10:]))
		if s.Len() != 90 {
			t.Errorf("%s: Len() = %d after prefills of 10 and 80 tokens, want 90", c.name, s.Len())
		}
		oracle.AssertClose(t, fmt.Sprintf("%s: Prefill of 80 tokens at position 10: logits against Model.Forward over all 90", describe(c.name, c.c)), got, lastLogits(t, m, tokens), cachedTol)
		if oracle.RaceEnabled {
			continue // allocation counts are meaningless under the race detector
		}
		if a := oracle.AllocsPerRun(3, func() {
			_ = s.Truncate(10)
			_, _ = s.Prefill(tokens[10:])
		}); a != 0 {
			t.Errorf("%s: a prefill of 80 tokens allocates %v times, want 0: the session's buffers are allocated once, by NewSession", c.name, a)
		}
	}
}
