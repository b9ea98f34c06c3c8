package unit05

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/llmforge/forge/unit03"
)

// The measurements behind the figures of docs/unit05.md. They are not
// graded (the grader runs TestC*, TestBoss* and BenchmarkBoss* only): run
// them on the reference with
//
//	make measure UNIT=05                        # all of them
//	make measure UNIT=05 BENCH=Measure5_Depth   # one
//
// which is go test -overlay "$(go run ./cmd/forge overlay --impl ref)"
// -run '^$' -bench Measure ./unit05. The figures that are not timings
// (Depth, SiLU, RopeAngles, FirstPassAllocs) are the same on every
// machine; the timings depend on the machine and on what else it runs.

// 5.1's table "Depth in a pre-norm transformer": the root mean square of
// the residual stream through 32 blocks (Dim 256, 8 heads of 32, 2
// key/value heads, FFN 688, 32 tokens), with RandomWeights' scales and with
// every block's matrices redrawn at standard deviation 1 and 0.01 (scaled
// from RandomWeights' draws, so the same directions); the embedding and the
// output keep their scale. Metrics rms-N are after block N.
func BenchmarkMeasure5_Depth(b *testing.B) {
	c := Config{Dim: 256, Layers: 32, Heads: 8, KVHeads: 2, HeadDim: 32, FFN: 688, Vocab: 2048, MaxSeq: 32,
		RopeBase: 10000, RMSEps: 1e-5, Rope: RopeNorm}
	for _, sigma := range []float64{0, 1, 0.01} { // 0: RandomWeights' own scales
		name := "scales=RandomWeights"
		if sigma > 0 {
			name = fmt.Sprintf("sigma=%g", sigma)
		}
		b.Run(name, func(b *testing.B) {
			w, err := RandomWeights(c, 1)
			if err != nil {
				b.Fatal(err)
			}
			if sigma > 0 {
				rescaleBlocks(w, c, sigma)
			}
			m, err := NewModel(c, w, nil)
			if err != nil {
				b.Fatal(err)
			}
			tokens := testTokens(2, c.MaxSeq, c.Vocab)
			x := unit03.NewMat(len(tokens), c.Dim)
			keys, values := unit03.NewMat(len(tokens), c.KVDim()), unit03.NewMat(len(tokens), c.KVDim())
			logits := unit03.NewMat(len(tokens), c.Vocab)
			rms := map[int]float64{}
			for range b.N {
				if err := Embed(x, w.Embed, tokens); err != nil {
					b.Fatal(err)
				}
				rms[0] = rootMeanSquare(x.Data)
				for l := range c.Layers {
					m.Block(l, x, 0, keys, values)
					rms[l+1] = rootMeanSquare(x.Data)
				}
				m.Logits(logits, x)
			}
			for _, l := range []int{0, 1, 4, 8, 16, 32} {
				b.ReportMetric(rms[l], fmt.Sprintf("rms-%d", l))
			}
			b.ReportMetric(stdDev(logits.Data), "logits-std")
		})
	}
}

// rescaleBlocks scales every block matrix of w from the standard deviation
// RandomWeights drew it with to sigma.
func rescaleBlocks(w *Weights, c Config, sigma float64) {
	xavier := func(out, in int) float64 { return math.Sqrt(2 / float64(in+out)) }
	he := func(in int) float64 { return math.Sqrt(2 / float64(in)) }
	scale := func(m Matrix, std float64) {
		for i := range m.(*Dense).W.Data {
			m.(*Dense).W.Data[i] *= float32(sigma / std)
		}
	}
	d, q, kv := c.Dim, c.QDim(), c.KVDim()
	for i := range w.Layers {
		l := &w.Layers[i]
		scale(l.Wq, xavier(q, d))
		scale(l.Wk, xavier(kv, d))
		scale(l.Wv, xavier(kv, d))
		scale(l.Wo, xavier(d, q))
		scale(l.Gate, he(d))
		scale(l.Up, he(d))
		scale(l.Down, xavier(d, c.FFN))
	}
}

func rootMeanSquare(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(len(x)))
}

func stdDev(x []float32) float64 {
	mean := 0.0
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (float64(v) - mean) * (float64(v) - mean)
	}
	return math.Sqrt(s / float64(len(x)))
}

// 5.1's SiLU figures: the mean square of SiLU(x) for x ~ N(0, 2), what He's
// scale gives a unit-size input, and for the variance Xavier's scale gives
// the gate of the first test configuration (Dim 64, FFN 160), by numerical
// integration (no sampling noise).
func BenchmarkMeasure5_SiLU(b *testing.B) {
	c := configs[0].c
	var he, xavier float64
	for range b.N {
		he = siluMeanSquare(2)
		xavier = siluMeanSquare(2 * float64(c.Dim) / float64(c.Dim+c.FFN))
	}
	b.ReportMetric(he, "ms-at-var-2")
	b.ReportMetric(2*float64(c.Dim)/float64(c.Dim+c.FFN), "xavier-gate-var")
	b.ReportMetric(xavier, "ms-at-xavier-var")
}

// siluMeanSquare returns E[SiLU(x)²] for x ~ N(0, v): the midpoint rule over
// ±12 standard deviations.
func siluMeanSquare(v float64) float64 {
	const n = 200000
	sd := math.Sqrt(v)
	h := 24 * sd / n
	s := 0.0
	for i := range n {
		x := -12*sd + (float64(i)+0.5)*h
		silu := x / (1 + math.Exp(-x))
		s += silu * silu * math.Exp(-x*x/(2*v))
	}
	return s * h / math.Sqrt(2*math.Pi*v)
}

// 5.2's RoPE table: over every pair of a 128-wide head (base 10⁴), the
// worst angle error of float32(pos)·float32(θ), of ggml's float32
// recurrence (ggml_rope_cache_init: θ starts as the position and is
// multiplied by base^(−2/d) once per pair), and the worst error in the
// cos and sin of your Rope's tables against float64 (read back by rotating
// (1, 0) pairs).
func BenchmarkMeasure5_RopeAngles(b *testing.B) {
	const d, base = 128, 10000.0
	for _, n := range []int{4096, 131072} {
		b.Run(fmt.Sprintf("positions=%d", n), func(b *testing.B) {
			var f32, ggml, table float64
			for range b.N {
				f32, ggml, table = 0, 0, 0
				scale32 := float32(math.Pow(base, -2.0/d))
				for pos := range n {
					theta32 := float32(pos)
					for i := range d / 2 {
						exact := float64(pos) * math.Pow(base, -2*float64(i)/d)
						f32 = max(f32, math.Abs(float64(float32(pos)*float32(math.Pow(base, -2*float64(i)/d)))-exact))
						ggml = max(ggml, math.Abs(float64(theta32)-exact))
						theta32 *= scale32
					}
				}
				r := NewRope(d, n, base, RopeNorm)
				x := make([]float32, d)
				for pos := range n {
					for i := range d / 2 {
						x[2*i], x[2*i+1] = 1, 0
					}
					r.Rotate(x, pos)
					for i := range d / 2 {
						a := float64(pos) * math.Pow(base, -2*float64(i)/d)
						table = max(table, math.Abs(float64(x[2*i])-math.Cos(a)), math.Abs(float64(x[2*i+1])-math.Sin(a)))
					}
				}
			}
			b.ReportMetric(f32, "rad-float32-product")
			b.ReportMetric(ggml, "rad-ggml-recurrence")
			b.ReportMetric(table*1e8, "cos-sin-error-of-Rope(1e-8)")
		})
	}
}

// 5.5's "Prefill and decode" (a one-token Forward against a 128-token one,
// on the boss's model, one thread) and 5.3's cost table (the same model with
// MaxSeq 1024 for the 1,024-token line). For the table's shares, profile
// one: make measure UNIT=05 BENCH=Measure5_Forward/T=128 PROFILE=cpu.out,
// then go tool pprof -top -cum cpu.out.
func BenchmarkMeasure5_Forward(b *testing.B) {
	for _, T := range []int{1, 128, 1024} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			c := benchConfig
			c.MaxSeq = max(c.MaxSeq, T)
			w, err := RandomWeights(c, 5)
			if err != nil {
				b.Fatal(err)
			}
			m, err := NewModel(c, w, nil)
			if err != nil {
				b.Fatal(err)
			}
			tokens := testTokens(6, T, c.Vocab)
			logits := unit03.NewMat(T, c.Vocab)
			pass := func() error { return m.Forward(logits, tokens) }
			if T > 128 {
				// Forward's own work, from outside: the reference's arena
				// has no room for Logits' T × Dim buffer after Forward's
				// part when MaxSeq·Dim outgrows a block's scratch.
				x := unit03.NewMat(T, c.Dim)
				keys, values := unit03.NewMat(T, c.KVDim()), unit03.NewMat(T, c.KVDim())
				pass = func() error {
					if err := Embed(x, w.Embed, tokens); err != nil {
						return err
					}
					for l := range c.Layers {
						m.Block(l, x, 0, keys, values)
					}
					m.Logits(logits, x)
					return nil
				}
			}
			if err := pass(); err != nil { // warm: the first pass sizes unit03's buffers
				b.Fatal(err)
			}
			b.ResetTimer()
			best := time.Duration(math.MaxInt64)
			for range b.N {
				start := time.Now()
				if err := pass(); err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(start))
			}
			b.ReportMetric(float64(best.Microseconds())/1e3, "best-ms")
			b.ReportMetric(float64(best.Microseconds())/float64(T), "best-µs/token")
		})
	}
}

// 5.6's "The reference's first pass on a fresh two-thread pool allocated 7
// objects here; every warm pass after that, none": the heap allocations of
// the first Forward of a new model on a new pool, and of the second, in
// the benchmark's first round (later rounds find unit03's free lists
// filled). Run it alone, so that its first pass is the process's first.
func BenchmarkMeasure5_FirstPassAllocs(b *testing.B) {
	c := benchConfig
	w, err := RandomWeights(c, 5)
	if err != nil {
		b.Fatal(err)
	}
	tokens := testTokens(6, 16, c.Vocab)
	logits := unit03.NewMat(len(tokens), c.Vocab)
	var first, second float64
	for i := range b.N {
		p := unit03.NewPool(2)
		m, err := NewModel(c, w, p)
		if err != nil {
			b.Fatal(err)
		}
		f := mallocs(func() { _ = m.Forward(logits, tokens) })
		s := mallocs(func() { _ = m.Forward(logits, tokens) })
		p.Close()
		if i == 0 && first == 0 && second == 0 {
			first, second = f, s
		}
	}
	b.ReportMetric(first, "allocs-first-pass")
	b.ReportMetric(second, "allocs-second-pass")
}

// mallocs returns the heap allocations the process makes while f runs.
func mallocs(f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs - before.Mallocs)
}
