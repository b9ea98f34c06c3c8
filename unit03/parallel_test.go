package unit03

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmforge/forge/oracle"
)

func TestC3_3_Pool(t *testing.T) {
	base := runtime.NumGoroutine()
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
	// one of its own in between. Each try first lets the workers of the
	// pools closed before it end: they do so on their own schedule.)
	started := 0
	for range 5 {
		settle(base)
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

// TestC3_3_PoolLifecycle runs calls after the workers have been idle long
// enough to park (the reference spins for 200 µs first), and checks that
// Close ends every worker, twice without a panic.
func TestC3_3_PoolLifecycle(t *testing.T) {
	before := runtime.NumGoroutine()
	p := NewPool(3)
	for round := range 4 {
		time.Sleep(2 * time.Millisecond) // long enough for any idle worker to park
		task := new(countTask)
		done := make(chan struct{})
		go func() { p.RunTask(7, task); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Pool(3).RunTask(7, t) after an idle pause (round %d) has not returned in 10 s: a worker that parked was never woken (a post must wake a sleeping worker)", round)
		}
		for i := range 7 {
			if got := task.hits[i].Load(); got != 1 {
				t.Fatalf("Pool(3).RunTask(7, t) after an idle pause (round %d) ran part %d %d times, want once: a worker that parked must wake for the next call", round, i, got)
			}
		}
	}
	p.Close()
	if _, panicked := oracle.Panics(p.Close); panicked {
		t.Fatalf("a second Close panicked: guard it (sync.Once)")
	}
	// The workers end on their own schedule: give them a second.
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if left := runtime.NumGoroutine() - before; left > 0 {
		t.Errorf("%d goroutines still running a second after Close of a 3-thread pool: Close must end every worker, parked or spinning", left)
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

// TestC3_3_PoolPostRacesPark posts calls at the moments an idle worker
// decides to park: pauses between calls scattered around the 200 µs a
// worker may spin, so that posts land just before, during and just after
// its parking. A post lost in that race leaves a worker asleep and the call
// waiting forever.
func TestC3_3_PoolPostRacesPark(t *testing.T) {
	calls := 1500
	if testing.Short() {
		calls = 300
	}
	for _, threads := range []int{2, 3} {
		p := NewPool(threads)
		var done atomic.Int64
		finished := make(chan struct{})
		g := oracle.NewRand(uint64(threads))
		pauses := make([]time.Duration, calls)
		for i := range pauses {
			pauses[i] = time.Duration(g.Intn(400)) * time.Microsecond
		}
		go func() {
			defer close(finished)
			for _, pause := range pauses {
				time.Sleep(pause)
				task := new(countTask)
				p.RunTask(threads, task)
				for i := range threads {
					if task.hits[i].Load() != 1 {
						return
					}
				}
				done.Add(1)
			}
		}()
		select {
		case <-finished:
		case <-time.After(60 * time.Second):
			t.Fatalf("Pool(%d): call %d of %d, posted after an idle pause, has not returned in 60 s: a post that races a worker's parking was lost (the worker sleeps, the caller waits)", threads, done.Load()+1, calls)
		}
		if got := done.Load(); got != int64(calls) {
			t.Fatalf("Pool(%d): call %d of %d ran a part other than once", threads, got+1, calls)
		}
		p.Close()
	}
}

// settle waits up to a second for the number of goroutines to fall back to
// base: the workers of a closed pool end soon after Close, not within it.
func settle(base int) {
	for deadline := time.Now().Add(time.Second); runtime.NumGoroutine() > base && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// TestC3_3_PoolIdleParks checks that an idle pool's workers stop using the
// processor: a few milliseconds after a call, every goroutine the package
// started must be blocked (on a channel, a lock, a condition), not running
// or waiting to run. A worker that spins forever keeps a core busy in an
// engine that has nothing to do.
func TestC3_3_PoolIdleParks(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	p.RunTask(3, new(countTask))
	for try := 0; ; try++ {
		time.Sleep(20 * time.Millisecond) // far beyond any spin before parking
		busy := busyWorkers()
		if busy == 0 {
			return
		}
		if try == 4 {
			t.Fatalf("%d of a 3-thread pool's 2 workers still running or runnable 20 ms after its last call (5 looks): an idle worker must park (block on a channel) after a short spin, not poll forever", busy)
		}
	}
}

// busyWorkers counts the goroutines started by package unit03 (NewPool,
// or a helper it calls) whose state in a stack dump is running or
// runnable. The test's own goroutines are started by the testing package.
func busyWorkers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	busy := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "created by github.com/llmforge/forge/unit03.") &&
			(strings.Contains(g, "[running]") || strings.Contains(g, "[runnable]")) {
			busy++
		}
	}
	return busy
}
