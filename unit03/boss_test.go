package unit03

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
)

// The boss "close to the metal": a 1024³ product at half the core's FMA
// peak or better and twenty times the naive loops, a matrix–vector product
// at 70% of the read bandwidth, both measured side by side with probes in
// the same run, and every kernel exact to its K·ε bound at that size.

func TestBoss3_CloseToTheMetal(t *testing.T) {
	n := 1024
	if testing.Short() {
		n = 512
	}
	g := oracle.NewRand(38)
	p := NewPool(2)
	defer p.Close()
	c, a, b := operands(g, shape{n, n, n}, false, false)
	for _, k := range Kernels() {
		for _, pool := range []*Pool{nil, p} {
			MatMul(pool, k, c, a, b)
			checkC(t, fmt.Sprintf("MatMul %d³ kernel %v on %d threads", n, k, pool.Threads()), c, a, b, false)
		}
	}
	w := newMat(g, 4*n, 4*n, false)
	x := g.Uniform(4*n, -1, 1)
	y := make([]float32, 4*n)
	MatVec(p, Best(), y, w, x)
	want := oracle.MatMul(w.Data, w.Stride, x, 1, 4*n, 1, 4*n, false)
	abs := oracle.MatMulAbs(w.Data, w.Stride, x, 1, 4*n, 1, 4*n, false)
	for i := range abs {
		abs[i] = float64(4*n)*eps32*abs[i] + 1e-30
	}
	oracle.AssertBound(t, fmt.Sprintf("MatVec %d×%d kernel %v", 4*n, 4*n, Best()), y, want, abs, nil)
}

// BenchmarkBoss3_CloseToTheMetal measures, with the fastest kernel here:
//   - gemm-peak-%: a single-thread 1024³ MatMul against the FMA peak probe
//     doing as many flops, back to back (PairedRatio): 100·t_probe/t_gemm;
//   - gemm-x-naive: its speed over MatMulNaive's on the first 64 rows of the
//     same product (the naive loop's speed per row does not depend on M);
//   - gemv-bw-%: a single-thread MatVec over 8192×8192 weights (256 MiB)
//     against a read-only stream of as many bytes: 100·t_read/t_matvec;
//
// and reports the two-thread figures and the speed relative to gonum's
// Sgemm (run on as many threads) alongside.
func BenchmarkBoss3_CloseToTheMetal(b *testing.B) {
	const n = 1024
	rounds := 9
	if testing.Short() {
		rounds = 5
	}
	g := oracle.NewRand(39)
	c, a, bm := operands(g, shape{n, n, n}, false, false)
	k := Best()
	p := NewPool(2)
	defer p.Close()
	flops := 2.0 * n * n * n
	w := newMat(g, 8192, 8192, false)
	x, y := g.Uniform(8192, -1, 1), make([]float32, 8192)
	for b.Loop() {
		peak, _ := bosses.Peak(50 * time.Millisecond)
		b.ReportMetric(peak, "peak-GFLOP/s")

		gemm1 := func() { MatMul(nil, k, c, a, bm) }
		frac := 1 / bosses.PairedRatio(rounds, bosses.PeakRun(flops), gemm1)
		b.ReportMetric(100*frac, "gemm-peak-%")
		b.ReportMetric(frac*peak, "gemm-GFLOP/s")
		rate1 := gflops(flops, gemm1, rounds)

		rows := a.Block(0, 64, 0, n)
		naive := gflops(2*64*n*n, func() { MatMulNaive(c.Block(0, 64, 0, n), rows, bm) }, 1)
		b.ReportMetric(rate1/naive, "gemm-x-naive")

		rate2 := gflops(flops, func() { MatMul(p, k, c, a, bm) }, rounds)
		b.ReportMetric(rate2, "gemm-2t-GFLOP/s")
		b.ReportMetric(rate1/gonumRate(c, a, bm, 1), "gemm-x-gonum")
		b.ReportMetric(rate2/gonumRate(c, a, bm, 2), "gemm-2t-x-gonum")

		read := func() { bosses.Read(w.Data) }
		b.ReportMetric(100/bosses.PairedRatio(rounds, read, func() { MatVec(nil, k, y, w, x) }), "gemv-bw-%")
		read2 := func() { bosses.ReadOn(w.Data, 2) }
		b.ReportMetric(100/bosses.PairedRatio(rounds, read2, func() { MatVec(p, k, y, w, x) }), "gemv-2t-bw-%")
	}
}

// gflops returns the best rate of f, which performs flops operations, over
// the given number of runs.
func gflops(flops float64, f func(), runs int) float64 {
	best := time.Duration(1 << 62)
	for range runs {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return flops / best.Seconds() / 1e9
}

// gonumRate is gonum's Sgemm on the same product, on the given number of
// threads (it spreads its work over GOMAXPROCS).
func gonumRate(c, a, b Mat, threads int) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads))
	n := c.Rows
	return gflops(2*float64(n*n*n), func() {
		gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a.Data, a.Stride, b.Data, b.Stride, 0, c.Data, c.Stride)
	}, 3)
}
