package unit03

import (
	"fmt"
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

// TestC3_4_MatMul runs every kernel this CPU has, the pure-Go fallback
// included, on every shape, transposed or not, on one and two threads.
func TestC3_4_MatMul(t *testing.T) {
	g := oracle.NewRand(36)
	p := NewPool(2)
	defer p.Close()
	for _, k := range Kernels() {
		for _, s := range append(shapes, bigShapes...) {
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
