package unit05

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// rowAttender is an Attender that runs Attention, the row road, and
// records how it was called: the stand-in for unit08's flash attention,
// so that the hook in Block can be tested here.
type rowAttender struct {
	heads, kvHeads int
	pool           *unit03.Pool // the pool every call must get
	calls          []string     // "T@pos0" of each call
	bad            string
}

func (a *rowAttender) Attend(p *unit03.Pool, out, q, k, v unit03.Mat, heads, kvHeads, pos0 int) {
	T := q.Rows
	a.calls = append(a.calls, fmt.Sprintf("%d@%d", T, pos0))
	switch {
	case p != a.pool:
		a.bad = "Attend got another pool than the model's"
	case heads != a.heads || kvHeads != a.kvHeads:
		a.bad = fmt.Sprintf("Attend got %d heads and %d KV heads, want the config's %d and %d", heads, kvHeads, a.heads, a.kvHeads)
	case k.Rows != pos0+T || v.Rows != pos0+T:
		a.bad = fmt.Sprintf("Attend at pos0 %d got %d query rows and k, v of %d and %d rows, want exactly pos0+T = %d", pos0, T, k.Rows, v.Rows, pos0+T)
	}
	Attention(out, q, k, v, heads, kvHeads, pos0, make([]float32, pos0+T))
}

// TestC5_5_AttentionHook: a model whose Attention is set runs it for every
// block's attention, on every piece of a prompt, with the keys and values
// of exactly the positions the piece sees, and uses what it writes: the
// logits must match the float64 oracle as the model's own roads do.
func TestC5_5_AttentionHook(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := configs[1].c
	c.MaxSeq = 150
	w, o := testWeights(c, 83)
	tokens := testTokens(84, 130, c.Vocab) // longer than a block's piece of 64 rows
	want := flat(oracle.LlamaForward(oracleConfig(c), o, tokens))
	for _, pool := range []*unit03.Pool{nil, p} {
		m := newModel(t, c, w, pool)
		a := &rowAttender{heads: c.Heads, kvHeads: c.KVHeads, pool: pool}
		m.Attention = a
		got := randMat(oracle.NewRand(2), len(tokens), c.Vocab)
		if err := m.Forward(got, tokens); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%d threads: Forward with Model.Attention set to the row road", pool.Threads())
		oracle.AssertCloseShape(t, what, dense(got), want, []int{len(tokens), c.Vocab}, logitsTol)
		var wantCalls []string
		for range c.Layers {
			wantCalls = append(wantCalls, "64@0", "64@64", "2@128")
		}
		if fmt.Sprint(a.calls) != fmt.Sprint(wantCalls) || a.bad != "" {
			t.Errorf("%s: Attend was called as %v (rows@pos0), want %v: once per layer and piece of at most 64 rows; %s", what, a.calls, wantCalls, a.bad)
		}
	}
}
