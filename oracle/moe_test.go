package oracle

import (
	"math"
	"testing"
)

// The MoE reference is checked by hand-computed routes, a one-wide block
// written out with math.Exp, and the property that a one-expert mixture is
// the dense feed-forward it replaces.

func TestMoERouteByHand(t *testing.T) {
	// Probabilities 1:3:2:6 out of 12.
	logits := []float64{0, math.Log(3), math.Log(2), math.Log(6)}
	for _, tc := range []struct {
		k       int
		renorm  bool
		experts []int
		weights []float64
	}{
		{1, false, []int{3}, []float64{0.5}},
		{1, true, []int{3}, []float64{1}},
		{2, false, []int{3, 1}, []float64{0.5, 0.25}},
		{2, true, []int{3, 1}, []float64{2.0 / 3, 1.0 / 3}},
		{4, false, []int{3, 1, 2, 0}, []float64{0.5, 0.25, 2.0 / 12, 1.0 / 12}},
	} {
		experts, weights := MoERoute(logits, tc.k, tc.renorm)
		for s := range tc.experts {
			if experts[s] != tc.experts[s] || !near(weights[s], tc.weights[s], 1e-15) {
				t.Fatalf("k %d renorm %v: slot %d is expert %d weight %g, want %d weight %g", tc.k, tc.renorm, s, experts[s], weights[s], tc.experts[s], tc.weights[s])
			}
		}
		if len(experts) != tc.k || len(weights) != tc.k {
			t.Fatalf("k %d: %d experts and %d weights", tc.k, len(experts), len(weights))
		}
	}
	// Ties go to the lower index.
	experts, _ := MoERoute([]float64{2, 5, 5, 2, 5}, 3, false)
	if experts[0] != 1 || experts[1] != 2 || experts[2] != 4 {
		t.Fatalf("tied experts chosen in the order %v, want [1 2 4]", experts)
	}
	for _, k := range []int{0, 5} {
		if _, ok := Panics(func() { MoERoute(logits, k, false) }); !ok {
			t.Errorf("k = %d of 4 experts did not panic", k)
		}
	}
}

func TestMoEOneWideByHand(t *testing.T) {
	// Dim 1, FFN 1: expert e computes d_e·SiLU(g_e·x)·(u_e·x).
	silu := func(z float64) float64 { return z / (1 + math.Exp(-z)) }
	m := &MoELayer{Experts: 3, Used: 2, FFN: 1,
		Router: []float64{0.5, -1, 2}, // logits 1.5, −3, 6 at x = 3
		Gate:   [][]float64{{1}, {2}, {-1}},
		Up:     [][]float64{{0.5}, {1}, {2}},
		Down:   [][]float64{{2}, {3}, {0.25}},
	}
	x := 3.0
	z := math.Exp(1.5) + math.Exp(-3) + math.Exp(6)
	p0, p2 := math.Exp(1.5)/z, math.Exp(6)/z
	e0 := 2 * silu(1*x) * (0.5 * x)
	e2 := 0.25 * silu(-1*x) * (2 * x)
	want := p2*e2 + p0*e0
	if got := MoE(m, []float64{x}); !near(got[0], want, 1e-15) {
		t.Fatalf("MoE = %.17g, want %.17g", got[0], want)
	}
	m.Renormalize = true
	if got := MoE(m, []float64{x}); !near(got[0], (p2*e2+p0*e0)/(p0+p2), 1e-15) {
		t.Fatalf("renormalised MoE = %.17g, want %.17g", got[0], (p2*e2+p0*e0)/(p0+p2))
	}
	// A shared expert with gate input 0.5: σ(1.5) times its FFN.
	m.SharedGateInp, m.SharedFFN = []float64{0.5}, 1
	m.SharedGate, m.SharedUp, m.SharedDown = []float64{1}, []float64{1}, []float64{-1}
	shared := 1 / (1 + math.Exp(-1.5)) * -1 * silu(x) * x
	if got := MoE(m, []float64{x}); !near(got[0], (p2*e2+p0*e0)/(p0+p2)+shared, 1e-15) {
		t.Fatalf("MoE with a shared expert = %.17g, want %.17g", got[0], (p2*e2+p0*e0)/(p0+p2)+shared)
	}
}

func TestMoEOneExpertIsDense(t *testing.T) {
	g := NewRand(9)
	c := LlamaConfig{Dim: 8, Layers: 2, Heads: 2, KVHeads: 1, HeadDim: 4, FFN: 12, Vocab: 20, RopeBase: 10000, RMSEps: 1e-5}
	w := &LlamaWeights{Embed: normal(g, c.Vocab*c.Dim, 1), OutNorm: normal(g, c.Dim, 1)}
	for range c.Layers {
		w.Layers = append(w.Layers, LlamaLayer{
			AttnNorm: normal(g, c.Dim, 1), Wq: normal(g, 8*8, 0.3), Wk: normal(g, 4*8, 0.3), Wv: normal(g, 4*8, 0.3),
			Wo: normal(g, 8*8, 0.3), FFNNorm: normal(g, c.Dim, 1),
			Wgate: normal(g, 12*8, 0.3), Wup: normal(g, 12*8, 0.3), Wdown: normal(g, 8*12, 0.3),
		})
	}
	tokens := []int{3, 1, 4, 1, 5}
	dense := LlamaForward(c, w, tokens)
	for i := range w.Layers {
		l := &w.Layers[i]
		l.MoE = &MoELayer{Experts: 1, Used: 1, FFN: c.FFN, Router: normal(g, c.Dim, 1),
			Gate: [][]float64{l.Wgate}, Up: [][]float64{l.Wup}, Down: [][]float64{l.Wdown}, Renormalize: true}
		l.Wgate, l.Wup, l.Wdown = nil, nil, nil
	}
	moe := LlamaForward(c, w, tokens)
	for tok := range dense {
		assertNear(t, "a one-expert mixture against the dense forward pass", moe[tok], dense[tok], 1e-14)
	}
}
