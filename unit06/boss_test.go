package unit06

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
)

// The boss "pay for k experts, not for E": a mixture of experts is only
// worth its E experts' memory if a token costs k of them. Its conditions:
// on the benchmark's layer, FeedForward of a prompt and of one token give
// the oracle's output, and a decode step allocates nothing. Its figures: a
// decode step costs at most 35% of running all 8 experts (2 of 8 is 25%),
// and a 256-token prompt grouped by expert is at least twice as fast as
// the same tokens one by one.

// bossShape is Mixtral's routing (8 experts, 2 used, renormalised) at a
// width whose experts (69 MB in float32) are more than the CPU's caches
// hold, so that reading an expert's weights costs what it costs in a real
// model.
var bossShape = moeShape{"boss", 512, 1408, 8, 2, true, 0}

func TestBoss6_PayForKNotForE(t *testing.T) {
	s := bossShape
	l := newTestLayer(s, 600)
	x, want := testTokens(l, 601, 70)
	p := unit03.NewPool(2)
	defer p.Close()
	for _, pool := range []*unit03.Pool{nil, p} {
		m := newMoE(t, l)
		out := unit03.NewMat(x.Rows, s.dim)
		m.FeedForward(pool, out, x)
		oracle.AssertCloseShape(t, fmt.Sprintf("%d threads: FeedForward of 70 rows on the boss's layer [row, column]", pool.Threads()), dense(out), want, []int{x.Rows, s.dim}, bossTol)
		one := out.Block(0, 1, 0, s.dim)
		m.FeedForward(pool, one, x.Block(5, 6, 0, s.dim))
		oracle.AssertClose(t, fmt.Sprintf("%d threads: FeedForward of row 5 alone", pool.Threads()), one.Row(0), want[5*s.dim:6*s.dim], bossTol)
		if oracle.RaceEnabled {
			continue // allocation counts are meaningless under the race detector
		}
		if n := oracle.AllocsPerRun(5, func() { m.FeedForward(pool, one, x.Block(6, 7, 0, s.dim)) }); n != 0 {
			t.Errorf("%d threads: FeedForward of one token allocates %v times, want 0: keep the scratch in the MoE", pool.Threads(), n)
		}
	}
}

// bossTol: the boss's layer is wider than the tests' (sums over 1408
// products), so a little more rounding.
var bossTol = oracle.Tol{Atol: 5e-5, Rtol: 5e-5}

func BenchmarkBoss6_PayForKNotForE(b *testing.B) {
	s := bossShape
	l := newTestLayer(s, 602)
	m, err := New(l.w)
	if err != nil {
		b.Fatal(err)
	}
	x, _ := testTokens(l, 603, 256)
	out := unit03.NewMat(x.Rows, s.dim)
	one, xone := out.Block(0, 1, 0, s.dim), x.Block(0, 1, 0, s.dim)

	// What a dense mixture costs: every expert's SwiGLU FFN on the token.
	g, u, y := make([]float32, s.ffn), make([]float32, s.ffn), make([]float32, s.dim)
	gm, um, ym := unit03.MatOf(1, s.ffn, g), unit03.MatOf(1, s.ffn, u), unit03.MatOf(1, s.dim, y)
	all := func() {
		for e := range s.experts {
			l.w.Gate[e].MulT(nil, gm, xone)
			l.w.Up[e].MulT(nil, um, xone)
			unit02.SwiGLU(g, g, u)
			l.w.Down[e].MulT(nil, ym, gm)
		}
	}
	decode := func() { m.FeedForward(nil, one, xone) }
	grouped := func() { m.FeedForward(nil, out, x) }
	perToken := func() {
		for r := range x.Rows {
			m.Token(nil, out.Row(r), x.Row(r))
		}
	}
	grouped() // the scratch grows once, outside the timings

	var vsAll, speedup, decodeUS, tokPerSec float64
	for b.Loop() {
		// Ten decode steps per timing: one is a few hundred microseconds.
		ten := func(f func()) func() {
			return func() {
				for range 10 {
					f()
				}
			}
		}
		vsAll = 100 * (1 / bosses.PairedRatio(7, ten(decode), ten(all)))
		speedup = bosses.PairedRatio(5, grouped, perToken)
		var ts, tg []float64
		for range 7 {
			ts = append(ts, bosses.Seconds(ten(decode))/10)
			tg = append(tg, bosses.Seconds(grouped))
		}
		decodeUS = bosses.Median(ts) * 1e6
		tokPerSec = float64(x.Rows) / bosses.Median(tg)
	}
	b.ReportMetric(vsAll, "decode-vs-all-%")
	b.ReportMetric(speedup, "grouped-x-per-token")
	b.ReportMetric(oracle.AllocsPerRun(20, decode), "allocs/step")
	b.ReportMetric(decodeUS, "decode-µs")
	b.ReportMetric(tokPerSec, "prefill-tok/s")
}
