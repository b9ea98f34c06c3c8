package unit05

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// The boss "match the oracle, allocate nothing": on every test config (MHA,
// GQA, MQA; both RoPE pairings; tied and untied; with and without biases)
// the logits of a 48-token prompt match the float64 oracle within
// logitsTol with the same top token at every position, and after one
// warm-up pass a forward pass makes no heap allocation, on one thread or
// two.

func TestBoss5_MatchAndAllocNothing(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for i, n := range configs {
		w, o := testWeights(n.c, uint64(100+i))
		tokens := testTokens(uint64(200+i), 48, n.c.Vocab)
		want := oracle.LlamaForward(oracleConfig(n.c), o, tokens)
		for _, pool := range []*unit03.Pool{nil, p} {
			m := newModel(t, n.c, w, pool)
			logits := unit03.NewMat(len(tokens), n.c.Vocab)
			if err := m.Forward(logits, tokens); err != nil {
				t.Fatalf("%s: %v", n.name, err)
			}
			what := fmt.Sprintf("config %s, %d threads", n.name, pool.Threads())
			oracle.AssertCloseShape(t, what+": logits [position, token]", logits.Data, flat(want), []int{len(tokens), n.c.Vocab}, logitsTol)
			checkTop1(t, what, logits, want)
			if oracle.RaceEnabled {
				continue // allocation counts are meaningless under the race detector
			}
			allocs := oracle.AllocsPerRun(5, func() { _ = m.Forward(logits, tokens) })
			if allocs != 0 {
				t.Errorf("%s: a forward pass allocates %v times after the first: carve every scratch buffer from the model's arena, and use unit03's allocation-free products", what, allocs)
			}
		}
	}
}

// checkTop1 checks that every position's highest logit is the oracle's
// top token. Where the oracle's top two are closer than two budgets, either
// may come first: float32 cannot be asked to break a tie that close.
func checkTop1(t *testing.T, what string, logits unit03.Mat, want [][]float64) {
	t.Helper()
	for i, row := range want {
		best, second := 0, -1
		for j := range row {
			if row[j] > row[best] {
				best, second = j, best
			} else if j != best && (second < 0 || row[j] > row[second]) {
				second = j
			}
		}
		got := 0
		for j, v := range logits.Row(i) {
			if v > logits.Row(i)[got] {
				got = j
			}
		}
		margin := row[best] - row[second]
		tie := margin < 2*(logitsTol.Atol+logitsTol.Rtol*math.Abs(row[best]))
		if got != best && !(tie && got == second) {
			t.Errorf("%s: at position %d the top token is %d (logit %.5f), the oracle's is %d (logit %.5f, next %.5f)", what, i, got, logits.At(i, got), best, row[best], row[second])
		}
	}
}

// benchConfig is a small model whose products are large enough to time:
// Llama-style GQA, 4 layers, 256 wide.
var benchConfig = Config{Dim: 256, Layers: 4, Heads: 8, KVHeads: 2, HeadDim: 32, FFN: 688, Vocab: 2048, MaxSeq: 128,
	RopeBase: 500000, RMSEps: 1e-5, Rope: RopeNorm}

func BenchmarkBoss5_MatchAndAllocNothing(b *testing.B) {
	c := benchConfig
	w, err := RandomWeights(c, 5)
	if err != nil {
		b.Fatal(err)
	}
	tokens := testTokens(6, c.MaxSeq, c.Vocab)
	logits := unit03.NewMat(len(tokens), c.Vocab)
	m, err := NewModel(c, w, nil)
	if err != nil {
		b.Fatal(err)
	}
	var best time.Duration
	for b.Loop() {
		start := time.Now()
		if err := m.Forward(logits, tokens); err != nil {
			b.Fatal(err)
		}
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	// Allocations, after the timing: b.Loop's first call resets the
	// metrics reported before it.
	p := unit03.NewPool(2)
	defer p.Close()
	worst := 0.0
	for _, pool := range []*unit03.Pool{nil, p} {
		m, _ := NewModel(c, w, pool)
		worst = max(worst, oracle.AllocsPerRun(3, func() { _ = m.Forward(logits, tokens) }))
	}
	b.ReportMetric(worst, "allocs/forward")
	b.ReportMetric(float64(len(tokens))/best.Seconds(), "prefill-tok/s")
}
