package unit03

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmforge/forge/oracle"
)

// barrierTask's parts wait for each other: each part arrives, then waits
// until all n parts have arrived or the deadline passes. Only a pool that
// runs the n parts at the same time, each on its own goroutine, lets them
// all through in time.
type barrierTask struct {
	n        int32
	arrived  atomic.Int32
	all      chan struct{}
	timedOut atomic.Int32
}

func (b *barrierTask) Do(i int) {
	if b.arrived.Add(1) == b.n {
		close(b.all)
	}
	select {
	case <-b.all:
	case <-time.After(5 * time.Second):
		b.timedOut.Add(1)
	}
}

// TestC3_3_RunTaskConcurrent checks that a pool runs the parts of a task at
// the same time: with no more parts than threads, every part must be
// running before any returns. A pool that runs some parts one after another
// on the caller computes the same thing, but gains nothing from its threads.
func TestC3_3_RunTaskConcurrent(t *testing.T) {
	for _, threads := range []int{2, 3, 4} {
		p := NewPool(threads)
		for n := 2; n <= threads; n++ {
			task := &barrierTask{n: int32(n), all: make(chan struct{})}
			p.RunTask(n, task)
			if got := task.arrived.Load(); got != int32(n) {
				t.Errorf("Pool(%d).RunTask(%d, t) ran %d parts, want %d", threads, n, got, n)
			}
			if late := task.timedOut.Load(); late != 0 {
				t.Fatalf("Pool(%d).RunTask(%d, t): %d of the %d parts waited 5 s for the others in vain: with no more parts than threads, all must run at once, each on its own goroutine (the caller's included); run the parts on the caller only for a nil pool, a pool of one thread or a single part", threads, n, late, n)
			}
		}
		p.Close()
	}
}

// TestC3_4_NoColumns runs products whose C has rows but no columns (N = 0),
// with an empty depth (K = 0) and without, on every kernel, both layouts, on
// one thread and on pools of 2 and 3. C is strided, so its empty rows still
// lie apart in memory (stride 3, holding sentinel): there is nothing to
// compute and nothing may be written. With many rows and few columns the
// threads would split C's rows, and a view of zero columns has no data to
// clear rows in: such a product must not be shared out at all.
func TestC3_4_NoColumns(t *testing.T) {
	g := oracle.NewRand(43)
	p2, p3 := NewPool(2), NewPool(3)
	defer p2.Close()
	defer p3.Close()
	for _, k := range Kernels() {
		for _, transB := range []bool{false, true} {
			for _, pool := range []*Pool{nil, p2, p3} {
				for _, s := range []shape{{1, 0, 0}, {4, 0, 0}, {40, 0, 0}, {100, 0, 0}, {40, 0, 7}} {
					c, a, b := operands(g, s, transB, true)
					what := fmt.Sprintf("MatMul %v kernel %v (B transposed %v, %d threads), C strided", s, k, transB, pool.Threads())
					if v, panicked := oracle.Panics(func() {
						if transB {
							MatMulT(pool, k, c, a, b)
						} else {
							MatMul(pool, k, c, a, b)
						}
					}); panicked {
						t.Errorf("%s panicked: %v; a C with no columns has nothing to compute: return before sharing the product out", what, v)
						continue
					}
					checkC(t, what, c, a, b, transB)
				}
			}
		}
	}
}

// secondProductEnv, set in a child process of this test binary, makes
// TestC3_4_SecondProduct run its products there.
const secondProductEnv = "FORGE_UNIT03_SECOND_PRODUCT"

// mallocs returns the number of heap allocations f makes, on one OS thread
// as testing.AllocsPerRun counts them, but without a warm-up call.
func mallocs(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// TestC3_4_SecondProduct checks, in a fresh process (a child of this test
// binary), that the second product of a process (every kernel, one thread)
// already allocates nothing: the first leaves its packing buffers on a free
// list, and the second must take them from there. In this process earlier
// tests have left several behind, which would hide a free list that keeps
// its last object instead of handing it out.
func TestC3_4_SecondProduct(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	if os.Getenv(secondProductEnv) == "" {
		if out, ok := oracle.RunChild(t, "TestC3_4_SecondProduct", secondProductEnv+"=1"); !ok {
			t.Errorf("in a fresh process, a second product allocated (or failed); the child's output:\n%s", out)
		}
		return
	}
	g := oracle.NewRand(44)
	for _, k := range Kernels() {
		c, a, b := operands(g, shape{13, 40, 30}, true, true)
		MatMulT(nil, k, c, a, b)
		if n := mallocs(func() { MatMulT(nil, k, c, a, b) }); n != 0 {
			t.Errorf("MatMulT %v kernel %v on one thread: the second call of a process allocates %d times, want 0: put the packing buffers back on the free list after each product, and have get hand out every object the list holds, the last one included", shape{13, 40, 30}, k, n)
		}
	}
}
