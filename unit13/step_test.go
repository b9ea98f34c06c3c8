package unit13

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/testkit/testmat"
	"github.com/llmforge/forge/testkit/testmodel"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
	"github.com/llmforge/forge/unit08"
)

// stepConfigs cover what a step must handle per sequence: MHA, GQA and
// MQA (the pool holds the key/value heads only), both RoPE pairings,
// biases, tied embeddings, and a mixture of experts. MaxSeq 160 lets a
// sequence pass 128 positions, one block of keys of unit08's tiles.
var stepConfigs = []struct {
	name string
	c    unit05.Config
	moe  unit06.Config // Experts 0: a dense model
}{
	{"mha", unit05.Config{Dim: 32, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 8, FFN: 48, Vocab: 97, MaxSeq: 160, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}, unit06.Config{}},
	{"gqa-llama3", unit05.Config{Dim: 32, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 4, FFN: 40, Vocab: 97, MaxSeq: 160, RopeBase: 500000, RMSEps: 1e-5, Rope: unit05.RopeNorm, RopeFactors: []float32{1, 8}}, unit06.Config{}},
	{"mqa-qwen2", unit05.Config{Dim: 32, Layers: 3, Heads: 4, KVHeads: 1, HeadDim: 8, FFN: 40, Vocab: 97, MaxSeq: 160, RopeBase: 1000000, RMSEps: 1e-6, Rope: unit05.RopeNeox, TiedEmbeddings: true, QKVBias: true}, unit06.Config{}},
	{"moe", unit05.Config{Dim: 32, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 8, FFN: 40, Vocab: 97, MaxSeq: 160, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}, unit06.Config{Experts: 4, Used: 2, FFN: 24, Renormalize: true}},
}

// stepTol compares a step's logits with the float64 oracle's, as unit07
// compares a session's: float32 products of a few dozen terms, a few
// layers deep.
var stepTol = oracle.Tol{Atol: 1e-4, Rtol: 1e-4}

// forwardTol compares them with unit05's float32 Forward over the whole
// sequence: the same function, its products cut up differently.
var forwardTol = oracle.Tol{Atol: 3e-5, Rtol: 3e-5}

// stepModel builds a seeded model for one of stepConfigs (unit05's and
// unit06's reference or yours, DEPS=ref).
func stepModel(t testing.TB, i int, p *unit03.Pool) *unit05.Model {
	t.Helper()
	n := stepConfigs[i]
	var w *unit05.Weights
	var err error
	if n.moe.Experts > 0 {
		w, err = unit06.RandomWeights(n.c, n.moe, uint64(900+i))
	} else {
		w, err = unit05.RandomWeights(n.c, uint64(900+i))
	}
	require.NoError(t, err, "RandomWeights for %s", n.name)
	m, err := unit05.NewModel(n.c, w, p)
	require.NoError(t, err, "NewModel for %s", n.name)
	return m
}

// stepper runs steps of a runner and checks every entry's logits against
// the logits of a full forward pass over its sequence's tokens so far:
// the float64 oracle's for a dense model (computed once per sequence, over
// every token it will ever hold: a row sees only the tokens up to it), and
// unit05's Forward for every model.
type stepper struct {
	t      *testing.T
	name   string
	m      *unit05.Model
	r      *Runner
	oracle map[*Seq][][]float64
}

func newStepper(t *testing.T, i int, p *unit03.Pool, blocks, maxTokens int) *stepper {
	t.Helper()
	m := stepModel(t, i, p)
	c := m.Config
	kv, err := NewPool(c.Layers, c.KVDim(), blocks)
	require.NoError(t, err)
	r, err := NewRunner(m, kv, maxTokens)
	require.NoError(t, err, "NewRunner(%s model, a pool of %d blocks, %d tokens)", stepConfigs[i].name, blocks, maxTokens)
	require.Equal(t, maxTokens, r.MaxTokens(), "MaxTokens")
	return &stepper{t: t, name: fmt.Sprintf("%s, %d threads", stepConfigs[i].name, p.Threads()), m: m, r: r, oracle: map[*Seq][][]float64{}}
}

// expect records the whole token list s will hold, for the oracle.
func (st *stepper) expect(s *Seq, all []int) {
	if st.m.Weights.Layers[0].MoE != nil {
		return // the oracle's dense road: unit05's Forward serves alone
	}
	c := st.m.Config
	st.oracle[s] = oracle.LlamaForward(testmodel.Config(c), testmodel.Weights(st.m.Weights, c.TiedEmbeddings), all)
}

// step appends each entry's tokens, runs one step and checks the logits.
func (st *stepper) step(what string, seqs []*Seq, tokens [][]int) {
	st.t.Helper()
	batch := make([]Entry, len(seqs))
	for i, s := range seqs {
		require.NoError(st.t, s.Append(int32s(tokens[i])), "%s: Append", what)
		batch[i] = Entry{Seq: s, N: len(tokens[i])}
	}
	logits := unit03.NewMat(len(batch), st.m.Config.Vocab)
	require.NoError(st.t, st.r.Step(logits, batch), "%s, %s: Step", st.name, what)
	for i, s := range seqs {
		desc := fmt.Sprintf("%s, %s: entry %d (%d new positions, %d in all), its last position's logits", st.name, what, i, len(tokens[i]), s.Len())
		toks := ints(s.Tokens())
		full := unit03.NewMat(len(toks), st.m.Config.Vocab)
		require.NoError(st.t, st.m.Forward(full, toks))
		oracle.AssertClose(st.t, desc+" against unit05's Forward over the whole sequence", logits.Row(i), oracle.Float64s(full.Row(len(toks)-1)), forwardTol)
		if want, ok := st.oracle[s]; ok {
			oracle.AssertClose(st.t, desc+" against the float64 oracle", logits.Row(i), want[s.Len()-1], stepTol)
		}
	}
}

func int32s(x []int) []int32 {
	out := make([]int32, len(x))
	for i, v := range x {
		out[i] = int32(v)
	}
	return out
}

func ints(x []int32) []int {
	out := make([]int, len(x))
	for i, v := range x {
		out[i] = int(v)
	}
	return out
}

// TestC13_2_NewRunner: a runner for its pool's model and a step size in
// 1 … MaxStepTokens; a pool of other layers or key width, or a step size
// outside that range, is an error wrapping unit00.ErrInvalid.
func TestC13_2_NewRunner(t *testing.T) {
	m := stepModel(t, 1, nil)
	c := m.Config
	good, err := NewPool(c.Layers, c.KVDim(), 4)
	require.NoError(t, err)
	r, err := NewRunner(m, good, 1)
	require.NoError(t, err, "NewRunner with a step of one token")
	require.Equal(t, 1, r.MaxTokens())
	require.Same(t, m, r.Model, "Runner.Model")
	require.Same(t, good, r.KV, "Runner.KV")
	r, err = NewRunner(m, good, MaxStepTokens)
	require.NoError(t, err, "NewRunner with a step of MaxStepTokens tokens")
	require.Equal(t, MaxStepTokens, r.MaxTokens())
	bad := []struct {
		what                   string
		layers, kvDim, maxToks int
	}{
		{"a pool of one layer fewer", c.Layers - 1, c.KVDim(), 8},
		{"a pool of one layer more", c.Layers + 1, c.KVDim(), 8},
		{"a pool of keys one float narrower", c.Layers, c.KVDim() - 1, 8},
		{"a pool of keys one float wider", c.Layers, c.KVDim() + 1, 8},
		{"a pool as wide as the queries", c.Layers, c.QDim(), 8},
		{"a step of 0 tokens", c.Layers, c.KVDim(), 0},
		{"a step of −1 tokens", c.Layers, c.KVDim(), -1},
		{"a step of MaxStepTokens+1 tokens", c.Layers, c.KVDim(), MaxStepTokens + 1},
	}
	for _, b := range bad {
		kv, err := NewPool(b.layers, b.kvDim, 4)
		require.NoError(t, err)
		r, err := NewRunner(m, kv, b.maxToks)
		require.ErrorIs(t, err, unit00.ErrInvalid, "NewRunner with %s", b.what)
		require.Nil(t, r, "NewRunner with %s: the runner beside the error", b.what)
	}
}

// TestC13_2_Step: sequences prefilled in chunks, joined mid-way by
// others, and decoded side by side, past a block of 16 positions, past a
// chunk of 64 rows and past 128 positions (unit08's block of keys), give
// at every step the logits of a full forward pass over each sequence.
func TestC13_2_Step(t *testing.T) {
	p2 := unit03.NewPool(2)
	defer p2.Close()
	for i := range stepConfigs {
		for _, p := range []*unit03.Pool{nil, p2} {
			st := newStepper(t, i, p, 40, 160)
			vocab := st.m.Config.Vocab
			all := [][]int{testmat.Tokens(uint64(910+i), 150, vocab), testmat.Tokens(uint64(920+i), 40, vocab), testmat.Tokens(uint64(930+i), 137, vocab)}
			a, b, c := st.r.KV.NewSeq(), st.r.KV.NewSeq(), st.r.KV.NewSeq()
			for j, s := range []*Seq{a, b, c} {
				st.expect(s, all[j])
			}
			st.step("a's first chunk of 20 and all of b's prompt (7)", []*Seq{a, b}, [][]int{all[0][:20], all[1][:7]})
			st.step("a's second chunk (70 rows, more than one piece of 64), b's first decode step", []*Seq{a, b}, [][]int{all[0][20:90], all[1][7:8]})
			st.step("b alone", []*Seq{b}, [][]int{all[1][8:9]})
			st.step("c's whole prompt (129 positions, past a block of keys) between a's and b's decode steps", []*Seq{a, c, b}, [][]int{all[0][90:91], all[2][:129], all[1][9:10]})
			for k := 0; k < 8; k++ {
				st.step(fmt.Sprintf("decode step %d of all three", k), []*Seq{c, a, b}, [][]int{all[2][129+k : 130+k], all[0][91+k : 92+k], all[1][10+k : 11+k]})
			}
			st.step("a's last 51 positions at once (to 150) beside b", []*Seq{b, a}, [][]int{all[1][18:19], all[0][99:150]})
		}
	}
}

// TestC13_2_SharedBlocks: sequences that share blocks, through the prefix
// cache or a fork, attend over the shared rows through their own tables,
// and their own rows after a copy-on-write.
func TestC13_2_SharedBlocks(t *testing.T) {
	st := newStepper(t, 1, nil, 30, 64)
	vocab := st.m.Config.Vocab
	prompt := testmat.Tokens(940, 40, vocab)
	a := st.r.KV.NewSeq()
	aAll := append(append([]int(nil), prompt...), testmat.Tokens(941, 5, vocab)...)
	st.expect(a, aAll)
	st.step("a's prompt of 40", []*Seq{a}, [][]int{prompt})
	a.Commit()
	// b's prompt starts with a's 40 tokens: 32 come from the cache.
	bAll := append(append([]int(nil), prompt...), testmat.Tokens(942, 12, vocab)...)
	b := st.r.KV.Match(int32s(bAll))
	require.Equal(t, 32, b.Len(), "Match of a prompt that starts with a's 40 tokens")
	st.expect(b, bAll)
	st.step("b's prompt after its match of 32: positions 32 … 51 beside a's decode step", []*Seq{b, a}, [][]int{bAll[32:], aAll[40:41]})
	// A fork of b at 52 positions: its last block is shared and partly full.
	f := b.Fork()
	fAll := append(append([]int(nil), bAll...), testmat.Tokens(943, 6, vocab)...)
	bMore := append(append([]int(nil), bAll...), testmat.Tokens(944, 6, vocab)...)
	st.expect(f, fAll)
	st.expect(b, bMore)
	for k := range 6 {
		what := fmt.Sprintf("decode step %d of a fork and its original (the first copies their shared last block)", k)
		if k < 4 { // a has 45 tokens: 41 … 44 are its decode steps
			st.step(what+", beside a", []*Seq{f, b, a}, [][]int{fAll[52+k : 53+k], bMore[52+k : 53+k], aAll[41+k : 42+k]})
		} else {
			st.step(what, []*Seq{b, f}, [][]int{bMore[52+k : 53+k], fAll[52+k : 53+k]})
		}
	}
}

// TestC13_2_Errors: a batch that cannot run is an error wrapping
// unit00.ErrInvalid that names the entry, and nothing is written: every
// row of every sequence reads back as before, the rows of positions
// appended but not yet computed included.
func TestC13_2_Errors(t *testing.T) {
	st := newStepper(t, 0, nil, 40, 24)
	kv := st.r.KV
	c := st.m.Config
	a, b := kv.NewSeq(), kv.NewSeq()
	st.step("a's prompt of 10, b's of 5", []*Seq{a, b}, [][]int{testmat.Tokens(950, 10, c.Vocab), testmat.Tokens(951, 5, c.Vocab)})
	require.NoError(t, a.Append([]int32{1, 2}))
	require.NoError(t, b.Append([]int32{3}))
	d, e := kv.NewSeq(), kv.NewSeq() // 6 and 7 new positions, nothing computed
	require.NoError(t, d.Append(int32s(testmat.Tokens(952, 6, c.Vocab))))
	require.NoError(t, e.Append(int32s(testmat.Tokens(953, 7, c.Vocab))))
	other, err := NewPool(c.Layers, c.KVDim(), 2)
	require.NoError(t, err)
	foreign := other.NewSeq()
	require.NoError(t, foreign.Append([]int32{1}))
	badTok, negTok := kv.NewSeq(), kv.NewSeq()
	require.NoError(t, badTok.Append([]int32{5, 6, int32(c.Vocab)}))
	require.NoError(t, negTok.Append([]int32{5, -1}))
	long := kv.NewSeq()
	require.NoError(t, long.Append(int32s(testmat.Tokens(954, c.MaxSeq+1, c.Vocab))))

	cases := []struct {
		what  string
		batch []Entry
		names string // what the error must name; "" for the batch as a whole
	}{
		{"an empty batch", nil, ""},
		{"a nil sequence", []Entry{{a, 2}, {nil, 1}}, "entry 1"},
		{"a sequence of another pool", []Entry{{a, 2}, {foreign, 1}}, "entry 1"},
		{"N = 0", []Entry{{a, 2}, {b, 0}}, "entry 1"},
		{"N = −1", []Entry{{a, -1}}, "entry 0"},
		{"N one more than the sequence's Len()", []Entry{{a, 2}, {b, b.Len() + 1}}, "entry 1"},
		{"the same sequence twice", []Entry{{a, 2}, {b, 1}, {a, 1}}, "entries 0 and 2"},
		{"a token equal to the vocabulary's size, at position 2", []Entry{{a, 2}, {badTok, 2}}, "entry 1: token 97 at position 2"},
		{"a negative token", []Entry{{negTok, 2}, {a, 2}}, "entry 0: token -1 at position 1"},
		{"25 tokens for a runner of 24", []Entry{{a, 12}, {b, 6}, {e, 7}}, "25 tokens"},
		{"a sequence past MaxSeq", []Entry{{a, 1}, {long, 1}}, "entry 1"},
		{"logits' rows come last: a good batch with a bad token after it", []Entry{{d, 6}, {badTok, 1}}, "entry 1"},
	}
	for _, tc := range cases {
		before := snapshot(t, c.Layers, a, b, d, e)
		logits := unit03.NewMat(len(tc.batch), c.Vocab)
		err := st.r.Step(logits, tc.batch)
		require.ErrorIs(t, err, unit00.ErrInvalid, "Step with %s", tc.what)
		if !strings.Contains(err.Error(), tc.names) {
			t.Errorf("Step with %s: the error %q does not name %q", tc.what, err, tc.names)
		}
		if diff := snapshotDiff(before, snapshot(t, c.Layers, a, b, d, e)); diff != "" {
			t.Errorf("Step with %s changed the pool's rows: %s", tc.what, diff)
		}
	}
	// Logits of the wrong shape panic, before anything is written.
	before := snapshot(t, c.Layers, d, e)
	mustPanic(t, "Step with logits of one row too many", func() { _ = st.r.Step(unit03.NewMat(3, c.Vocab), []Entry{{d, 6}, {e, 7}}) })
	mustPanic(t, "Step with logits one column short", func() { _ = st.r.Step(unit03.NewMat(2, c.Vocab-1), []Entry{{d, 6}, {e, 7}}) })
	if diff := snapshotDiff(before, snapshot(t, c.Layers, d, e)); diff != "" {
		t.Errorf("Step with logits of the wrong shape changed the pool's rows before it panicked: %s", diff)
	}
	// Exactly MaxTokens tokens is not an error, N = Len() neither; the
	// scratch of a step that fills the runner fits.
	logits := unit03.NewMat(3, c.Vocab)
	require.NoError(t, st.r.Step(logits, []Entry{{a, 12}, {b, 6}, {d, 6}}), "Step of exactly MaxTokens tokens, each N = Len()")
	want := unit03.NewMat(d.Len(), c.Vocab)
	require.NoError(t, st.m.Forward(want, ints(d.Tokens())))
	oracle.AssertClose(t, "the third entry of a step of exactly MaxTokens tokens", logits.Row(2), oracle.Float64s(want.Row(d.Len()-1)), forwardTol)
	// A sequence of exactly MaxSeq positions.
	full := kv.NewSeq()
	require.NoError(t, full.Append(int32s(testmat.Tokens(955, c.MaxSeq, c.Vocab))))
	r, err := NewRunner(st.m, kv, c.MaxSeq)
	require.NoError(t, err)
	require.NoError(t, r.Step(unit03.NewMat(1, c.Vocab), []Entry{{full, c.MaxSeq}}), "Step of a sequence of exactly MaxSeq positions")
}

// TestC13_2_TooManyThreads: a model whose pool has more threads than
// unit08's flash attention keeps scratch for cannot have a runner.
func TestC13_2_TooManyThreads(t *testing.T) {
	p := unit03.NewPool(unit08.MaxThreads + 1)
	defer p.Close()
	m := stepModel(t, 0, p)
	kv, err := NewPool(m.Config.Layers, m.Config.KVDim(), 2)
	require.NoError(t, err)
	r, err := NewRunner(m, kv, 8)
	require.ErrorIs(t, err, unit00.ErrInvalid, "NewRunner for a model of %d threads", unit08.MaxThreads+1)
	require.Nil(t, r)
}

// snapshot copies every row of every layer of the sequences.
func snapshot(t *testing.T, layers int, seqs ...*Seq) [][]float32 {
	var out [][]float32
	for _, s := range seqs {
		for l := range layers {
			for i := range s.Table() {
				k, v := s.Block(l, i)
				for r := range k.Rows {
					out = append(out, append([]float32(nil), k.Row(r)...), append([]float32(nil), v.Row(r)...))
				}
			}
		}
	}
	return out
}

// snapshotDiff says where two snapshots differ ("" if nowhere); NaNs
// compare by their bits.
func snapshotDiff(a, b [][]float32) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d rows, then %d", len(a), len(b))
	}
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] && !(a[i][j] != a[i][j] && b[i][j] != b[i][j]) {
				return fmt.Sprintf("row %d, element %d: %v, then %v", i, j, a[i][j], b[i][j])
			}
		}
	}
	return ""
}

// TestC13_2_NoAllocations: after its first step, a step allocates
// nothing, one thread or two.
func TestC13_2_NoAllocations(t *testing.T) {
	p2 := unit03.NewPool(2)
	defer p2.Close()
	for _, p := range []*unit03.Pool{nil, p2} {
		st := newStepper(t, 1, p, 20, 64)
		vocab := st.m.Config.Vocab
		a, b := st.r.KV.NewSeq(), st.r.KV.NewSeq()
		st.step("a's prompt of 40 and b's of 3", []*Seq{a, b}, [][]int{testmat.Tokens(960, 40, vocab), testmat.Tokens(961, 3, vocab)})
		require.NoError(t, a.Append([]int32{7}))
		require.NoError(t, b.Append([]int32{8, 9}))
		logits := unit03.NewMat(2, vocab)
		batch := []Entry{{a, 1}, {b, 2}}
		require.NoError(t, st.r.Step(logits, batch))
		if n := oracle.AllocsPerRun(5, func() { _ = st.r.Step(logits, batch) }); n != 0 {
			t.Errorf("%d threads: Step allocates %v times per call after the first, want 0: allocate the scratch in NewRunner", p.Threads(), n)
		}
	}
}

// mustPanic checks that f panics through unit00.Check.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	switch {
	case !panicked:
		t.Errorf("%s did not panic: shapes that do not fit are a programming error, panic through unit00.Check", what)
	case !strings.HasPrefix(fmt.Sprint(v), "check failed at "):
		t.Errorf("%s panicked with %q, not through unit00.Check", what, v)
	}
}
