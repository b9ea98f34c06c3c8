package unit02

import (
	"fmt"
	"testing"
	"time"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
)

// The boss "accurate and fast": every kernel within its error budget on
// adversarial inputs, at every vector width this CPU has; and softmax,
// RMSNorm and SiLU streaming at 60% or more of the memory bandwidth a plain
// copy reaches in the same run.

// adversarialRows returns inputs that break careless kernels, each of the
// given length: logits of magnitude 1e4, subnormals, a mix of huge and tiny
// values, and a row with −Inf entries (for softmax, a masked row).
func adversarialRows(n int) map[string][]float32 {
	g := oracle.NewRand(uint64(200 + n))
	sub := g.Uniform(n, -1e-38, 1e-38)
	masked := g.Normal(n, 0, 4)
	for i := 1; i < n; i += 3 {
		masked[i] = negInf
	}
	return map[string][]float32{
		"±1e4 logits": g.Uniform(n, -1e4, 1e4),
		"subnormals":  sub,
		"mixed":       mixedScales(g, n),
		"with −Inf":   masked,
	}
}

func TestBoss2_AccurateAndFast(t *testing.T) {
	eachSIMD(t, func(t *testing.T) {
		for _, n := range lengths {
			for name, x := range adversarialRows(n) {
				what := func(k string) string { return fmt.Sprintf("%s of %s (n=%d)", k, name, n) }
				dst := make([]float32, n)
				SoftmaxRow(dst, x, 1, nil)
				oracle.AssertClose(t, what("SoftmaxRow"), dst, oracle.Softmax(oracle.Float64s(x), 1, nil), softmaxTol(x, 1))
				LogSoftmaxRow(dst, x, 1, nil)
				oracle.AssertClose(t, what("LogSoftmaxRow"), dst, oracle.LogSoftmax(oracle.Float64s(x), 1, nil), logSoftmaxTol(x, 1))
				if name == "with −Inf" {
					continue // the rest need finite inputs
				}
				for _, act := range []struct {
					name string
					f    func(dst, x []float32)
					ref  func(float64) float64
				}{{"SiLU", SiLU, oracle.SiLU}, {"GELU", GELU, oracle.GELU}, {"GELUTanh", GELUTanh, oracle.GELUTanh}} {
					want := make([]float64, n)
					for i, v := range x {
						want[i] = act.ref(float64(v))
					}
					act.f(dst, x)
					oracle.AssertClose(t, what(act.name), dst, want, actTol)
				}
				w := oracle.NewRand(7).Uniform(n, 0.5, 1.5)
				RMSNormRow(dst, x, w, 1e-6)
				oracle.AssertClose(t, what("RMSNormRow"), dst, oracle.RMSNorm(oracle.Float64s(x), oracle.Float64s(w), 1e-6), normTol)
				if got, exact := Sum(x), oracle.Sum(x); beyond(float64(got), exact, sumBound(x)) {
					t.Errorf("%s = %v, exact %v: error beyond %.3g", what("Sum"), got, exact, sumBound(x))
				}
			}
		}
		// The tensor forms, in place, over several rows (the row-to-row
		// prefetching must not mix rows up).
		for _, dim := range []int{1, 17, 256, 4097} {
			x := oracle.NewRand(uint64(dim)).Normal(5*dim, 0, 30)
			w := oracle.NewRand(9).Uniform(dim, 0.5, 1.5)
			xs, xn := tensorOf(t, append([]float32(nil), x...), 5, dim), tensorOf(t, append([]float32(nil), x...), 5, dim)
			if err := Softmax(xs, xs); err != nil {
				t.Fatal(err)
			}
			if err := RMSNorm(xn, xn, w, 1e-6); err != nil {
				t.Fatal(err)
			}
			for r := 0; r < 5; r++ {
				row := x[r*dim : (r+1)*dim]
				oracle.AssertClose(t, fmt.Sprintf("Softmax in place, row %d of [5 %d]", r, dim), xs.F32()[r*dim:(r+1)*dim], oracle.Softmax(oracle.Float64s(row), 1, nil), softmaxTol(row, 1))
				oracle.AssertClose(t, fmt.Sprintf("RMSNorm in place, row %d of [5 %d]", r, dim), xn.F32()[r*dim:(r+1)*dim], oracle.RMSNorm(oracle.Float64s(row), oracle.Float64s(w), 1e-6), normTol)
			}
		}
	})
}

// BenchmarkBoss2_AccurateAndFast reports the bandwidth of SiLU, softmax and
// RMSNorm as a percentage of a plain copy's, on 2^25 floats (128 MiB in,
// 128 MiB out: four times the largest L3 cache in common use), in rows of
// 4096 for the row kernels. Each kernel reads its input once and writes its
// output once, the same bytes as the copy, so the percentage is
// 100·t_copy/t_kernel, the median over rounds of back-to-back pairs.
func BenchmarkBoss2_AccurateAndFast(b *testing.B) {
	const n, dim = 1 << 25, 4096
	rounds := 9
	if testing.Short() {
		rounds = 5
	}
	src := oracle.NewRand(2).Normal(n, 0, 3)
	dst := make([]float32, n)
	w := oracle.NewRand(3).Uniform(dim, 0.5, 1.5)
	xt, err := unit01.FromSlice(src, unit01.MustShape(n/dim, dim))
	if err != nil {
		b.Fatal(err)
	}
	yt, _ := unit01.FromSlice(dst, unit01.MustShape(n/dim, dim))
	copyAll := func() { bosses.Copy(dst, src) }
	copyAll() // touch every page before timing
	for b.Loop() {
		start := time.Now()
		copyAll()
		b.ReportMetric(float64(8*n)/time.Since(start).Seconds()/1e9, "copy-GB/s")
		b.ReportMetric(100/bosses.PairedRatio(rounds, copyAll, func() { SiLU(dst, src) }), "silu-bw-%")
		b.ReportMetric(100/bosses.PairedRatio(rounds, copyAll, func() { Softmax(yt, xt) }), "softmax-bw-%")
		b.ReportMetric(100/bosses.PairedRatio(rounds, copyAll, func() { RMSNorm(yt, xt, w, 1e-6) }), "rmsnorm-bw-%")
	}
}
