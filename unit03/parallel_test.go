package unit03

import (
	"fmt"
	"runtime"
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
	// Run uses the calling goroutine as one of the threads, so a pool of n
	// starts n − 1 goroutines. (Tried a few times: the runtime may start
	// one of its own in between.)
	started := 0
	for range 5 {
		before := runtime.NumGoroutine()
		p := NewPool(4)
		started = runtime.NumGoroutine() - before
		p.Close()
		if started == 3 {
			break
		}
	}
	if started != 3 {
		t.Errorf("NewPool(4) started %d goroutines, want 3: Run uses its caller as the fourth thread", started)
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

// countTask counts how often each part runs.
type countTask struct{ hits [100]atomic.Int32 }

func (c *countTask) Do(i int) { c.hits[i].Add(1) }

func TestC3_3_RunTask(t *testing.T) {
	for _, threads := range []int{1, 2, 3} {
		p := NewPool(threads)
		for _, n := range []int{0, 1, 2, 7, 100} {
			task := new(countTask)
			p.RunTask(n, task)
			for i := range task.hits {
				want := int32(0)
				if i < n {
					want = 1
				}
				if got := task.hits[i].Load(); got != want {
					t.Fatalf("Pool(%d).RunTask(%d, t) ran part %d %d times, want %d", threads, n, i, got, want)
				}
			}
		}
		if !oracle.RaceEnabled {
			task := new(countTask)
			if allocs := oracle.AllocsPerRun(100, func() { p.RunTask(2, task) }); allocs != 0 {
				t.Errorf("Pool(%d).RunTask with a pointer to a task allocates %v times per call, want 0: hand the Task itself to the workers, not a closure around it", threads, allocs)
			}
		}
		p.Close()
	}
	var nilPool *Pool
	task := new(countTask)
	nilPool.RunTask(3, task)
	if task.hits[0].Load()+task.hits[1].Load()+task.hits[2].Load() != 3 {
		t.Errorf("a nil Pool must run every part of a task on the caller")
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

func TestC3_3_ProductChecks(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	checkProductPanics(t, product{"MatMulParallel on 2 threads", false, func(c, a, b Mat) { MatMulParallel(p, c, a, b) }})
}

// TestC3_3_Views splits products of blocks of larger matrices over pools,
// by columns and (300×2, tall and thin) by rows, and products with a zero
// extent.
func TestC3_3_Views(t *testing.T) {
	g := oracle.NewRand(28)
	var negative *Pool
	// A GOMAXPROCS set here, so that an earlier NewPool that changed it
	// cannot hide that this one does.
	const procs = 3
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	if v, panicked := oracle.Panics(func() { negative = NewPool(-1) }); panicked {
		t.Fatalf("NewPool(-1) panicked (%v): a count of 0 or less means GOMAXPROCS", v)
	}
	if n := negative.Threads(); n != procs {
		t.Errorf("NewPool(-1).Threads() = %d with GOMAXPROCS %d: a count of 0 or less means GOMAXPROCS", n, procs)
	}
	if now := runtime.GOMAXPROCS(0); now != procs {
		t.Errorf("NewPool(-1) changed GOMAXPROCS from %d to %d: read it with runtime.GOMAXPROCS(0), which changes nothing", procs, now)
	}
	pools := []*Pool{nil, NewPool(2), NewPool(3), negative}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, p := range pools {
		for _, s := range []shape{{13, 33, 65}, {300, 2, 9}, {150, 130, 257}} {
			c, a, b, parent := blockOperands(g, s, false)
			what := fmt.Sprintf("MatMulParallel %v on %d threads, on blocks of larger matrices", s, p.Threads())
			MatMulParallel(p, c, a, b)
			checkC(t, what, c, a, b, false)
			checkParent(t, what, c, parent)
		}
		for _, s := range emptyShapes {
			c, a, b := operands(g, s, false, true)
			MatMulParallel(p, c, a, b)
			checkC(t, fmt.Sprintf("MatMulParallel %v on %d threads", s, p.Threads()), c, a, b, false)
		}
	}
}
