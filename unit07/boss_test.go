package unit07

import (
	"fmt"
	"testing"
	"time"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// The boss "never recompute the past": a decode step costs one position's
// work. Its conditions: a step at a long context gives the full forward
// pass's logits and allocates nothing, on one thread or two. Its figures:
// a step is at least 10× faster than recomputing the whole sequence at
// context 256, and the part of a step that reads the weights costs the same
// at context 32 and 512 (only attention may grow with the context).

func TestBoss7_NeverRecomputeThePast(t *testing.T) {
	must := mustFor(t)
	p := unit03.NewPool(2)
	defer p.Close()
	c := configs[1].c
	c.MaxSeq = 300
	for _, pool := range []*unit03.Pool{nil, p} {
		m := newModel(t, c, 100, pool)
		s := NewSession(m)
		tokens := testTokens(101, 281, c.Vocab)
		must(s.Prefill(tokens[:256]))
		var got []float32
		for _, tok := range tokens[256:] {
			got = must(s.Step(tok))
		}
		oracle.AssertClose(t, fmt.Sprintf("%d threads: the logits of a decode step at position 280 against Model.Forward over all 281 tokens", pool.Threads()), got, lastLogits(t, m, tokens), cachedTol)
		if oracle.RaceEnabled {
			continue // allocation counts are meaningless under the race detector
		}
		if n := oracle.AllocsPerRun(5, func() {
			_ = s.Truncate(270)
			_, _ = s.Step(tokens[270])
		}); n != 0 {
			t.Errorf("%d threads: a decode step allocates %v times, want 0: everything a step needs is allocated once, by NewSession, NewCache and NewModel", pool.Threads(), n)
		}
	}
}

// benchConfig is a Llama-style model (GQA, 4 layers, 512 wide) with 62 MB
// of float32 weights, of which a decode step reads 54 MB (the embedding
// table only one row), more than the caches hold: a step streams them
// from memory, as a real model's does, and that cost dwarfs the noise of
// measuring attention beside it. It has room for 512 positions.
var benchConfig = unit05.Config{Dim: 512, Layers: 4, Heads: 8, KVHeads: 2, HeadDim: 64, FFN: 1408, Vocab: 4096, MaxSeq: 520,
	RopeBase: 500000, RMSEps: 1e-5, Rope: unit05.RopeNorm}

// perCall returns the time of one call of f, from a loop of n calls.
func perCall(n int, f func()) float64 {
	start := time.Now()
	for range n {
		f()
	}
	return time.Since(start).Seconds() / float64(n)
}

func BenchmarkBoss7_NeverRecomputeThePast(b *testing.B) {
	c := benchConfig
	m := newModel(b, c, 7, nil)
	s := NewSession(m)
	tokens := testTokens(8, c.MaxSeq, c.Vocab)
	if _, err := s.Prefill(tokens[:513]); err != nil {
		b.Fatal(err)
	}
	// stepAt runs the decode step of position pos. The prefill wrote the
	// keys and values of every position up to 512, and a step at pos writes
	// the same ones again (the same token at the same position), so the
	// cache can be moved to any length up to 513 and back.
	stepAt := func(pos int) func() {
		return func() {
			if s.Len() > pos {
				_ = s.Truncate(pos)
			} else {
				_ = s.Cache.Advance(pos - s.Len())
			}
			_, _ = s.Step(tokens[pos])
		}
	}
	logits := unit03.NewMat(257, c.Vocab)
	recompute := func() { _ = m.Forward(logits, tokens[:257]) }

	// The attention of one step at a position, alone: the part of a step
	// that must grow with the context.
	q, out := unit03.NewMat(1, c.QDim()), unit03.NewMat(1, c.QDim())
	scores := make([]float32, c.MaxSeq)
	attentionAt := func(pos int) func() {
		return func() {
			for l := range c.Layers {
				k, v := s.Cache.Keys(l), s.Cache.Values(l)
				unit05.Attention(out, q, k.Block(0, pos+1, 0, k.Cols), v.Block(0, pos+1, 0, v.Cols), c.Heads, c.KVHeads, pos, scores)
			}
		}
	}

	// timed returns the time of one call of f.
	timed := func(f func()) float64 {
		t0 := time.Now()
		f()
		return time.Since(t0).Seconds()
	}

	var speedup, growth, tokPerSec float64
	for b.Loop() {
		speedup = bosses.PairedRatio(7, stepAt(256), recompute)
		var growths, t256 []float64
		for range 7 {
			// One round: 10 steps at each position, interleaved so that a
			// change in the machine's speed during the round falls on both
			// alike, each followed by its attention alone. Timed right
			// after a step, the attention finds the cached keys and values
			// where a step leaves them: out of the CPU's caches, pushed
			// out by 54 MB of weights. Timed back to back instead, it would
			// find them warm, come out cheaper than it is inside a step,
			// and the difference, which grows with the context, would be
			// charged to the weights.
			var step32, step512, att32, att512 float64
			for range 10 {
				step32 += timed(stepAt(32))
				att32 += timed(attentionAt(32))
				step512 += timed(stepAt(512))
				att512 += timed(attentionAt(512))
			}
			growths = append(growths, (step512-att512)/(step32-att32))
			t256 = append(t256, perCall(10, stepAt(256)))
		}
		growth = bosses.Median(growths)
		tokPerSec = 1 / bosses.Median(t256)
	}
	b.ReportMetric(speedup, "x-recompute")
	b.ReportMetric(growth, "weights-growth")
	b.ReportMetric(tokPerSec, "decode-tok/s")
	b.ReportMetric(oracle.AllocsPerRun(20, stepAt(300)), "allocs/step")
}
