package unit08

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
)

// models are small Llama-family models with contexts long enough for
// several blocks of keys and decode steps split over two threads.
var models = []struct {
	name string
	c    unit05.Config
}{
	{"gqa-llama3", unit05.Config{Dim: 48, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 8, FFN: 96, Vocab: 200, MaxSeq: 560, RopeBase: 500000, RMSEps: 1e-5, Rope: unit05.RopeNorm}},
	{"mqa-qwen2", unit05.Config{Dim: 32, Layers: 2, Heads: 4, KVHeads: 1, HeadDim: 12, FFN: 64, Vocab: 150, MaxSeq: 560, RopeBase: 1000000, RMSEps: 1e-6, Rope: unit05.RopeNeox, TiedEmbeddings: true, QKVBias: true}},
}

// logitsTol is unit05's budget for a whole forward pass in float32 against
// the float64 oracle.
var logitsTol = oracle.Tol{Atol: 1e-4, Rtol: 1e-4}

// newModel builds a seeded model and the oracle's copy of its weights.
func newModel(t testing.TB, c unit05.Config, seed uint64, p *unit03.Pool) (*unit05.Model, *oracle.LlamaWeights) {
	t.Helper()
	w, err := unit05.RandomWeights(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := unit05.NewModel(c, w, p)
	if err != nil {
		t.Fatal(err)
	}
	return m, oracleWeights(w, c.TiedEmbeddings)
}

// oracleWeights copies a model's Dense weights for the float64 oracle.
func oracleWeights(w *unit05.Weights, tied bool) *oracle.LlamaWeights {
	mat := func(m unit05.Matrix) []float64 { return oracle.Float64s(dense(m.(*unit05.Dense).W)) }
	o := &oracle.LlamaWeights{Embed: mat(w.Embed), OutNorm: oracle.Float64s(w.OutNorm)}
	if !tied {
		o.Output = mat(w.Output)
	}
	for _, l := range w.Layers {
		ol := oracle.LlamaLayer{AttnNorm: oracle.Float64s(l.AttnNorm), Wq: mat(l.Wq), Wk: mat(l.Wk), Wv: mat(l.Wv), Wo: mat(l.Wo),
			FFNNorm: oracle.Float64s(l.FFNNorm), Wgate: mat(l.Gate), Wup: mat(l.Up), Wdown: mat(l.Down)}
		if l.Bq != nil {
			ol.Bq, ol.Bk, ol.Bv = oracle.Float64s(l.Bq), oracle.Float64s(l.Bk), oracle.Float64s(l.Bv)
		}
		o.Layers = append(o.Layers, ol)
	}
	return o
}

func oracleConfig(c unit05.Config) oracle.LlamaConfig {
	return oracle.LlamaConfig{Dim: c.Dim, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		FFN: c.FFN, Vocab: c.Vocab, RopeBase: c.RopeBase, RMSEps: float64(c.RMSEps), NeoX: c.Rope == unit05.RopeNeox}
}

func testTokens(seed uint64, n, vocab int) []int {
	g := oracle.NewRand(seed)
	toks := make([]int, n)
	for i := range toks {
		toks[i] = g.Intn(vocab)
	}
	return toks
}

// TestC8_4_Use: Use makes a Flash for the model's heads and pool and sets
// it as the model's attention; a whole prompt's logits (pieces of 64 rows,
// keys in several blocks) match the oracle.
func TestC8_4_Use(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for i, n := range models {
		tokens := testTokens(uint64(300+i), 300, n.c.Vocab)
		var want []float64
		for _, pool := range []*unit03.Pool{nil, p} {
			m, o := newModel(t, n.c, uint64(310+i), pool)
			if want == nil {
				for _, row := range oracle.LlamaForward(oracleConfig(n.c), o, tokens) {
					want = append(want, row...)
				}
			}
			f, err := Use(m)
			if err != nil {
				t.Fatalf("%s: Use: %v", n.name, err)
			}
			if m.Attention != f {
				t.Fatalf("%s: after Use, the model's Attention is %v, want the Flash Use returned", n.name, m.Attention)
			}
			if f2 := newFlash(t, n.c.Heads, n.c.KVHeads, n.c.HeadDim, pool.Threads()); f.Bytes() != f2.Bytes() {
				t.Errorf("%s, %d threads: Use made a Flash of %d bytes, want New(heads, kvHeads, headDim, threads)'s %d: a worker per thread of the model's pool", n.name, pool.Threads(), f.Bytes(), f2.Bytes())
			}
			logits := unit03.NewMat(len(tokens), n.c.Vocab)
			if err := m.Forward(logits, tokens); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s, %d threads: Forward of %d tokens with flash attention", n.name, pool.Threads(), len(tokens))
			oracle.AssertCloseShape(t, what, dense(logits), want, []int{len(tokens), n.c.Vocab}, logitsTol)
		}
	}
}

// TestC8_4_Session: a unit07 session over a model that uses flash
// attention: a prompt in chunks, then decode steps at positions where two
// threads split the keys, each step's logits against the oracle's row.
func TestC8_4_Session(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	n := models[0]
	tokens := testTokens(320, 530, n.c.Vocab)
	m, o := newModel(t, n.c, 321, p)
	all := oracle.LlamaForward(oracleConfig(n.c), o, tokens)
	if _, err := Use(m); err != nil {
		t.Fatal(err)
	}
	s := unit07.NewSession(m)
	const prompt = 515
	got, err := s.PrefillChunked(tokens[:prompt], 200)
	if err != nil {
		t.Fatal(err)
	}
	oracle.AssertClose(t, fmt.Sprintf("the last logits of a %d-token prompt in chunks of 200", prompt), got, all[prompt-1], logitsTol)
	for i := prompt; i < len(tokens); i++ {
		got, err := s.Step(tokens[i])
		if err != nil {
			t.Fatal(err)
		}
		if !oracle.AssertClose(t, fmt.Sprintf("decode step at position %d (2 threads)", i), got, all[i], logitsTol) {
			break
		}
	}
	if n := oracle.AllocsPerRun(3, func() {
		if err := s.Truncate(prompt); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Step(tokens[prompt]); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("a decode step with flash attention allocates %v times, want 0", n)
	}
}

// TestC8_4_UseError: a pool with more threads than a Flash may have is an
// error wrapping unit00.ErrInvalid, and the model keeps its own attention.
func TestC8_4_UseError(t *testing.T) {
	p := unit03.NewPool(MaxThreads + 1)
	defer p.Close()
	m, _ := newModel(t, models[1].c, 330, p)
	f, err := Use(m)
	if f != nil || !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Use on a pool of %d threads: %v, %v; want nil and an error wrapping unit00.ErrInvalid", MaxThreads+1, f, err)
	}
	if m.Attention != nil {
		t.Errorf("after a failed Use the model's Attention is %v, want it unchanged (nil)", m.Attention)
	}
}
