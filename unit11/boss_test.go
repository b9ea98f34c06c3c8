package unit11

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/testkit/testmodel"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
)

// The boss "exact and cheap": the samplers draw from exactly the
// distribution the chain defines, replay under a seed, and cost next to
// nothing beside the decode step that produced the logits. Its condition
// (TestBoss11): every configuration's draws pass a chi-squared test
// against the oracle's float64 distribution, and equal seeds replay equal
// generations. Its figures (BenchmarkBoss11): sampling a 128,256-token
// vocabulary (Llama 3's) costs at most 5% of a TinyLlama-shaped decode
// step, with llama.cpp's defaults and with top-p alone (top-k off, where
// the nucleus of the whole vocabulary must be found without sorting it).

// chiDraws and chiAlpha: 40,000 draws per configuration, significance
// 10⁻⁵. The seeds are fixed, so the test is deterministic; but your
// sampler may order its candidates or seed its source differently from
// the reference, so its draws are a fresh sample, and a correct sampler
// fails a configuration with probability α. With 10⁻⁵ and 20
// configurations that is one correct sampler in 5,000. The critical values
// are 20 to 123 (1 to 63 degrees of freedom); a wrong sampler lands far
// beyond: the mutant whose temperature does nothing gives χ² ≈ 185,000,
// the one whose top-p drops the crossing token χ² ≈ 6,000.
const (
	chiDraws = 40000
	chiAlpha = 1e-5
)

func TestBoss11_ExactAndCheap(t *testing.T) {
	const n = 64
	logits := oracle.NewRand(118).Normal(n, 0, 1.5)
	logits[9], logits[10] = logits[10], 4 // a clear favourite, tied neighbours below
	hist := []int{10, 3, 3, 17, 10, 40, 41, 63}
	for name, p := range chainConfigs() {
		p.Seed = 2026
		s := newSampler(t, n, p)
		counts := make([]int, n)
		for range chiDraws {
			id, err := s.Sample(logits, hist)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			counts[id]++
		}
		want := oracle.SamplingDist(logits, hist, toOracle(p))
		stat, df, pass, impossible := oracle.ChiSquared(counts, want, chiAlpha)
		if impossible >= 0 {
			t.Fatalf("%s: token %d was drawn %d times, but the chain removes it (probability 0)", name, impossible, counts[impossible])
		}
		if !pass {
			var worst int
			for i := range counts {
				if abs(float64(counts[i])-want[i]*chiDraws) > abs(float64(counts[worst])-want[worst]*chiDraws) {
					worst = i
				}
			}
			t.Fatalf("%s: %d draws do not fit the chain's distribution: χ² = %.1f with %d degrees of freedom (significance %g); the worst token is %d, drawn %d times, expected %.0f",
				name, chiDraws, stat, df, chiAlpha, worst, counts[worst], want[worst]*chiDraws)
		}
	}
	// Replay: the same seed, the same generation; another seed, another.
	c := tinyConfig(300, 128)
	gen := func(seed uint64) string {
		p := DefaultParams()
		p.Seed, p.Temperature, p.TopK = seed, 1.5, 0 // hot and wide: many choices per step
		res, err := Generate(context.Background(), newSession(t, c, 9), newSampler(t, c.Vocab, p), []int{1, 2, 3}, Options{MaxTokens: 50})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(res.Tokens)
	}
	if a, b := gen(1), gen(1); a != b {
		t.Fatalf("two generations with seed 1 differ:\n%s\n%s", a, b)
	}
	if gen(1) == gen(2) {
		t.Fatalf("seeds 1 and 2 generate the same 50 tokens")
	}
}

func abs(x float64) float64 { return max(x, -x) }

// tinyLlama is TinyLlama 1.1B's shape with random Q4_0 weights (output
// Q6_K, as real Q4_0 files have it): 0.6 GB that a decode step streams.
func tinyLlama(b *testing.B, p *unit03.Pool) *unit05.Model {
	c, w, err := testmodel.TinyLlama(256, 11)
	if err != nil {
		b.Fatal(err)
	}
	m, err := unit05.NewModel(c, w, p)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkBoss11_ExactAndCheap(b *testing.B) {
	p := unit03.NewPool(runtime.NumCPU()) // the engine's default: every core decodes
	defer p.Close()
	s := unit07.NewSession(tinyLlama(b, p))
	if _, err := s.Prefill([]int{1, 450, 4996, 17354}); err != nil {
		b.Fatal(err)
	}
	step := func() {
		if s.Len() >= 200 {
			_ = s.Truncate(4)
		}
		_, _ = s.Step(29871)
	}
	const vocab = 128256
	logits := oracle.NewRand(119).Normal(vocab, 0, 2.5)
	hist := testHistory(vocab)
	topP := DefaultParams()
	topP.TopK = 0
	minP := topP
	minP.TopP = 1
	samplers := map[string]*Sampler{}
	for name, params := range map[string]Params{"defaults": DefaultParams(), "top-p": topP, "min-p": minP} {
		samplers[name] = newSampler(b, vocab, params)
	}
	sample := func(name string) func() {
		return func() {
			for range 10 {
				_, _ = samplers[name].Sample(logits, hist)
			}
		}
	}
	tenSteps := func() {
		for range 10 {
			step()
		}
	}
	pct := map[string]float64{}
	var tokPerSec float64
	for b.Loop() {
		for name := range samplers {
			pct[name] = 100 * bosses.PairedRatio(5, tenSteps, sample(name))
		}
		tokPerSec = 10 / bosses.Seconds(tenSteps)
	}
	b.ReportMetric(pct["defaults"], "defaults-%")
	b.ReportMetric(pct["top-p"], "top-p-%")
	b.ReportMetric(pct["min-p"], "min-p-%")
	b.ReportMetric(tokPerSec, "decode-tok/s")
	b.ReportMetric(oracle.AllocsPerRun(20, func() { _, _ = samplers["top-p"].Sample(logits, hist) }), "allocs/sample")
}
