package unit08

import (
	"errors"
	"fmt"
	"github.com/llmforge/forge/testkit/testmat"
	"github.com/llmforge/forge/testkit/testmodel"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
)

// The oracle's copies of a model, and seeded tokens: testkit/testmodel's
// and testkit/testmat's.
var (
	oracleWeights = testmodel.Weights
	oracleConfig  = testmodel.Config
	testTokens    = testmat.Tokens
)

// models are small Llama-family models with contexts long enough for
// several blocks of keys and decode steps split over two threads.
var models = []struct {
	name string
	c    unit05.Config
}{
	{"gqa-llama3", unit05.Config{Dim: 48, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 8, FFN: 96, Vocab: 200, MaxSeq: 560, RopeBase: 500000, RMSEps: 1e-5, Rope: unit05.RopeNorm, RopeFactors: []float32{1, 1.5, 8, 32}}},
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

// roundingStore is a unit05.KVStore that keeps float32 rows rounded as a
// cache of types kt and vt would hold them (the test's own rounding) and
// attends with a float32 Flash: what UseCache's store must compute.
type roundingStore struct {
	f      *Flash
	kt, vt CacheType
	k, v   []unit03.Mat
}

func (s *roundingStore) Put(l, pos0 int, k, v unit03.Mat) {
	for t := range k.Rows {
		for j, x := range stored(s.kt, k.Block(t, t+1, 0, k.Cols), 1) {
			s.k[l].Set(pos0+t, j, float32(x))
		}
		for j, x := range stored(s.vt, v.Block(t, t+1, 0, v.Cols), 1) {
			s.v[l].Set(pos0+t, j, float32(x))
		}
	}
}

func (s *roundingStore) Attend(p *unit03.Pool, out, q unit03.Mat, l, heads, kvHeads, pos0 int) {
	S := pos0 + q.Rows
	s.f.Attend(p, out, q, s.k[l].Block(0, S, 0, s.k[l].Cols), s.v[l].Block(0, S, 0, s.v[l].Cols), heads, kvHeads, pos0)
}

// TestC8_5_UseCache: UseCache sets a Flash and a Store of the model's
// layers and positions; a unit07 session over it keeps no rows of its own.
// With float32 rows its logits match the oracle; with F16 and Q8_0 they
// match a model whose store holds float32 rows rounded the same way. A
// decode step allocates nothing, and a head width Q8_0 cannot take is an
// error that leaves the model unchanged.
func TestC8_5_UseCache(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := unit05.Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 32, FFN: 128, Vocab: 200, MaxSeq: 300, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}
	tokens := testTokens(340, 290, c.Vocab)
	const prompt = 280
	for _, ty := range [][2]CacheType{{CacheF32, CacheF32}, {CacheF16, CacheF16}, {CacheQ8_0, CacheF16}} {
		m, o := newModel(t, c, 341, p)
		f, s, err := UseCache(m, ty[0], ty[1])
		if err != nil {
			t.Fatalf("UseCache(%v, %v): %v", ty[0], ty[1], err)
		}
		if m.Attention != unit05.Attender(f) || m.Store != unit05.KVStore(s) {
			t.Fatalf("UseCache(%v, %v): the model's Attention and Store are not the Flash and Store it returned", ty[0], ty[1])
		}
		row := map[CacheType]int{CacheF32: 4 * 64, CacheF16: 2 * 64, CacheQ8_0: 2 * 34}
		if want := c.Layers * c.MaxSeq * (row[ty[0]] + row[ty[1]]); s.Bytes() != want {
			t.Errorf("UseCache(%v, %v): the store holds %d bytes, want %d: Layers × MaxSeq positions of KVDim values", ty[0], ty[1], s.Bytes(), want)
		}
		sess := unit07.NewSession(m)
		if sess.Cache.Bytes() != 0 {
			t.Errorf("UseCache(%v, %v): a session's own cache holds %d bytes, want 0 (the store keeps the rows)", ty[0], ty[1], sess.Cache.Bytes())
		}
		// What the logits must be: the oracle's for float32 rows; else a
		// model that keeps rows rounded the same way in float32.
		want := oracle.LlamaForward(oracleConfig(c), o, tokens)
		tol := logitsTol
		if ty != [2]CacheType{CacheF32, CacheF32} {
			r, _ := newModel(t, c, 341, p)
			rs := &roundingStore{f: newFlash(t, c.Heads, c.KVHeads, c.HeadDim, 2), kt: ty[0], vt: ty[1]}
			for range c.Layers {
				rs.k = append(rs.k, unit03.NewMat(c.MaxSeq, c.KVDim()))
				rs.v = append(rs.v, unit03.NewMat(c.MaxSeq, c.KVDim()))
			}
			r.Attention, r.Store = rs.f, rs
			rsess := unit07.NewSession(r)
			want = make([][]float64, len(tokens))
			got, err := rsess.PrefillChunked(tokens[:prompt], 100)
			if err != nil {
				t.Fatal(err)
			}
			want[prompt-1] = oracle.Float64s(got)
			for i := prompt; i < len(tokens); i++ {
				got, err := rsess.Step(tokens[i])
				if err != nil {
					t.Fatal(err)
				}
				want[i] = oracle.Float64s(got)
			}
			tol = oracle.Tol{Atol: 2e-5, Rtol: 2e-5} // the same computation, cut into other products
		}
		got, err := sess.PrefillChunked(tokens[:prompt], 100)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("UseCache(%v, %v)", ty[0], ty[1])
		oracle.AssertClose(t, fmt.Sprintf("%s: the last logits of a %d-token prompt in chunks of 100", what, prompt), got, want[prompt-1], tol)
		for i := prompt; i < len(tokens); i++ {
			got, err := sess.Step(tokens[i])
			if err != nil {
				t.Fatal(err)
			}
			if !oracle.AssertClose(t, fmt.Sprintf("%s: decode step at position %d", what, i), got, want[i], tol) {
				break
			}
		}
		if n := oracle.AllocsPerRun(3, func() {
			if err := sess.Truncate(prompt); err != nil {
				t.Fatal(err)
			}
			if _, err := sess.Step(tokens[prompt]); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: a decode step allocates %v times, want 0", what, n)
		}
	}
	// Head width 8: Q8_0 cannot be; the model keeps its roads.
	m, _ := newModel(t, models[0].c, 342, p)
	f, s, err := UseCache(m, CacheF16, CacheQ8_0)
	if f != nil || s != nil || !errors.Is(err, unit00.ErrInvalid) || m.Attention != nil || m.Store != nil {
		t.Errorf("UseCache(f16, q8_0) on a head width of 8: %v, %v, %v, and the model's Attention %v, Store %v; want nils, an error wrapping unit00.ErrInvalid, and the model unchanged", f, s, err, m.Attention, m.Store)
	}
	// More threads than a Flash may have: New's error, the model unchanged.
	big := unit03.NewPool(MaxThreads + 1)
	defer big.Close()
	m, _ = newModel(t, models[1].c, 343, big)
	if _, _, err := UseCache(m, CacheF16, CacheF16); !errors.Is(err, unit00.ErrInvalid) || m.Attention != nil || m.Store != nil {
		t.Errorf("UseCache on a pool of %d threads: %v, Attention %v, Store %v; want an error wrapping unit00.ErrInvalid and the model unchanged", MaxThreads+1, err, m.Attention, m.Store)
	}
}
