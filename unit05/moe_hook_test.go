package unit05

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// wrappedFFN is an FFN that runs a dense SwiGLU block through FeedForward
// and records how it was called: the stand-in for unit06's mixture of
// experts, so that the hook in Block and Check can be tested here.
type wrappedFFN struct {
	layer Layer // Gate, Up and Down of the dense block it wraps
	width int
	ffn   int
	pool  *unit03.Pool // the pool every call must get
	calls int
	rows  []int // rows of each call
	bad   string
}

func (f *wrappedFFN) Width() int { return f.width }

func (f *wrappedFFN) FeedForward(p *unit03.Pool, out, x unit03.Mat) {
	f.calls++
	f.rows = append(f.rows, x.Rows)
	if p != f.pool {
		f.bad = "FeedForward got another pool than the model's"
	}
	if x.Cols != f.width || out.Cols != f.width || out.Rows != x.Rows {
		f.bad = fmt.Sprintf("FeedForward got x %d×%d and out %d×%d, want both T × %d", x.Rows, x.Cols, out.Rows, out.Cols, f.width)
	}
	FeedForward(p, out, x, &f.layer, unit03.NewMat(x.Rows, f.ffn), unit03.NewMat(x.Rows, f.ffn))
}

// withMoE moves the dense feed-forward of every layer of w into a
// wrappedFFN, and returns them.
func withMoE(w *Weights, c Config, p *unit03.Pool) []*wrappedFFN {
	var fs []*wrappedFFN
	for i := range w.Layers {
		l := &w.Layers[i]
		f := &wrappedFFN{layer: Layer{Gate: l.Gate, Up: l.Up, Down: l.Down}, width: c.Dim, ffn: c.FFN, pool: p}
		l.MoE, l.Gate, l.Up, l.Down = f, nil, nil, nil
		fs = append(fs, f)
	}
	return fs
}

// TestC5_5_MoEHook: a layer whose MoE is set runs it in place of its dense
// feed-forward, on the normalised rows, and adds its output to the
// residual. Wrapping the same dense block, it must give the dense model's
// logits exactly, on every piece of a long prompt.
func TestC5_5_MoEHook(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := configs[1].c
	c.MaxSeq = 150
	tokens := testTokens(81, 130, c.Vocab) // longer than a block's piece of 64 rows
	for _, pool := range []*unit03.Pool{nil, p} {
		w, _ := testWeights(c, 80)
		want := randMat(oracle.NewRand(1), len(tokens), c.Vocab)
		if err := newModel(t, c, w, pool).Forward(want, tokens); err != nil {
			t.Fatal(err)
		}
		fs := withMoE(w, c, pool)
		m, err := NewModel(c, w, pool)
		if err != nil {
			t.Fatalf("NewModel of weights whose layers have an MoE block and no Gate, Up or Down: %v", err)
		}
		got := randMat(oracle.NewRand(2), len(tokens), c.Vocab)
		if err := m.Forward(got, tokens); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%d threads: Forward with every layer's feed-forward in its MoE block, against the dense model with the same weights", pool.Threads())
		oracle.AssertClose(t, what, dense(got), oracle.Float64s(dense(want)), oracle.Tol{})
		for l, f := range fs {
			rows := 0
			for _, r := range f.rows {
				rows += r
			}
			if rows != len(tokens) || f.bad != "" {
				t.Errorf("%d threads: layer %d's MoE block saw %d rows in %d calls (%v), want all %d tokens' rows once; %s", pool.Threads(), l, rows, f.calls, f.rows, len(tokens), f.bad)
			}
		}
	}
}

// TestC5_1_CheckMoE: Check accepts a layer with an MoE block of the model's
// width and no dense feed-forward, and names what is wrong otherwise.
func TestC5_1_CheckMoE(t *testing.T) {
	c := configs[0].c
	fresh := func() *Weights {
		w, _ := testWeights(c, 82)
		withMoE(w, c, nil)
		return w
	}
	if err := fresh().Check(c); err != nil {
		t.Fatalf("Check of MoE layers without Gate, Up and Down: %v", err)
	}
	g := oracle.NewRand(3)
	other := func(out, in int) Matrix { return &Dense{W: randMat(g, out, in)} }
	for _, b := range []struct {
		tensor, what string
		edit         func(w *Weights)
	}{
		{"blk.1.ffn_gate_inp", "an MoE block one wider than the model", func(w *Weights) { w.Layers[1].MoE.(*wrappedFFN).width = c.Dim + 1 }},
		{"blk.0.ffn_gate_inp", "an MoE block one narrower than the model", func(w *Weights) { w.Layers[0].MoE.(*wrappedFFN).width = c.Dim - 1 }},
		{"blk.0.ffn_gate", "an MoE block and a dense ffn_gate", func(w *Weights) { w.Layers[0].Gate = other(c.FFN, c.Dim) }},
		{"blk.1.ffn_gate", "an MoE block and a dense ffn_up", func(w *Weights) { w.Layers[1].Up = other(c.FFN, c.Dim) }},
		{"blk.0.ffn_gate", "an MoE block and a dense ffn_down", func(w *Weights) { w.Layers[0].Down = other(c.Dim, c.FFN) }},
		{"blk.1.ffn_norm", "an MoE layer without its ffn_norm", func(w *Weights) { w.Layers[1].FFNNorm = nil }},
	} {
		w := fresh()
		b.edit(w)
		err := w.Check(c)
		if err == nil || !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), b.tensor) {
			t.Errorf("Check of %s: %v, want an error wrapping unit00.ErrInvalid that names %s", b.what, err, b.tensor)
		}
	}
}
