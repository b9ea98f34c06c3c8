//go:build openblas

// Command openblas compares the reference GEMM with OpenBLAS's sgemm on this
// machine, side by side in one process, for the closing note of unit03 and
// for anyone tuning the kernels. It is kept out of the unit tests (it needs
// cgo and Debian's libopenblas-dev); run it with `make bench-openblas`.
//
// OpenBLAS picks its kernels at start-up from the CPU model; an OpenBLAS
// older than the CPU falls back to older kernels (Debian's 0.3.21 runs AVX2
// "Haswell" kernels on Zen 5). The program prints the kernel set it got;
// OPENBLAS_CORETYPE=SkylakeX forces the AVX-512 ones, and make
// bench-openblas runs both.
//
// It prints, for 256³ to 2048³ on one and two threads: GFLOP/s of the
// reference (IMPL's unit03, the fastest kernel), its share of the FMA peak
// measured by the same process, and its speed over the naive loops, gonum's
// Sgemm and OpenBLAS.
package main

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
void openblas_set_num_threads(int);
char* openblas_get_corename(void);
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"text/tabwriter"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/unit03"
)

func main() {
	peak, isa := bosses.Peak(200 * time.Millisecond)
	fmt.Printf("FMA peak of one core (%s probe): %.1f GFLOP/s; reference kernel: %v; OpenBLAS kernels: %s\n\n",
		isa, peak, unit03.Best(), C.GoString(C.openblas_get_corename()))
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "size\tthreads\tForge GFLOP/s\t% of peak\t× naive\t× gonum\tOpenBLAS GFLOP/s\t× OpenBLAS\t")
	for _, n := range []int{256, 512, 1024, 2048} {
		a, b, c := matrix(n), matrix(n), unit03.NewMat(n, n)
		naive := rate(2*64*float64(n*n), 1, func() {
			unit03.MatMulNaive(c.Block(0, 64, 0, n), a.Block(0, 64, 0, n), b)
		})
		for _, threads := range []int{1, 2} {
			pool := unit03.NewPool(threads)
			flops := 2 * float64(n*n*n)
			runs := max(3, 1<<30/int(flops)*3)
			forge := rate(flops, runs, func() { unit03.MatMul(pool, unit03.Best(), c, a, b) })
			gn := gonumRate(flops, runs, threads, a, b, c)
			ob := openblasRate(flops, runs, threads, a, b, c)
			fmt.Fprintf(w, "%d³\t%d\t%.1f\t%.0f%%\t%.1f\t%.1f\t%.1f\t%.2f\t\n",
				n, threads, forge, 100*forge/(peak*float64(threads)), forge/naive, forge/gn, ob, forge/ob)
			pool.Close()
		}
	}
	w.Flush()
	fmt.Println("\n% of peak is against one core's peak times the thread count; × naive uses the single-thread naive loops.")
}

func matrix(n int) unit03.Mat {
	m := unit03.NewMat(n, n)
	for i := range m.Data {
		m.Data[i] = float32(i%13)/13 - 0.5
	}
	return m
}

// rate returns the best GFLOP/s of f over runs.
func rate(flops float64, runs int, f func()) float64 {
	best := time.Duration(1 << 62)
	for range runs {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return flops / best.Seconds() / 1e9
}

func gonumRate(flops float64, runs, threads int, a, b, c unit03.Mat) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads))
	n := a.Rows
	return rate(flops, runs, func() {
		gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a.Data, n, b.Data, n, 0, c.Data, n)
	})
}

func openblasRate(flops float64, runs, threads int, a, b, c unit03.Mat) float64 {
	C.openblas_set_num_threads(C.int(threads))
	n := C.blasint(a.Rows)
	pa := (*C.float)(unsafe.Pointer(&a.Data[0]))
	pb := (*C.float)(unsafe.Pointer(&b.Data[0]))
	pc := (*C.float)(unsafe.Pointer(&c.Data[0]))
	return rate(flops, runs, func() {
		C.cblas_sgemm(C.CblasRowMajor, C.CblasNoTrans, C.CblasNoTrans, n, n, n, 1, pa, n, pb, n, 0, pc, n)
	})
}
