//go:build linux

package unit15

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/oracle"
)

// The boss's figure on a real GPU, beyond the emulator: gemm_f16
// (internal/cuda/kernels/unit15.cu), a tensor-core GEMM of 128 × 128
// tiles, against cuBLAS on the same device at 4096³, both taking IEEE
// halves and summing in float32 into a float32 C (cuBLAS's cublasGemmEx
// with CUDA_R_16F inputs, a CUDA_R_32F output and CUBLAS_COMPUTE_32F).
//
// Its figure, f16-x-cublas (reported by BenchmarkBoss15_Bytes): cuBLAS's
// time over gemm_f16's, each the
// device's time (CUDA events) for ten products queued back to back, the
// two timed in turns, the median of the rounds' ratios. Reported too:
// each one's TFLOP/s. Before it times them it checks both against the
// float64 product on a sample of C's elements, and that gemm_f16 wrote
// every element. Without a GPU, or without cuBLAS, it is not measured,
// and the boss says so: never a pass.
// f16Figures are the GPU boss's figures: f16-x-cublas, and the TFLOP/s of
// gemm_f16 and of cuBLAS.
type f16Figures struct{ ratio, mine, cublas float64 }

// f16AgainstCublas measures gemm_f16 against cuBLAS as the comment at the
// top of this file says. Without a GPU or without cuBLAS it measures
// nothing and says why in one line ("not measured: ..."), so that another
// boss benchmark can report the figures where they can be measured and
// leave them out elsewhere; a wrong product or a failed call fails b.
func f16AgainstCublas(b *testing.B) (f16Figures, bool, string) {
	b.Helper()
	g, err := newGPU(b)
	if errors.Is(err, cuda.ErrNoDriver) {
		return f16Figures{}, false, fmt.Sprintf("not measured: no GPU (%v)", err)
	}
	if err != nil {
		b.Fatalf("cuda.NewContext(0): %v", err)
	}
	blas, err := g.c.NewBlas()
	if errors.Is(err, cuda.ErrNoBlas) {
		return f16Figures{}, false, fmt.Sprintf("not measured: no cuBLAS (%v)", err)
	}
	if err != nil {
		b.Fatalf("NewBlas: %v", err)
	}
	defer blas.Close()
	const size = 4096
	m, n, k := size, size, size
	rounds := 10
	if testing.Short() {
		rounds = 4
	}
	ah, bh, a, bv := f16Case(15, m, n, k)
	ab, bb := upload(b, g, ah), upload(b, g, bh)
	nans := make([]float32, m*n)
	for i := range nans {
		nans[i] = float32(nan())
	}
	mine, theirs := upload(b, g, nans), upload(b, g, nans)
	f16 := g.f16(b, mine, ab, bb, m, n, k)
	ref := func() error { return blas.GemmF16(theirs, ab, bb, m, n, k) }
	for _, f := range []func() error{f16, ref} { // once each: the check, and a warm-up
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	if err := g.c.Synchronize(); err != nil {
		b.Fatal(err)
	}
	checkSample(b, "gemm_f16", g.download(b, mine, m*n), a, bv, m, n, k)
	checkSample(b, "cuBLAS", g.download(b, theirs, m*n), a, bv, m, n, k)

	const runs = 10
	timed := func(f func() error) float64 {
		d, err := g.c.Time(func() error {
			for range runs {
				if err := f(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return d.Seconds() / runs
	}
	var ratios, tMine, tRef []float64
	for range rounds {
		tm, tr := timed(f16), timed(ref)
		ratios, tMine, tRef = append(ratios, tr/tm), append(tMine, tm), append(tRef, tr)
	}
	flops := 2 * float64(m) * float64(n) * float64(k)
	f := f16Figures{ratio: bosses.Median(ratios), mine: flops / bosses.Median(tMine) / 1e12, cublas: flops / bosses.Median(tRef) / 1e12}
	b.Logf("%s, %s (cuBLAS %d), %d³: gemm_f16 %.1f TFLOP/s, cuBLAS %.1f TFLOP/s, f16-x-cublas %.3f (medians of %d rounds of %d products each)",
		g.c.Name, blas.Library, blas.Version, size, f.mine, f.cublas, f.ratio, rounds, runs)
	return f, true, ""
}

// checkSample fails b unless every element of c is a number and 256 of
// them, spread over C, are within f16Bound of the float64 product.
func checkSample(b *testing.B, who string, c, a, bm []float32, m, n, k int) {
	b.Helper()
	for i, v := range c {
		if v != v {
			b.Fatalf("%s at %d³: C[%d, %d] is NaN: an element not written", who, m, i/n, i%n)
		}
	}
	g := oracle.NewRand(16)
	for range 256 {
		i, j := g.Intn(m), g.Intn(n)
		var want, abs float64
		for p := range k {
			x := float64(a[i*k+p]) * float64(bm[p*n+j])
			want, abs = want+x, abs+math.Abs(x)
		}
		if bound := f16Bound([]float64{abs}, k)[0]; math.Abs(float64(c[i*n+j])-want) > bound {
			b.Fatalf("%s at %d³: C[%d, %d] = %v, want %v within %.3g", who, m, i, j, c[i*n+j], want, bound)
		}
	}
	b.Logf("%s at %d³: every element written, 256 sampled within their bounds", who, m)
}
