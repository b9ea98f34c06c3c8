package unit03

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

func TestC3_4_Kernels(t *testing.T) {
	ks := Kernels()
	if len(ks) == 0 || ks[0] != KernelGo {
		t.Fatalf("Kernels() = %v: the pure-Go kernel comes first and is always there", ks)
	}
	want := map[unit00.SIMDLevel]int{unit00.SIMDNone: 1, unit00.SIMDAVX2: 2, unit00.SIMDAVX512: 3}[unit00.CPUSIMD()]
	if len(ks) != want {
		t.Errorf("Kernels() = %v on a CPU with SIMD level %v: want %d kernels", ks, unit00.CPUSIMD(), want)
	}
	if Best() != ks[len(ks)-1] {
		t.Errorf("Best() = %v, want the last of Kernels(), %v", Best(), ks[len(ks)-1])
	}
	for _, k := range []Kernel{KernelGo, KernelAVX2, KernelAVX512} {
		if k.String() == "" {
			t.Errorf("Kernel(%d).String() is empty", int(k))
		}
	}
}

// TestC3_4_NoAllocs checks the steady state a forward pass relies on:
// after a first call, products allocate nothing, on one thread or a pool.
func TestC3_4_NoAllocs(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	g := oracle.NewRand(38)
	p := NewPool(2)
	defer p.Close()
	k := Best()
	if allocs := oracle.AllocsPerRun(10, func() { k = Best() }); allocs != 0 {
		t.Errorf("Best allocates %v times per call, want 0", allocs)
	}
	for _, s := range []shape{{1, 300, 70}, {40, 300, 70}} {
		c, a, b := operands(g, s, true, true)
		for _, pool := range []*Pool{nil, p} {
			MatMulT(pool, k, c, a, b)
			if allocs := oracle.AllocsPerRun(20, func() { MatMulT(pool, k, c, a, b) }); allocs != 0 {
				t.Errorf("MatMulT %v on %d threads allocates %v times per call after the first, want 0: reuse packing buffers, and hand the pool a Task (RunTask), not a closure", s, pool.Threads(), allocs)
			}
		}
	}
}

// tileShapes sit on and around the assembly kernels' tiles (6×16 and
// 12×32: exactly one or two tiles, and one more row or column; a bottom
// edge of 4 or 8 rows, which AVX-512 computes with shorter kernels in
// place) with depths of 1, 8 and 9 (packing moves 8 steps at a time) and
// depths past one and two blocks of 1024, so that the tiles add to C.
var tileShapes = []shape{
	{12, 32, 1}, {24, 64, 8}, {25, 65, 9}, {6, 16, 17}, {13, 33, 1031}, {36, 96, 2100},
	{16, 64, 1030}, {80, 96, 1030},
}

// TestC3_4_MatMul runs every kernel this CPU has, the pure-Go fallback
// included, on every shape, transposed or not, on one and two threads.
func TestC3_4_MatMul(t *testing.T) {
	g := oracle.NewRand(36)
	p := NewPool(2)
	defer p.Close()
	for _, k := range Kernels() {
		for _, s := range append(append(shapes, bigShapes...), tileShapes...) {
			for _, transB := range []bool{false, true} {
				for _, pool := range []*Pool{nil, p} {
					c, a, b := operands(g, s, transB, true)
					what := fmt.Sprintf("MatMul %v kernel %v (B transposed %v, %d threads)", s, k, transB, pool.Threads())
					if transB {
						what = "MatMulT" + what[len("MatMul"):]
						MatMulT(pool, k, c, a, b)
					} else {
						MatMul(pool, k, c, a, b)
					}
					checkC(t, what, c, a, b, transB)
				}
			}
		}
	}
}

// firstProductEnv names, in a child process of this test binary, the kernel
// whose first product TestC3_4_FirstProduct runs there.
const firstProductEnv = "FORGE_UNIT03_FIRST_PRODUCT"

// TestC3_4_FirstProduct runs each kernel's first product of a process, on
// one thread and past every block size ({13, 4100, 1100}: more columns than
// a column block, deeper than a depth block). It runs in a child process of
// this test binary because in this one earlier products have already left
// packing buffers behind: a buffer sized for a block but sliced for whole
// tile panels (a block that is not a multiple of the tile) has room to
// spare when it is reused, and runs past its end only when it is new, as
// in an engine's first prompt.
func TestC3_4_FirstProduct(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("a child process per product is slow under the race detector, and the products' races are tested elsewhere")
	}
	if v := os.Getenv(firstProductEnv); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q: want a kernel number", firstProductEnv, v)
		}
		s := shape{13, 4100, 1100}
		c, a, b := operands(oracle.NewRand(40), s, false, false)
		MatMul(nil, Kernel(k), c, a, b)
		checkC(t, fmt.Sprintf("MatMul %v kernel %v, the first product of a process", s, Kernel(k)), c, a, b, false)
		return
	}
	for _, k := range Kernels() {
		if out, ok := oracle.RunChild(t, "TestC3_4_FirstProduct", firstProductEnv+"="+strconv.Itoa(int(k))); !ok {
			t.Errorf("kernel %v: the first product of a fresh process (MatMul {13, 4100, 1100}, one thread) failed; the child's output:\n%s", k, out)
		}
	}
}

func TestC3_4_ProductChecks(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	for _, k := range Kernels() {
		checkProductPanics(t,
			product{fmt.Sprintf("MatMul (kernel %v)", k), false, func(c, a, b Mat) { MatMul(nil, k, c, a, b) }},
			product{fmt.Sprintf("MatMulT (kernel %v)", k), true, func(c, a, b Mat) { MatMulT(nil, k, c, a, b) }},
			product{fmt.Sprintf("MatMul (kernel %v, 2 threads)", k), false, func(c, a, b Mat) { MatMul(p, k, c, a, b) }},
			product{fmt.Sprintf("MatMulT (kernel %v, 2 threads)", k), true, func(c, a, b Mat) { MatMulT(p, k, c, a, b) }},
		)
	}
	// A kernel this CPU or build lacks (with -tags purego: both assembly
	// kernels) must be refused, not run.
	have := map[Kernel]bool{}
	for _, k := range Kernels() {
		have[k] = true
	}
	for _, k := range []Kernel{KernelAVX2, KernelAVX512} {
		if have[k] {
			continue
		}
		c, a, b := NewMat(8, 40), NewMat(8, 16), NewMat(16, 40)
		mustCheckPanic(t, fmt.Sprintf("MatMul with kernel %v, which Kernels() does not list", k), func() { MatMul(nil, k, c, a, b) })
		mustCheckPanic(t, fmt.Sprintf("MatMulT with kernel %v, which Kernels() does not list", k), func() { MatMulT(p, k, c, a, NewMat(40, 16)) })
	}
}

// TestC3_4_Views runs every kernel on blocks of larger matrices (an offset,
// a stride above the width, data that ends exactly at the last element: the
// micro-kernels' full tiles must not read or write past it), both layouts,
// on one and two threads, and on products with a zero extent.
func TestC3_4_Views(t *testing.T) {
	g := oracle.NewRand(27)
	p := NewPool(2)
	defer p.Close()
	for _, k := range Kernels() {
		for _, transB := range []bool{false, true} {
			for _, pool := range []*Pool{nil, p} {
				name := fmt.Sprintf("kernel %v (B transposed %v, %d threads)", k, transB, pool.Threads())
				mul := func(c, a, b Mat) {
					if transB {
						MatMulT(pool, k, c, a, b)
					} else {
						MatMul(pool, k, c, a, b)
					}
				}
				for _, s := range []shape{{12, 32, 16}, {24, 64, 513}, {37, 45, 29}, {300, 2, 9}} {
					c, a, b, parent := blockOperands(g, s, transB)
					what := fmt.Sprintf("MatMul %v on blocks of larger matrices, %s", s, name)
					mul(c, a, b)
					checkC(t, what, c, a, b, transB)
					checkParent(t, what, c, parent)
				}
				for _, s := range emptyShapes {
					c, a, b := operands(g, s, transB, true)
					mul(c, a, b)
					checkC(t, fmt.Sprintf("MatMul %v, %s", s, name), c, a, b, transB)
				}
			}
		}
	}
}
