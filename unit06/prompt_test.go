package unit06

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// rowCounts are prompt lengths: one row, a few, and more than a block of
// unit05's forward pass (64 rows) gives an MoE at once.
var rowCounts = []int{1, 2, 7, 64, 131}

func TestC6_3_FeedForward(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for i, s := range shapes {
		l := newTestLayer(s, uint64(60+i))
		for _, T := range rowCounts {
			x, want := testTokens(l, uint64(70+T), T)
			for _, pool := range []*unit03.Pool{nil, p} {
				m := newMoE(t, l)
				out := randMat(oracle.NewRand(uint64(T)), T, s.dim) // garbage to overwrite, padded
				before := dense(x)
				m.FeedForward(pool, out, x)
				what := fmt.Sprintf("%s, %d threads: FeedForward of %d rows [row, column]", s.name, pool.Threads(), T)
				oracle.AssertCloseShape(t, what, dense(out), want, []int{T, s.dim}, moeTol)
				checkPadding(t, what, out)
				oracle.AssertClose(t, what+" changed its input x", dense(x), oracle.Float64s(before), oracle.Tol{})
			}
		}
	}
}

// TestC6_3_Grouped: a prompt runs each expert once, over all the rows
// routed to it (one matrix product per expert), and the router once.
func TestC6_3_Grouped(t *testing.T) {
	for i, s := range shapes {
		l := newTestLayer(s, uint64(80+i))
		router, gate, up, down := countAll(l.w)
		m := newMoE(t, l)
		const T = 40
		x, _ := testTokens(l, uint64(90+i), T)
		rows := make([]int, s.experts) // the oracle's rows per expert
		for tok := range T {
			logits := make([]float64, s.experts)
			for e := range logits {
				for j, v := range x.Row(tok) {
					logits[e] += l.o.Router[e*s.dim+j] * float64(v)
				}
			}
			chosen, _ := oracle.MoERoute(logits, s.used, false)
			for _, e := range chosen {
				rows[e]++
			}
		}
		m.FeedForward(nil, unit03.NewMat(T, s.dim), x)
		if router.calls != 1 || router.rows != T {
			t.Errorf("%s: FeedForward of %d rows multiplied by the router %d times over %d rows, want once over all %d", s.name, T, router.calls, router.rows, T)
		}
		for e := range s.experts {
			calls := min(rows[e], 1)
			for _, c := range []struct {
				name string
				c    *counted
			}{{"gate", gate[e]}, {"up", up[e]}, {"down", down[e]}} {
				if c.c.calls != calls || c.c.rows != rows[e] {
					t.Errorf("%s: expert %d's %s multiplied %d times over %d rows, want %d time(s) over the %d rows routed to it: group the rows by expert, one product each", s.name, e, c.name, c.c.calls, c.c.rows, calls, rows[e])
				}
			}
		}
	}
}

// TestC6_3_OneExpertForAll: every row routed to the same expert, and
// experts that get no row at all.
func TestC6_3_OneExpertForAll(t *testing.T) {
	s := moeShape{"one-hot", 16, 20, 6, 1, true, 0}
	l := newTestLayer(s, 11)
	// Expert 4's router row is all ones, the others zeros: for inputs of
	// positive entries expert 4 is far ahead.
	router := randMat(oracle.NewRand(1), s.experts, s.dim)
	for e := range s.experts {
		for j := range s.dim {
			v := float32(0)
			if e == 4 {
				v = 1
			}
			router.Data[e*router.Stride+j] = v
			l.o.Router[e*s.dim+j] = float64(v)
		}
	}
	l.w.Router = unit05.NewDense(router)
	g := oracle.NewRand(12)
	x := randMat(g, 9, s.dim)
	var want []float64
	for r := range x.Rows {
		for j := range s.dim {
			x.Data[r*x.Stride+j] = 0.5 + float32(g.Float64())
		}
		want = append(want, oracle.MoE(l.o, oracle.Float64s(x.Row(r)))...)
	}
	out := randMat(g, x.Rows, s.dim)
	newMoE(t, l).FeedForward(nil, out, x)
	oracle.AssertCloseShape(t, "FeedForward of 9 rows that all choose expert 4 [row, column]", dense(out), want, []int{9, s.dim}, moeTol)
}

// TestC6_3_MatchesToken: a prompt's rows get what Token gives each alone.
func TestC6_3_MatchesToken(t *testing.T) {
	s := shapes[4]
	l := newTestLayer(s, 13)
	x, _ := testTokens(l, 14, 20)
	m := newMoE(t, l)
	out := unit03.NewMat(x.Rows, s.dim)
	m.FeedForward(nil, out, x)
	one := make([]float32, s.dim)
	for r := range x.Rows {
		m.Token(nil, one, x.Row(r))
		oracle.AssertClose(t, fmt.Sprintf("FeedForward's row %d against Token of that row", r), out.Row(r), oracle.Float64s(one), oracle.Tol{Atol: 1e-6, Rtol: 1e-5})
	}
}

// TestC6_3_Reuse: the block's scratch carries nothing from one call to the
// next, whether it grows or shrinks in between.
func TestC6_3_Reuse(t *testing.T) {
	s := shapes[1]
	l := newTestLayer(s, 15)
	m := newMoE(t, l)
	for i, T := range []int{3, 100, 2, 1, 100, 65} {
		x, want := testTokens(l, uint64(100+i), T)
		out := unit03.NewMat(T, s.dim)
		m.FeedForward(nil, out, x)
		oracle.AssertCloseShape(t, fmt.Sprintf("call %d, %d rows, after calls of other sizes [row, column]", i, T), dense(out), want, []int{T, s.dim}, moeTol)
	}
}

func TestC6_3_FeedForwardArguments(t *testing.T) {
	s := shapes[0]
	m := newMoE(t, newTestLayer(s, 16))
	mustPanic(t, "FeedForward with x one column short", func() { m.FeedForward(nil, unit03.NewMat(3, s.dim), unit03.NewMat(3, s.dim-1)) })
	mustPanic(t, "FeedForward with out one column long", func() { m.FeedForward(nil, unit03.NewMat(3, s.dim+1), unit03.NewMat(3, s.dim)) })
	mustPanic(t, "FeedForward with out one row short", func() { m.FeedForward(nil, unit03.NewMat(2, s.dim), unit03.NewMat(3, s.dim)) })
	mustPanic(t, "FeedForward with out one row long", func() { m.FeedForward(nil, unit03.NewMat(4, s.dim), unit03.NewMat(3, s.dim)) })
	// No rows is a valid call that does nothing, before the first call
	// with rows and after one.
	for range 2 {
		if v, panicked := oracle.Panics(func() { m.FeedForward(nil, unit03.NewMat(0, s.dim), unit03.NewMat(0, s.dim)) }); panicked {
			t.Fatalf("FeedForward of no rows panicked: %v; no rows is nothing to compute", v)
		}
		m.FeedForward(nil, unit03.NewMat(2, s.dim), unit03.NewMat(2, s.dim))
	}
}

func TestC6_3_Allocs(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	p := unit03.NewPool(2)
	defer p.Close()
	s := shapes[1]
	l := newTestLayer(s, 17)
	x, _ := testTokens(l, 18, 64)
	out := unit03.NewMat(64, s.dim)
	for _, pool := range []*unit03.Pool{nil, p} {
		m := newMoE(t, l)
		m.FeedForward(pool, out, x) // the largest call first: the scratch grows once
		for _, T := range []int{64, 9, 1} {
			if n := oracle.AllocsPerRun(5, func() { m.FeedForward(pool, out.Block(0, T, 0, s.dim), x.Block(0, T, 0, s.dim)) }); n != 0 {
				t.Errorf("%d threads: FeedForward of %d rows allocates %v times after a call of 64, want 0: reuse the scratch", pool.Threads(), T, n)
			}
		}
	}
}
