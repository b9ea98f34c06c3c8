package unit05

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// rowStore is a KVStore that keeps float32 rows per layer and attends with
// Attention, recording how it was called: the stand-in for unit08's F16
// and Q8_0 caches, so that the hook in Block can be tested here.
type rowStore struct {
	c      Config
	k, v   []unit03.Mat // per layer, MaxSeq × KVDim
	puts   []string     // "layer:T@pos0" of each Put
	attend int          // Attend calls whose layer and positions matched the last Put
	bad    string
}

func newRowStore(c Config) *rowStore {
	s := &rowStore{c: c}
	for range c.Layers {
		s.k = append(s.k, unit03.NewMat(c.MaxSeq, c.KVDim()))
		s.v = append(s.v, unit03.NewMat(c.MaxSeq, c.KVDim()))
	}
	return s
}

func (s *rowStore) Put(l, pos0 int, k, v unit03.Mat) {
	s.puts = append(s.puts, fmt.Sprintf("%d:%d@%d", l, k.Rows, pos0))
	if k.Cols != s.c.KVDim() || v.Cols != s.c.KVDim() || v.Rows != k.Rows {
		s.bad = fmt.Sprintf("Put got k %d×%d and v %d×%d, want both T × KVDim = %d", k.Rows, k.Cols, v.Rows, v.Cols, s.c.KVDim())
		return
	}
	for t := range k.Rows {
		copy(s.k[l].Row(pos0+t), k.Row(t))
		copy(s.v[l].Row(pos0+t), v.Row(t))
	}
}

func (s *rowStore) Attend(p *unit03.Pool, out, q unit03.Mat, l, heads, kvHeads, pos0 int) {
	want := fmt.Sprintf("%d:%d@%d", l, q.Rows, pos0)
	if len(s.puts) == 0 || s.puts[len(s.puts)-1] != want {
		s.bad = fmt.Sprintf("Attend(layer %d, %d rows at %d) did not follow the Put of those rows: put them first", l, q.Rows, pos0)
	} else {
		s.attend++
	}
	S := pos0 + q.Rows
	Attention(out, q, s.k[l].Block(0, S, 0, s.k[l].Cols), s.v[l].Block(0, S, 0, s.v[l].Cols), heads, kvHeads, pos0, make([]float32, S))
}

// TestC5_5_StoreHook: a model whose Store is set puts every piece's keys
// and values into it and attends through it, for a whole prompt (Forward)
// and for Blocks given no cache at all (empty keys and values) at later
// positions; the logits must match the float64 oracle, and an Attention
// also set must not be called.
func TestC5_5_StoreHook(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := configs[1].c
	c.MaxSeq = 150
	w, o := testWeights(c, 85)
	tokens := testTokens(86, 140, c.Vocab)
	all := oracle.LlamaForward(oracleConfig(c), o, tokens)
	const prompt = 130 // pieces 64@0, 64@64, 2@128
	for _, pool := range []*unit03.Pool{nil, p} {
		m := newModel(t, c, w, pool)
		s := newRowStore(c)
		m.Store = s
		never := &rowAttender{heads: c.Heads, kvHeads: c.KVHeads, pool: pool}
		m.Attention = never
		got := randMat(oracle.NewRand(3), prompt, c.Vocab)
		if err := m.Forward(got, tokens[:prompt]); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%d threads: Forward of %d tokens with Model.Store set", pool.Threads(), prompt)
		oracle.AssertCloseShape(t, what, dense(got), flat(all[:prompt]), []int{prompt, c.Vocab}, logitsTol)
		var wantPuts []string
		for l := range c.Layers {
			wantPuts = append(wantPuts, fmt.Sprintf("%d:64@0", l), fmt.Sprintf("%d:64@64", l), fmt.Sprintf("%d:2@128", l))
		}
		if fmt.Sprint(s.puts) != fmt.Sprint(wantPuts) || s.bad != "" || s.attend != len(wantPuts) {
			t.Errorf("%s: Put was called as %v (layer:rows@pos0), want %v, each followed by its Attend (%d were); %s", what, s.puts, wantPuts, s.attend, s.bad)
		}
		if len(never.calls) > 0 {
			t.Errorf("%s: Model.Attention was called %d times as well; with a Store set, attend through the Store only", what, len(never.calls))
		}
		// Later positions, one token and then nine, through Block alone:
		// the store holds the prompt's keys and values, Block gets none.
		for _, r := range [][2]int{{prompt, prompt + 1}, {prompt + 1, len(tokens)}} {
			x := unit03.NewMat(r[1]-r[0], c.Dim)
			if err := Embed(x, m.Weights.Embed, tokens[r[0]:r[1]]); err != nil {
				t.Fatal(err)
			}
			for l := range c.Layers {
				m.Block(l, x, r[0], unit03.Mat{}, unit03.Mat{})
			}
			logits := unit03.NewMat(x.Rows, c.Vocab)
			m.Logits(logits, x)
			what := fmt.Sprintf("%d threads: Block at positions %d … %d with Model.Store set and no keys or values given", pool.Threads(), r[0], r[1]-1)
			oracle.AssertCloseShape(t, what, dense(logits), flat(all[r[0]:r[1]]), []int{x.Rows, c.Vocab}, logitsTol)
		}
		if s.bad != "" {
			t.Error(s.bad)
		}
	}
	// A context shorter than the key/value width: with a Store, a block's
	// keys and values take more scratch than the scores the model's own
	// road would, and the arena must hold them (one thread, every row).
	c = configs[0].c
	c.MaxSeq = 8
	w, o = testWeights(c, 87)
	tokens = testTokens(88, 8, c.Vocab)
	m := newModel(t, c, w, nil)
	m.Store = newRowStore(c)
	got := randMat(oracle.NewRand(4), len(tokens), c.Vocab)
	if err := m.Forward(got, tokens); err != nil {
		t.Fatal(err)
	}
	oracle.AssertCloseShape(t, fmt.Sprintf("Forward of MaxSeq = %d tokens, KVDim %d, with Model.Store set", c.MaxSeq, c.KVDim()), dense(got),
		flat(oracle.LlamaForward(oracleConfig(c), o, tokens)), []int{len(tokens), c.Vocab}, logitsTol)
}
