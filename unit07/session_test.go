package unit07

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/stretchr/testify/require"
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

// f32Store is a unit05.KVStore that keeps float32 rows per layer and
// attends with unit05.Attention: the stand-in for unit08's F16 and Q8_0
// caches.
type f32Store struct {
	k, v []unit03.Mat
	puts int
}

func newF32Store(c unit05.Config) *f32Store {
	s := &f32Store{}
	for range c.Layers {
		s.k = append(s.k, unit03.NewMat(c.MaxSeq, c.KVDim()))
		s.v = append(s.v, unit03.NewMat(c.MaxSeq, c.KVDim()))
	}
	return s
}

func (s *f32Store) Put(l, pos0 int, k, v unit03.Mat) {
	s.puts++
	for t := range k.Rows {
		copy(s.k[l].Row(pos0+t), k.Row(t))
		copy(s.v[l].Row(pos0+t), v.Row(t))
	}
}

func (s *f32Store) Attend(_ *unit03.Pool, out, q unit03.Mat, l, heads, kvHeads, pos0 int) {
	S := pos0 + q.Rows
	unit05.Attention(out, q, s.k[l].Block(0, S, 0, s.k[l].Cols), s.v[l].Block(0, S, 0, s.v[l].Cols), heads, kvHeads, pos0, make([]float32, S))
}

// TestC7_2_Store: over a model whose Store keeps the keys and values, a
// session's cache holds no rows (Bytes 0, Cap MaxSeq) and counts the
// positions; a prefill, decode steps and a Truncate give the logits of a
// full forward pass.
func TestC7_2_Store(t *testing.T) {
	must := mustFor(t)
	n := configs[1]
	m := newModel(t, n.c, 36, nil)
	tokens := testTokens(37, 14, n.c.Vocab)
	want := make([][]float64, len(tokens)+1)
	for j := 1; j <= len(tokens); j++ {
		want[j] = lastLogits(t, m, tokens[:j])
	}
	store := newF32Store(n.c)
	m.Store = store
	s := NewSession(m)
	if s.Cache.Bytes() != 0 || s.Cache.Cap() != n.c.MaxSeq {
		t.Fatalf("%s: NewSession over a model with a Store: cache of %d bytes and %d positions, want 0 bytes (the store holds the rows) and MaxSeq = %d", n.name, s.Cache.Bytes(), s.Cache.Cap(), n.c.MaxSeq)
	}
	got := must(s.Prefill(tokens[:9]))
	oracle.AssertClose(t, n.name+": Prefill of 9 tokens with a Store", got, want[9], cachedTol)
	for j := 9; j < 12; j++ {
		got = must(s.Step(tokens[j]))
		oracle.AssertClose(t, fmt.Sprintf("%s: Step at position %d with a Store", n.name, j), got, want[j+1], cachedTol)
	}
	require.NoError(t, s.Truncate(10))
	got = must(s.Prefill(tokens[10:]))
	oracle.AssertClose(t, n.name+": Prefill after Truncate(10) with a Store", got, want[len(tokens)], cachedTol)
	if s.Len() != len(tokens) || store.puts == 0 {
		t.Errorf("%s: after %d tokens Len() = %d and the store got %d Puts", n.name, len(tokens), s.Len(), store.puts)
	}
}
