package unit05

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// logitsTol is the budget of a whole forward pass in float32 against the
// float64 oracle on the test configs: logits of order 1 to 5, after up to
// three blocks of float32 products, softmaxes and norms. The reference
// uses 2–6% of it (make unit05 V=1 prints the share).
var logitsTol = oracle.Tol{Atol: 1e-4, Rtol: 1e-4}

func TestC5_5_Forward(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for i, n := range configs {
		w, o := testWeights(n.c, uint64(60+i))
		tokens := testTokens(uint64(70+i), 40, n.c.Vocab)
		want := flat(oracle.LlamaForward(oracleConfig(n.c), o, tokens))
		for _, pool := range []*unit03.Pool{nil, p} {
			m := newModel(t, n.c, w, pool)
			logits := randMat(oracle.NewRand(1), len(tokens), n.c.Vocab)
			if err := m.Forward(logits, tokens); err != nil {
				t.Fatalf("%s: Forward: %v", n.name, err)
			}
			what := fmt.Sprintf("Forward, config %s, %d threads: logits [position, token]", n.name, pool.Threads())
			oracle.AssertCloseShape(t, what, dense(logits), want, []int{len(tokens), n.c.Vocab}, logitsTol)
			checkPadding(t, what, logits)
		}
	}
}

// TestC5_5_Repeat runs Forward twice, on another prompt in between: scratch
// memory must not carry anything from one pass to the next.
func TestC5_5_Repeat(t *testing.T) {
	c := configs[3].c
	w, _ := testWeights(c, 61)
	m := newModel(t, c, w, nil)
	a, b := testTokens(1, 30, c.Vocab), testTokens(2, 50, c.Vocab)
	first, between, second := unit03.NewMat(30, c.Vocab), unit03.NewMat(50, c.Vocab), unit03.NewMat(30, c.Vocab)
	for _, run := range []struct {
		logits unit03.Mat
		tokens []int
	}{{first, a}, {between, b}, {second, a}} {
		if err := m.Forward(run.logits, run.tokens); err != nil {
			t.Fatal(err)
		}
	}
	// Many full-length passes: scratch must be given back after each one.
	long := testTokens(3, c.MaxSeq, c.Vocab)
	logits := unit03.NewMat(c.MaxSeq, c.Vocab)
	for range 10 {
		if err := m.Forward(logits, long); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Forward(second, a); err != nil {
		t.Fatal(err)
	}
	for i := range first.Data {
		if first.Data[i] != second.Data[i] {
			t.Fatalf("Forward of the same prompt gave logit %d = %v, then %v after another prompt: something from the previous pass leaked into this one", i, first.Data[i], second.Data[i])
		}
	}
}

// TestC5_5_Block runs the blocks on a prompt in two halves, the second at
// pos0 = 20 over the first half's keys and values: the hidden states must
// match those of the whole prompt at once. This is how unit07's cache will
// call Block.
func TestC5_5_Block(t *testing.T) {
	for _, n := range []named{configs[1], configs[3]} {
		c := n.c
		w, _ := testWeights(c, 62)
		m := newModel(t, c, w, nil)
		tokens := testTokens(63, 37, c.Vocab)
		whole := unit03.NewMat(len(tokens), c.Dim)
		if err := Embed(whole, w.Embed, tokens); err != nil {
			t.Fatal(err)
		}
		halves := unit03.NewMat(len(tokens), c.Dim)
		copy(halves.Data, whole.Data)
		keys, values := unit03.NewMat(c.MaxSeq, c.KVDim()), unit03.NewMat(c.MaxSeq, c.KVDim())
		keys2, values2 := unit03.NewMat(c.MaxSeq, c.KVDim()), unit03.NewMat(c.MaxSeq, c.KVDim())
		for l := range c.Layers {
			m.Block(l, whole, 0, keys, values)
			m.Block(l, halves.Block(0, 20, 0, c.Dim), 0, keys2, values2)
			m.Block(l, halves.Block(20, len(tokens), 0, c.Dim), 20, keys2, values2)
		}
		oracle.AssertCloseShape(t, fmt.Sprintf("%s: hidden states after Block on positions 0–19, then 20–36 at pos0 = 20, against all at once", n.name),
			halves.Data, oracle.Float64s(whole.Data), []int{len(tokens), c.Dim}, oracle.Tol{Atol: 1e-5, Rtol: 1e-5})
		oracle.AssertCloseShape(t, n.name+": keys written by Block in two halves, against all at once",
			keys2.Data, oracle.Float64s(keys.Data), []int{c.MaxSeq, c.KVDim()}, oracle.Tol{Atol: 1e-5, Rtol: 1e-5})
	}
}

func TestC5_5_Errors(t *testing.T) {
	c := configs[0].c
	w, _ := testWeights(c, 64)
	m := newModel(t, c, w, nil)
	for _, bad := range [][]int{nil, testTokens(1, c.MaxSeq+1, c.Vocab), {1, 2, c.Vocab}, {-3}} {
		logits := unit03.NewMat(len(bad), c.Vocab)
		if err := m.Forward(logits, bad); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Forward of %d tokens (max %d, vocabulary %d) %v: error %v, want one wrapping unit00.ErrInvalid", len(bad), c.MaxSeq, c.Vocab, short(bad), err)
		}
	}
	// The model still works after bad input.
	tokens := testTokens(2, 8, c.Vocab)
	logits := unit03.NewMat(8, c.Vocab)
	if err := m.Forward(logits, tokens); err != nil {
		t.Fatalf("Forward after rejected input: %v", err)
	}
	for _, v := range logits.Data {
		if math.IsNaN(float64(v)) || v == 0 {
			t.Fatalf("Forward after rejected input gave a logit %v", v)
		}
	}
	bc := c
	bc.KVHeads = 3
	if _, err := NewModel(bc, w, nil); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("NewModel with an invalid config: error %v, want one wrapping unit00.ErrInvalid", err)
	}
	w2, _ := testWeights(c, 65)
	w2.Layers[1].Wk = w2.Layers[1].Gate
	if _, err := NewModel(c, w2, nil); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("NewModel with weights that do not fit the config: error %v, want one wrapping unit00.ErrInvalid", err)
	}
}

func short(toks []int) string {
	if len(toks) > 4 {
		return fmt.Sprintf("%v…", toks[:4])
	}
	return fmt.Sprint(toks)
}
