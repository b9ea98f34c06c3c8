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

// TestC5_5_Block runs the blocks on a prompt in two parts, the second at
// pos0 over the first part's keys and values: the hidden states, keys and
// values must match those of the whole prompt at once. This is how unit07's
// cache will call Block. The long case has parts longer than a block's piece
// (64 rows), the second one starting mid-piece; the split keys and values
// are strided and filled with garbage, rows Block must write before it
// reads them.
func TestC5_5_Block(t *testing.T) {
	long := configs[1]
	long.c.MaxSeq = 160
	for _, tc := range []struct {
		n        named
		T, split int
	}{{configs[1], 37, 20}, {configs[3], 37, 20}, {long, 150, 70}} {
		c, n := tc.n.c, tc.n
		w, _ := testWeights(c, 62)
		m := newModel(t, c, w, nil)
		tokens := testTokens(63, tc.T, c.Vocab)
		whole := unit03.NewMat(len(tokens), c.Dim)
		if err := Embed(whole, w.Embed, tokens); err != nil {
			t.Fatal(err)
		}
		g := oracle.NewRand(64)
		halves := randMat(g, len(tokens), c.Dim)
		for i := range tc.T {
			copy(halves.Row(i), whole.Row(i))
		}
		keys, values := unit03.NewMat(c.MaxSeq, c.KVDim()), unit03.NewMat(c.MaxSeq, c.KVDim())
		keys2, values2 := randMat(g, c.MaxSeq, c.KVDim()), randMat(g, c.MaxSeq, c.KVDim())
		for l := range c.Layers {
			m.Block(l, whole, 0, keys, values)
			m.Block(l, halves.Block(0, tc.split, 0, c.Dim), 0, keys2, values2)
			m.Block(l, halves.Block(tc.split, len(tokens), 0, c.Dim), tc.split, keys2, values2)
		}
		what := fmt.Sprintf("%s: Block on positions 0–%d, then %d–%d at pos0 = %d, against all at once", n.name, tc.split-1, tc.split, tc.T-1, tc.split)
		tol := oracle.Tol{Atol: 1e-5, Rtol: 1e-5}
		oracle.AssertCloseShape(t, what+": hidden states", dense(halves), oracle.Float64s(whole.Data), []int{len(tokens), c.Dim}, tol)
		oracle.AssertCloseShape(t, what+": keys", dense(keys2.Block(0, tc.T, 0, c.KVDim())), oracle.Float64s(keys.Data[:tc.T*c.KVDim()]), []int{tc.T, c.KVDim()}, tol)
		oracle.AssertCloseShape(t, what+": values", dense(values2.Block(0, tc.T, 0, c.KVDim())), oracle.Float64s(values.Data[:tc.T*c.KVDim()]), []int{tc.T, c.KVDim()}, tol)
		checkPadding(t, what+": hidden states", halves)
		checkPadding(t, what+": keys", keys2)
		checkPadding(t, what+": values", values2)
	}
}

// TestC5_5_Long runs Forward over prompts longer than the 64 rows a block
// computes at once, up to exactly MaxSeq, on one and three threads: the
// logits against the oracle's. A forward pass over MaxSeq tokens is what
// NewModel sizes its scratch for; it must fit, with any pool.
func TestC5_5_Long(t *testing.T) {
	p3 := unit03.NewPool(3)
	defer p3.Close()
	for i, n := range []named{configs[1], configs[3]} {
		c := n.c
		c.MaxSeq = 128 // two whole pieces of 64
		w, o := testWeights(c, uint64(66+i))
		tokens := testTokens(uint64(68+i), c.MaxSeq, c.Vocab)
		all := oracle.LlamaForward(oracleConfig(c), o, tokens)
		for _, pool := range []*unit03.Pool{nil, p3} {
			m := newModel(t, c, w, pool)
			for _, T := range []int{100, 128} {
				logits := randMat(oracle.NewRand(2), T, c.Vocab)
				var err error
				if v, panicked := oracle.Panics(func() { err = m.Forward(logits, tokens[:T]) }); panicked {
					t.Fatalf("%s, MaxSeq %d, %d threads: Forward of %d tokens panicked: %v\n(NewModel sizes the scratch for a pass over MaxSeq tokens: every buffer of a block, for up to 64 rows, and each thread's scores)", n.name, c.MaxSeq, pool.Threads(), T, v)
				}
				if err != nil {
					t.Fatalf("%s, MaxSeq %d, %d threads: Forward of %d tokens: %v", n.name, c.MaxSeq, pool.Threads(), T, err)
				}
				what := fmt.Sprintf("Forward of %d tokens (more than a block's 64 rows), config %s with MaxSeq %d, %d threads: logits [position, token]", T, n.name, c.MaxSeq, pool.Threads())
				oracle.AssertCloseShape(t, what, dense(logits), flat(all[:T]), []int{T, c.Vocab}, logitsTol)
				checkPadding(t, what, logits)
			}
		}
	}
}

// TestC5_5_Logits checks the output layer alone: RMSNorm with OutNorm,
// then Output, row by row, on strided matrices, with x left unchanged.
func TestC5_5_Logits(t *testing.T) {
	for i, n := range []named{configs[0], configs[4]} {
		c := n.c
		w, o := testWeights(c, uint64(72+i))
		m := newModel(t, c, w, nil)
		g := oracle.NewRand(74)
		const T = 5
		x := randMat(g, T, c.Dim)
		before := dense(x)
		logits := randMat(g, T, c.Vocab)
		m.Logits(logits, x)
		var want []float64
		for r := range T {
			h := oracle.RMSNorm(oracle.Float64s(x.Row(r)), o.OutNorm, float64(c.RMSEps))
			for j := range c.Vocab {
				want = append(want, dot64(o.Output[j*c.Dim:(j+1)*c.Dim], h))
			}
		}
		what := fmt.Sprintf("Logits of %d rows, config %s: [row, token]", T, n.name)
		oracle.AssertCloseShape(t, what, dense(logits), want, []int{T, c.Vocab}, logitsTol)
		checkPadding(t, what, logits)
		for j, v := range dense(x) {
			if v != before[j] {
				t.Fatalf("%s: x[%d][%d] changed from %v to %v: normalise into scratch, x is the caller's", what, j/c.Dim, j%c.Dim, before[j], v)
			}
		}
		mustPanicIn(t, "Logits of 5 rows into 4", "Logits", func() { m.Logits(unit03.NewMat(T-1, c.Vocab), x) })
		mustPanicIn(t, "Logits of 5 rows into 6", "Logits", func() { m.Logits(unit03.NewMat(T+1, c.Vocab), x) })
		mustPanicIn(t, "Logits into rows one short of Vocab", "Logits", func() { m.Logits(unit03.NewMat(T, c.Vocab-1), x) })
		mustPanicIn(t, "Logits of an x one narrower than Dim", "Logits", func() { m.Logits(logits, x.Block(0, T, 0, c.Dim-1)) })
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
	for _, bad := range []struct {
		what   string
		logits unit03.Mat
	}{
		{"logits of 7 rows for 8 tokens", unit03.NewMat(7, c.Vocab)},
		{"logits of 9 rows for 8 tokens", unit03.NewMat(9, c.Vocab)},
		{"logits one narrower than Vocab", unit03.NewMat(8, c.Vocab-1)},
	} {
		mustPanicIn(t, "Forward into "+bad.what, "Forward", func() { _ = m.Forward(bad.logits, testTokens(2, 8, c.Vocab)) })
	}
	// Block on shapes that do not fit.
	keys, values := unit03.NewMat(c.MaxSeq, c.KVDim()), unit03.NewMat(c.MaxSeq, c.KVDim())
	x := unit03.NewMat(4, c.Dim)
	for _, bad := range []struct {
		what         string
		x            unit03.Mat
		pos0         int
		keys, values unit03.Mat
	}{
		{"x one narrower than Dim", x.Block(0, 4, 0, c.Dim-1), 0, keys, values},
		{"pos0 = −1", x, -1, keys, values},
		{"4 rows at pos0 = MaxSeq−3", x, c.MaxSeq - 3, keys, values},
		{"4 rows at pos0 = MaxSeq−3, keys and values of MaxSeq+1 rows", x, c.MaxSeq - 3, unit03.NewMat(c.MaxSeq+1, c.KVDim()), unit03.NewMat(c.MaxSeq+1, c.KVDim())},
		{"keys of 9 rows for positions 6–9", x, 6, keys.Block(0, 9, 0, c.KVDim()), values},
		{"values of 9 rows for positions 6–9", x, 6, keys, values.Block(0, 9, 0, c.KVDim())},
		{"keys one narrower than KVDim", x, 0, keys.Block(0, c.MaxSeq, 0, c.KVDim()-1), values},
		{"values one narrower than KVDim", x, 0, keys, values.Block(0, c.MaxSeq, 0, c.KVDim()-1)},
	} {
		mustPanicIn(t, "Block with "+bad.what, "Block", func() { m.Block(0, bad.x, bad.pos0, bad.keys, bad.values) })
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
	// Invalid configs whose tensor shapes are those of c: only Validate
	// can tell.
	for _, edit := range []func(c *Config){
		func(c *Config) { c.RopeBase = 0 },
		func(c *Config) { c.RMSEps = float32(math.NaN()) },
		func(c *Config) { c.Rope = 7 },
	} {
		bc := c
		edit(&bc)
		if _, err := NewModel(bc, w, nil); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("NewModel with RopeBase %v, RMSEps %v, Rope %d (weights that fit): error %v, want one wrapping unit00.ErrInvalid: validate the config first", bc.RopeBase, bc.RMSEps, int(bc.Rope), err)
		}
	}
	// A context no process could address: refused before anything is
	// allocated for it (RoPE tables alone would be 2^40·HeadDim floats).
	huge := c
	huge.MaxSeq = 1 << 40
	if m, err := NewModel(huge, w, nil); !errors.Is(err, unit00.ErrInvalid) || m != nil {
		t.Errorf("NewModel with MaxSeq 2^40: %v, error %v; want nil and an error wrapping unit00.ErrInvalid (its tables and scratch are more than a process can address)", m != nil, err)
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
