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
