package bosses

import (
	"math"
	"sync"
	"time"
)

// Peak measures the floating-point peak of one core: register-only fused
// multiply-adds on the widest vector unit this CPU has, enough independent
// chains to fill every FMA port. It runs for about the given duration and
// returns GFLOP/s and the unit's name. GEMM figures are fractions of it,
// measured in the same process, so they hold on any machine.
func Peak(d time.Duration) (gflops float64, isa string) {
	run, flops, isa := fmaProbe()
	iters := 1 << 16
	for {
		start := time.Now()
		run(iters)
		t := time.Since(start)
		if t >= d {
			return flops * float64(iters) / t.Seconds() / 1e9, isa
		}
		iters *= 2
	}
}

// PeakRun returns a function that performs flops floating-point operations
// on the peak probe, for timing side by side with a kernel (PairedRatio).
func PeakRun(flops float64) func() {
	run, perIter, _ := fmaProbe()
	iters := int(flops / perIter)
	return func() { run(iters) }
}

// Read streams through x with vector loads and nothing else and returns the
// sum of its elements (so the loads cannot be optimised away). Its speed on
// an array far larger than the caches is the read bandwidth a read-only
// kernel, such as a matrix–vector product over its weights, can hope for.
func Read(x []float32) float32 { return readStream(x) }

// ReadOn is Read shared over the given number of threads, each streaming
// one contiguous part of x, as a matrix–vector product shared over a pool
// streams its rows: the roof of such a product on that many threads.
// threads < 1 counts as 1.
func ReadOn(x []float32, threads int) float32 {
	if threads <= 1 {
		return Read(x)
	}
	sums := make([]float32, threads)
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := t*len(x)/threads, (t+1)*len(x)/threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[t] = Read(x[lo:hi])
		}()
	}
	wg.Wait()
	var s float32
	for _, v := range sums {
		s += v
	}
	return s
}

func readGo(x []float32) float32 {
	var s0, s1, s2, s3 float32
	for len(x) >= 4 {
		s0, s1, s2, s3 = s0+x[0], s1+x[1], s2+x[2], s3+x[3]
		x = x[4:]
	}
	for _, v := range x {
		s0 += v
	}
	return s0 + s1 + s2 + s3
}

// fmaGoFlops is the work of one iteration of fmaLoopGo.
const fmaGoFlops = 8 * 2

// fmaLoopGo is the scalar fallback probe: eight independent FMA chains.
func fmaLoopGo(iters int) {
	goProbeSum(iters)
}

// goProbeSum runs the chains and returns their sum, so the compiler cannot
// drop them.
//
//go:noinline
func goProbeSum(iters int) float64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	const x, y = 1.0000001, 0.9999999
	for i := 0; i < iters; i++ {
		a0, a1, a2, a3 = math.FMA(a0, x, y), math.FMA(a1, x, y), math.FMA(a2, x, y), math.FMA(a3, x, y)
		a4, a5, a6, a7 = math.FMA(a4, x, y), math.FMA(a5, x, y), math.FMA(a6, x, y), math.FMA(a7, x, y)
	}
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
}
