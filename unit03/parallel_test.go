package unit03

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/llmforge/forge/oracle"
)

func TestC3_3_Pool(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		p := NewPool(threads)
		if p.Threads() != threads {
			t.Errorf("NewPool(%d).Threads() = %d", threads, p.Threads())
		}
		for _, n := range []int{0, 1, 2, 5, 100} {
			var hits [100]atomic.Int32
			p.Run(n, func(i int) { hits[i].Add(1) })
			for i := 0; i < 100; i++ {
				if want := int32(0); i < n {
					want = 1
					if got := hits[i].Load(); got != want {
						t.Fatalf("Pool(%d).Run(%d, f) called f(%d) %d times, want once", threads, n, i, got)
					}
				} else if got := hits[i].Load(); got != 0 {
					t.Fatalf("Pool(%d).Run(%d, f) called f(%d), outside [0, %d)", threads, n, i, n)
				}
			}
		}
		p.Close()
	}
	if p := NewPool(0); p.Threads() < 1 {
		t.Errorf("NewPool(0).Threads() = %d, want GOMAXPROCS", p.Threads())
	} else {
		p.Close()
	}
	var nilPool *Pool
	sum := 0
	nilPool.Run(4, func(i int) { sum += i })
	if sum != 6 || nilPool.Threads() != 1 {
		t.Errorf("a nil Pool must run everything on the caller: sum of indices %d, Threads %d", sum, nilPool.Threads())
	}
}

func TestC3_3_MatMulParallel(t *testing.T) {
	g := oracle.NewRand(35)
	pools := []*Pool{nil, NewPool(1), NewPool(2), NewPool(3), NewPool(8)}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, s := range append(shapes, bigShapes...) {
		c, a, b := operands(g, s, false, true)
		var first []float32
		for _, p := range pools {
			MatMulParallel(p, c, a, b)
			what := fmt.Sprintf("MatMulParallel %v on %d threads", s, p.Threads())
			checkC(t, what, c, a, b, false)
			if first == nil {
				first = append([]float32(nil), c.Data...)
			} else {
				for i := range first {
					if c.Data[i] != first[i] {
						t.Fatalf("%s: element %d is %v, on one thread %v: the result must not depend on the thread count", what, i, c.Data[i], first[i])
					}
				}
			}
		}
	}
}
