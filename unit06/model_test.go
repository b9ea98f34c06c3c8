package unit06

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// models are whole MoE models: Mixtral-like (GGUF llama: NORM RoPE, GQA,
// renormalised weights) and Qwen2-MoE-like (NEOX RoPE, q/k/v biases, tied
// embeddings, raw weights and a shared expert).
var models = []struct {
	name string
	c    unit05.Config
	e    Config
}{
	{"mixtral-like", unit05.Config{Dim: 48, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 12, FFN: 1, Vocab: 200, MaxSeq: 160, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm},
		Config{Experts: 4, Used: 2, FFN: 64, Renormalize: true}},
	{"qwen2moe-like", unit05.Config{Dim: 32, Layers: 3, Heads: 4, KVHeads: 1, HeadDim: 8, FFN: 1, Vocab: 150, MaxSeq: 160, RopeBase: 1000000, RMSEps: 1e-6, Rope: unit05.RopeNeox, TiedEmbeddings: true, QKVBias: true},
		Config{Experts: 6, Used: 2, FFN: 24, SharedFFN: 40}},
}

// logitsTol is unit05's budget for a whole forward pass in float32 against
// the float64 oracle.
var logitsTol = oracle.Tol{Atol: 1e-4, Rtol: 1e-4}

func TestC6_4_Validate(t *testing.T) {
	good := Config{Experts: 8, Used: 2, FFN: 16}
	if err := good.Validate(); err != nil {
		t.Fatalf("Validate of %+v: %v", good, err)
	}
	for _, e := range []Config{{Experts: 1, Used: 1, FFN: 1}, {Experts: MaxExperts, Used: MaxExperts, FFN: 1, SharedFFN: 3}} {
		if err := e.Validate(); err != nil {
			t.Errorf("Validate of %+v: %v", e, err)
		}
	}
	for _, b := range []struct {
		field string // the field and its value, as the error must name them
		e     Config
	}{
		{"Experts 0", Config{Experts: 0, Used: 1, FFN: 16}},
		{"Experts -2", Config{Experts: -2, Used: 1, FFN: 16}},
		{"Experts 513", Config{Experts: MaxExperts + 1, Used: 2, FFN: 16}},
		{"Used 0", Config{Experts: 8, Used: 0, FFN: 16}},
		{"Used 9", Config{Experts: 8, Used: 9, FFN: 16}},
		{"FFN 0", Config{Experts: 8, Used: 2, FFN: 0}},
		{"SharedFFN -1", Config{Experts: 8, Used: 2, FFN: 16, SharedFFN: -1}},
	} {
		err := b.e.Validate()
		if err == nil || !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), b.field) {
			t.Errorf("Validate of %+v: %v, want an error wrapping unit00.ErrInvalid that names the first field at fault with its value, %q", b.e, err, b.field)
		}
	}
}

// moeOf returns layer l's block, failing the test unless it is a *MoE.
func moeOf(t *testing.T, w *unit05.Weights, l int) *MoE {
	t.Helper()
	m, ok := w.Layers[l].MoE.(*MoE)
	if !ok {
		t.Fatalf("layer %d's MoE is %T, want a *MoE", l, w.Layers[l].MoE)
	}
	return m
}

// data returns the numbers of a Dense matrix, failing the test for another
// kind.
func data(t *testing.T, m unit05.Matrix) []float32 {
	t.Helper()
	d, ok := m.(*unit05.Dense)
	if !ok {
		t.Fatalf("a matrix of RandomWeights is %T, want a *unit05.Dense", m)
	}
	return dense(d.W)
}

func TestC6_4_RandomWeights(t *testing.T) {
	for _, n := range models {
		w, err := RandomWeights(n.c, n.e, 5)
		if err != nil {
			t.Fatalf("%s: RandomWeights: %v", n.name, err)
		}
		if err := w.Check(n.c); err != nil {
			t.Fatalf("%s: the weights of RandomWeights fail unit05's Check: %v", n.name, err)
		}
		for l := range w.Layers {
			if w.Layers[l].Gate != nil || w.Layers[l].Up != nil || w.Layers[l].Down != nil {
				t.Errorf("%s: layer %d has a dense feed-forward beside its MoE", n.name, l)
			}
			mw := moeOf(t, w, l).Weights()
			if mw.Used != n.e.Used || mw.Renormalize != n.e.Renormalize || len(mw.Gate) != n.e.Experts {
				t.Errorf("%s: layer %d has %d experts, %d used, renormalize %v; want %d, %d, %v", n.name, l, len(mw.Gate), mw.Used, mw.Renormalize, n.e.Experts, n.e.Used, n.e.Renormalize)
			}
			for _, m := range []struct {
				name    string
				m       unit05.Matrix
				out, in int
			}{{"router", mw.Router, n.e.Experts, n.c.Dim}, {"expert 1's gate", mw.Gate[1], n.e.FFN, n.c.Dim}, {"the last expert's up", mw.Up[n.e.Experts-1], n.e.FFN, n.c.Dim}, {"expert 0's down", mw.Down[0], n.c.Dim, n.e.FFN}} {
				if o, i := m.m.Dims(); o != m.out || i != m.in {
					t.Errorf("%s: layer %d's %s is %d×%d, want %d×%d", n.name, l, m.name, o, i, m.out, m.in)
				}
			}
			if shared := mw.SharedGateInp != nil; shared != (n.e.SharedFFN > 0) || (mw.SharedDown != nil) != shared {
				t.Errorf("%s: layer %d has a shared expert: %v, want %v", n.name, l, shared, n.e.SharedFFN > 0)
			} else if shared {
				if o, i := mw.SharedUp.Dims(); o != n.e.SharedFFN || i != n.c.Dim || len(mw.SharedGateInp) != n.c.Dim {
					t.Errorf("%s: layer %d's shared up is %d×%d and its gate input %d long, want %d×%d and %d", n.name, l, o, i, len(mw.SharedGateInp), n.e.SharedFFN, n.c.Dim, n.c.Dim)
				}
			}
		}
	}
}

// TestC6_4_RandomWeightsNarrow: the smallest shapes RandomWeights must
// draw in full: one expert of width 1, and a shared expert of width 1.
func TestC6_4_RandomWeightsNarrow(t *testing.T) {
	n := models[0]
	w, err := RandomWeights(n.c, Config{Experts: 1, Used: 1, FFN: 1, SharedFFN: 1}, 4)
	if err != nil {
		t.Fatalf("RandomWeights of one expert and a shared expert, each 1 wide: %v", err)
	}
	mw := moeOf(t, w, 1).Weights()
	if o, i := mw.Gate[0].Dims(); o != 1 || i != n.c.Dim || mw.SharedGate == nil || len(mw.SharedGateInp) != n.c.Dim {
		t.Fatalf("one expert 1 wide and a shared expert 1 wide: expert 0's gate is %d×%d, the shared gate %v: want 1×%d, and a shared expert", o, i, mw.SharedGate, n.c.Dim)
	}
	if o, i := mw.SharedDown.Dims(); o != n.c.Dim || i != 1 {
		t.Errorf("the shared down projection is %d×%d, want %d×1", o, i, n.c.Dim)
	}
}

func TestC6_4_RandomWeightsSeeded(t *testing.T) {
	n := models[1]
	w1, err1 := RandomWeights(n.c, n.e, 9)
	w2, err2 := RandomWeights(n.c, n.e, 9)
	wide := n.c
	wide.FFN = 5000 // plays no part in an MoE model
	w3, err3 := RandomWeights(wide, n.e, 9)
	w4, err4 := RandomWeights(n.c, n.e, 10)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	pick := func(w *unit05.Weights) [][]float32 {
		m1, m2 := moeOf(t, w, 2).Weights(), moeOf(t, w, 0).Weights()
		return [][]float32{data(t, w.Layers[2].Wq), data(t, m1.Router), data(t, m1.Down[3]), data(t, m2.Gate[5]), data(t, m2.SharedUp), m1.SharedGateInp}
	}
	a, b, c, d := pick(w1), pick(w2), pick(w3), pick(w4)
	for i := range a {
		if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
			t.Errorf("matrix %d differs between two calls with seed 9: the same seed must give the same weights", i)
		}
		if fmt.Sprint(a[i]) != fmt.Sprint(c[i]) {
			t.Errorf("matrix %d differs between configs of FFN 1 and 5000: c.FFN plays no part in an MoE model (draw unit05's weights with FFN 1)", i)
		}
		if fmt.Sprint(a[i]) == fmt.Sprint(d[i]) {
			t.Errorf("matrix %d is the same for seeds 9 and 10", i)
		}
	}
	// The attention is unit05's RandomWeights for the config with FFN 1.
	one := n.c
	one.FFN = 1
	dense, err := unit05.RandomWeights(one, 9)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(data(t, dense.Layers[2].Wq)) != fmt.Sprint(a[0]) || fmt.Sprint(dense.Layers[1].Bk) != fmt.Sprint(w1.Layers[1].Bk) {
		t.Errorf("layer 2's attn_q or layer 1's attn_k bias is not unit05.RandomWeights's for the config with FFN 1 and the same seed")
	}
	if fmt.Sprint(a[3]) == fmt.Sprint(data(t, moeOf(t, w1, 0).Weights().Gate[4])) {
		t.Errorf("experts 4 and 5 of layer 0 have the same gate: every matrix needs its own draw")
	}
}

// TestC6_4_RandomWeightsScale: each kind of matrix has the spread the doc
// gives it, measured over its entries.
func TestC6_4_RandomWeightsScale(t *testing.T) {
	c := unit05.Config{Dim: 256, Layers: 1, Heads: 4, KVHeads: 4, HeadDim: 64, FFN: 1, Vocab: 64, MaxSeq: 8, RopeBase: 10000, RMSEps: 1e-5}
	e := Config{Experts: 8, Used: 2, FFN: 96, SharedFFN: 64}
	w, err := RandomWeights(c, e, 3)
	if err != nil {
		t.Fatal(err)
	}
	mw := moeOf(t, w, 0).Weights()
	d := float64(c.Dim)
	for _, m := range []struct {
		name string
		x    []float32
		std  float64
	}{
		{"the router", data(t, mw.Router), 1 / math.Sqrt(d)},
		{"expert 2's gate", data(t, mw.Gate[2]), math.Sqrt(2 / d)},
		{"expert 7's up", data(t, mw.Up[7]), math.Sqrt(2 / d)},
		{"expert 0's down", data(t, mw.Down[0]), math.Sqrt(2 / (d + float64(e.FFN)))},
		{"the shared gate input", mw.SharedGateInp, 1 / math.Sqrt(d)},
		{"the shared gate", data(t, mw.SharedGate), math.Sqrt(2 / d)},
		{"the shared down", data(t, mw.SharedDown), math.Sqrt(2 / (d + float64(e.SharedFFN)))},
	} {
		n := float64(len(m.x))
		mean, sq := 0.0, 0.0
		for _, v := range m.x {
			mean += float64(v) / n
			sq += float64(v) * float64(v) / n
		}
		std := math.Sqrt(sq - mean*mean)
		// Four standard errors of each estimate.
		if math.Abs(mean) > 4*m.std/math.Sqrt(n) || math.Abs(std-m.std) > 4*m.std/math.Sqrt(2*n) {
			t.Errorf("%s: mean %.4g and std %.4g over %d entries, want 0 and %.4g", m.name, mean, std, len(m.x), m.std)
		}
	}
}

func TestC6_4_RandomWeightsErrors(t *testing.T) {
	n := models[0]
	for _, b := range []struct {
		what string // and what the error must name
		c    unit05.Config
		e    Config
	}{
		{"Used 0", n.c, Config{Experts: 4, Used: 0, FFN: 8}},
		{"FFN 0", n.c, Config{Experts: 4, Used: 2}},
		{"Dim", unit05.Config{Layers: 1, Heads: 1, KVHeads: 1, HeadDim: 2, FFN: 1, Vocab: 4, MaxSeq: 4, RopeBase: 1e4}, n.e},
	} {
		if w, err := RandomWeights(b.c, b.e, 1); err == nil || w != nil || !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), b.what) {
			t.Errorf("RandomWeights with %s: %v, want no weights and an error wrapping unit00.ErrInvalid that names %s (check e before drawing anything)", b.what, err, b.what)
		}
	}
}

// toOracle returns the oracle's copy of weights made by RandomWeights.
func toOracle(t *testing.T, c unit05.Config, w *unit05.Weights) (oracle.LlamaConfig, *oracle.LlamaWeights) {
	f := func(m unit05.Matrix) []float64 { return oracle.Float64s(data(t, m)) }
	oc := oracle.LlamaConfig{Dim: c.Dim, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		FFN: c.FFN, Vocab: c.Vocab, RopeBase: c.RopeBase, RMSEps: float64(c.RMSEps), NeoX: c.Rope == unit05.RopeNeox}
	ow := &oracle.LlamaWeights{Embed: f(w.Embed), OutNorm: oracle.Float64s(w.OutNorm)}
	if !c.TiedEmbeddings {
		ow.Output = f(w.Output)
	}
	for i := range w.Layers {
		l := &w.Layers[i]
		mw := moeOf(t, w, i).Weights()
		ol := oracle.LlamaLayer{AttnNorm: oracle.Float64s(l.AttnNorm), Wq: f(l.Wq), Wk: f(l.Wk), Wv: f(l.Wv), Wo: f(l.Wo), FFNNorm: oracle.Float64s(l.FFNNorm)}
		if c.QKVBias {
			ol.Bq, ol.Bk, ol.Bv = oracle.Float64s(l.Bq), oracle.Float64s(l.Bk), oracle.Float64s(l.Bv)
		}
		experts, _ := mw.Router.Dims()
		ffn, _ := mw.Gate[0].Dims()
		om := &oracle.MoELayer{Experts: experts, Used: mw.Used, FFN: ffn, Router: f(mw.Router), Renormalize: mw.Renormalize}
		for e := range experts {
			om.Gate, om.Up, om.Down = append(om.Gate, f(mw.Gate[e])), append(om.Up, f(mw.Up[e])), append(om.Down, f(mw.Down[e]))
		}
		if mw.SharedGateInp != nil {
			om.SharedGateInp = oracle.Float64s(mw.SharedGateInp)
			om.SharedFFN, _ = mw.SharedGate.Dims()
			om.SharedGate, om.SharedUp, om.SharedDown = f(mw.SharedGate), f(mw.SharedUp), f(mw.SharedDown)
		}
		ol.MoE = om
		ow.Layers = append(ow.Layers, ol)
	}
	return oc, ow
}

// TestC6_4_Forward: unit05's forward pass over MoE layers (your unit05 runs
// a layer's MoE in place of its dense feed-forward) gives the oracle's
// logits, for one token and for a prompt longer than a block's piece.
func TestC6_4_Forward(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for i, n := range models {
		w, err := RandomWeights(n.c, n.e, uint64(20+i))
		if err != nil {
			t.Fatal(err)
		}
		oc, ow := toOracle(t, n.c, w)
		g := oracle.NewRand(uint64(30 + i))
		for _, T := range []int{1, 130} {
			tokens := make([]int, T)
			for j := range tokens {
				tokens[j] = g.Intn(n.c.Vocab)
			}
			want := oracle.LlamaForward(oc, ow, tokens)
			var flat []float64
			for _, r := range want {
				flat = append(flat, r...)
			}
			for _, pool := range []*unit03.Pool{nil, p} {
				m, err := unit05.NewModel(n.c, w, pool)
				if err != nil {
					t.Fatalf("%s: unit05.NewModel of MoE weights: %v", n.name, err)
				}
				logits := unit03.NewMat(T, n.c.Vocab)
				if err := m.Forward(logits, tokens); err != nil {
					t.Fatalf("%s: Forward: %v", n.name, err)
				}
				oracle.AssertCloseShape(t, fmt.Sprintf("%s, %d threads: Forward over %d tokens, logits [position, token]", n.name, pool.Threads(), T), dense(logits), flat, []int{T, n.c.Vocab}, logitsTol)
			}
		}
	}
}
