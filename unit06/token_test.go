package unit06

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

func TestC6_2_New(t *testing.T) {
	for i, s := range shapes {
		l := newTestLayer(s, uint64(10+i))
		m := newMoE(t, l)
		if m.Width() != s.dim {
			t.Errorf("%s: Width() = %d, want the router's width %d", s.name, m.Width(), s.dim)
		}
		if m.Weights() != l.w {
			t.Errorf("%s: Weights() is not the *Weights New was given", s.name)
		}
		var _ unit05.FFN = m // an MoE is a unit05 feed-forward block
	}
}

func TestC6_2_NewErrors(t *testing.T) {
	s := shapes[1] // with a shared expert
	g := oracle.NewRand(3)
	mat := func(out, in int) unit05.Matrix { return unit05.NewDense(randMat(g, out, in)) }
	for _, b := range []struct {
		tensor, what string
		edit         func(w *Weights)
	}{
		{"ffn_gate_inp", "no router", func(w *Weights) { w.Router = nil }},
		{"ffn_gate_inp", "a router of no experts", func(w *Weights) { w.Router = mat(0, s.dim) }},
		{"ffn_gate_inp", "a router of no width", func(w *Weights) { w.Router = mat(s.experts, 0) }},
		{"ffn_gate_inp", "a router of MaxExperts+1 experts", func(w *Weights) { w.Router = mat(MaxExperts+1, s.dim) }},
		{"expert_used_count", "Used 0", func(w *Weights) { w.Used = 0 }},
		{"expert_used_count", "Used −1", func(w *Weights) { w.Used = -1 }},
		{"expert_used_count", "Used one more than the experts", func(w *Weights) { w.Used = s.experts + 1 }},
		{"ffn_gate_exps", "one gate matrix too few", func(w *Weights) { w.Gate = w.Gate[1:] }},
		{"ffn_gate_exps", "one up matrix too many", func(w *Weights) { w.Up = append(w.Up, w.Up[0]) }},
		{"ffn_gate_exps", "one down matrix too few", func(w *Weights) { w.Down = w.Down[:s.experts-1] }},
		{"ffn_gate_exps", "expert 0's gate missing", func(w *Weights) { w.Gate[0] = nil }},
		{"ffn_gate_exps", "expert 2's gate missing", func(w *Weights) { w.Gate[2] = nil }},
		{"ffn_gate_exps", "expert 3's gate one wider", func(w *Weights) { w.Gate[3] = mat(s.ffn, s.dim+1) }},
		{"ffn_gate_exps", "expert 5's gate one row more", func(w *Weights) { w.Gate[5] = mat(s.ffn+1, s.dim) }},
		{"ffn_up_exps", "expert 1's up one row less", func(w *Weights) { w.Up[1] = mat(s.ffn-1, s.dim) }},
		{"ffn_up_exps", "expert 4's up missing", func(w *Weights) { w.Up[4] = nil }},
		{"ffn_down_exps", "expert 2's down transposed", func(w *Weights) { w.Down[2] = mat(s.ffn, s.dim) }},
		{"ffn_down_exps", "expert 5's down one narrower", func(w *Weights) { w.Down[5] = mat(s.dim, s.ffn-1) }},
		{"ffn_gate_inp_shexp", "a shared gate input one short", func(w *Weights) { w.SharedGateInp = w.SharedGateInp[1:] }},
		{"ffn_gate_inp_shexp", "a shared expert without its gate input", func(w *Weights) { w.SharedGateInp = nil }},
		{"ffn_gate_shexp", "a shared expert without its gate", func(w *Weights) { w.SharedGate = nil }},
		{"ffn_gate_shexp", "a shared gate one wider", func(w *Weights) { w.SharedGate = mat(s.sharedFFN, s.dim+1) }},
		{"ffn_up_shexp", "a shared up one row more", func(w *Weights) { w.SharedUp = mat(s.sharedFFN+1, s.dim) }},
		{"ffn_down_shexp", "a shared down missing", func(w *Weights) { w.SharedDown = nil }},
		{"ffn_down_shexp", "a shared down transposed", func(w *Weights) { w.SharedDown = mat(s.sharedFFN, s.dim) }},
		{"ffn_gate_shexp", "a shared gate input alone", func(w *Weights) { w.SharedGate, w.SharedUp, w.SharedDown = nil, nil, nil }},
		{"ffn_gate_inp_shexp", "a shared up and down alone", func(w *Weights) { w.SharedGateInp, w.SharedGate = nil, nil }},
		{"ffn_gate_exps", "experts of no width (FFN 0)", func(w *Weights) {
			for e := range w.Gate {
				w.Gate[e], w.Up[e], w.Down[e] = mat(0, s.dim), mat(0, s.dim), mat(s.dim, 0)
			}
		}},
		{"ffn_gate_shexp", "a shared expert of no width", func(w *Weights) {
			w.SharedGate, w.SharedUp, w.SharedDown = mat(0, s.dim), mat(0, s.dim), mat(s.dim, 0)
		}},
	} {
		l := newTestLayer(s, 4)
		b.edit(l.w)
		m, err := New(l.w)
		switch {
		case err == nil:
			t.Errorf("New of weights with %s returned no error", b.what)
		case m != nil:
			t.Errorf("New of weights with %s returned a block beside its error", b.what)
		case !errors.Is(err, unit00.ErrInvalid):
			t.Errorf("New of weights with %s: %q does not wrap unit00.ErrInvalid", b.what, err)
		case !strings.Contains(err.Error(), b.tensor):
			t.Errorf("New of weights with %s: %q does not name %s", b.what, err, b.tensor)
		}
	}
	// The extremes that are valid: one expert used of one, MaxExperts
	// experts all used, and a shared expert as wide as the model.
	for _, s := range []moeShape{{"1 of 1", 4, 3, 1, 1, false, 0}, {"all of MaxExperts", 2, 1, MaxExperts, MaxExperts, true, 0}, {"shared", 5, 2, 2, 1, false, 5}, {"one wide", 1, 3, 2, 1, false, 0}} {
		if _, err := New(newTestLayer(s, 5).w); err != nil {
			t.Errorf("New of %s: %v", s.name, err)
		}
	}
}

func TestC6_2_Token(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for i, s := range shapes {
		l := newTestLayer(s, uint64(20+i))
		x, want := testTokens(l, uint64(30+i), 6)
		for _, pool := range []*unit03.Pool{nil, p} {
			m := newMoE(t, l)
			for tok := range x.Rows {
				in := append([]float32(nil), x.Row(tok)...)
				out := oracle.NewRand(uint64(tok)).Normal(s.dim, 0, 3) // garbage Token must overwrite
				m.Token(pool, out, in)
				what := fmt.Sprintf("%s, %d threads: Token of token %d", s.name, pool.Threads(), tok)
				oracle.AssertClose(t, what, out, want[tok*s.dim:(tok+1)*s.dim], moeTol)
				oracle.AssertClose(t, what+" changed its input x", in, oracle.Float64s(x.Row(tok)), oracle.Tol{})
			}
		}
	}
}

// TestC6_2_TokenSparse: a token reads the router and its k experts' three
// matrices, each once, and no other expert's.
func TestC6_2_TokenSparse(t *testing.T) {
	for i, s := range shapes {
		l := newTestLayer(s, uint64(40+i))
		router, gate, up, down := countAll(l.w)
		m := newMoE(t, l)
		x, _ := testTokens(l, uint64(50+i), 4)
		for tok := range x.Rows {
			logits := make([]float64, s.experts)
			for e := range logits {
				for j, v := range x.Row(tok) {
					logits[e] += l.o.Router[e*s.dim+j] * float64(v)
				}
			}
			chosen, _ := oracle.MoERoute(logits, s.used, false)
			before := func(cs []*counted) []int {
				var n []int
				for _, c := range cs {
					n = append(n, c.calls)
				}
				return n
			}
			g0, u0, d0, r0 := before(gate), before(up), before(down), router.calls
			m.Token(nil, make([]float32, s.dim), x.Row(tok))
			if router.calls != r0+1 {
				t.Errorf("%s: Token multiplied by the router %d times, want once", s.name, router.calls-r0)
			}
			for e := range s.experts {
				want := 0
				for _, c := range chosen {
					if c == e {
						want = 1
					}
				}
				if g, u, d := gate[e].calls-g0[e], up[e].calls-u0[e], down[e].calls-d0[e]; g != want || u != want || d != want {
					t.Errorf("%s, token %d (experts %v): Token multiplied by expert %d's gate %d, up %d and down %d times, want %d each: read only the chosen experts, once", s.name, tok, chosen, e, g, u, d, want)
				}
			}
		}
	}
}

func TestC6_2_TokenArguments(t *testing.T) {
	s := shapes[0]
	m := newMoE(t, newTestLayer(s, 6))
	mustPanic(t, "Token with x one short", func() { m.Token(nil, make([]float32, s.dim), make([]float32, s.dim-1)) })
	mustPanic(t, "Token with out one long", func() { m.Token(nil, make([]float32, s.dim+1), make([]float32, s.dim)) })
}

func TestC6_2_TokenAllocs(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	p := unit03.NewPool(2)
	defer p.Close()
	s := shapes[1]
	l := newTestLayer(s, 7)
	x, _ := testTokens(l, 8, 1)
	out := make([]float32, s.dim)
	for _, pool := range []*unit03.Pool{nil, p} {
		m := newMoE(t, l)
		if n := oracle.AllocsPerRun(10, func() { m.Token(pool, out, x.Row(0)) }); n != 0 {
			t.Errorf("%d threads: Token allocates %v times per call after the first, want 0: keep the scratch in the MoE", pool.Threads(), n)
		}
	}
}
