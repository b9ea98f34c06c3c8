package unit03

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Pool is a fixed set of worker goroutines, started once and reused by every
// parallel call: handing work to a waiting goroutine costs far less than
// starting one per call. Between calls a worker spins for a while before it
// parks (see poolWorker.wait), so that the parallel calls of a forward pass,
// microseconds apart, find it awake. A Pool runs one Run or RunTask at a
// time; calls from several goroutines at once must be serialised by the
// caller.
type Pool struct {
	threads int
	workers []*poolWorker // threads − 1 of them; the caller is thread 0

	// The call in progress, written by RunTask before it posts to the
	// workers and read by them after they see the post.
	task    Task
	n       int
	pending atomic.Int32 // workers still running their parts of the call
	closed  atomic.Bool
	close   sync.Once
}

// poolWorker is one worker's mailbox: state holds the number of calls
// posted to it, times two, plus 1 while it is parked on wake. Every change
// of state is one compare-and-swap on that one word, so the worker and the
// caller agree on the order of "posted" and "parked" without relying on how
// two different words are ordered (a lost wake-up there would leave the
// worker asleep and the caller waiting forever).
type poolWorker struct {
	state atomic.Uint64
	wake  chan struct{} // buffered: a post never blocks
	_     [64]byte      // keep two workers' states off one cache line
}

// spinFor is how long an idle worker polls for the next call before it
// parks. Measured on a 2-core VM: handing a part to a parked goroutine
// while the caller works on its own part started that part 20–100 µs late
// (the woken goroutine is queued on the caller's own processor, and an idle
// one steals it only after a sleep that Linux's timer slack stretches);
// a spinning worker starts it within a microsecond. The gaps between the
// parallel calls of a decode step are a few microseconds, far under this.
const spinFor = 200 * time.Microsecond

// NewPool starts a pool of threads goroutines in all (threads ≤ 0 means
// GOMAXPROCS): Run uses the calling goroutine as one of them, so the pool
// starts threads − 1.
func NewPool(threads int) *Pool {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	p := &Pool{threads: threads}
	for id := 1; id < threads; id++ {
		w := &poolWorker{wake: make(chan struct{}, 1)}
		p.workers = append(p.workers, w)
		go p.work(id, w)
	}
	return p
}

// work is worker id's loop: wait for a post, run parts id, id+threads, …
// of the call, report done.
func (p *Pool) work(id int, w *poolWorker) {
	var seen uint64
	for {
		seen = w.wait(seen)
		if p.closed.Load() {
			return
		}
		for i := id; i < p.n; i += p.threads {
			p.task.Do(i)
		}
		p.pending.Add(-1)
	}
}

// wait returns the number of calls posted once it differs from seen: it
// polls for spinFor, yielding the processor between rounds of polls so that
// other goroutines still run, then parks on wake until a post wakes it.
func (w *poolWorker) wait(seen uint64) uint64 {
	for start := time.Now(); time.Since(start) < spinFor; runtime.Gosched() {
		for range 64 {
			if s := w.state.Load() >> 1; s != seen {
				return s
			}
		}
	}
	for {
		// Park only if no call came since seen: the swap fails if one did.
		if w.state.CompareAndSwap(seen<<1, seen<<1|1) {
			<-w.wake // the post that clears the bit sends exactly once
		}
		if s := w.state.Load() >> 1; s != seen {
			return s
		}
	}
}

// post tells w that a call is ready: it counts the call and clears the
// parked bit in one swap, and wakes w if the bit was set.
func (w *poolWorker) post() {
	for {
		old := w.state.Load()
		if w.state.CompareAndSwap(old, (old+2)&^1) {
			if old&1 != 0 {
				w.wake <- struct{}{}
			}
			return
		}
	}
}

// Threads is the number of goroutines Run spreads work over.
func (p *Pool) Threads() int {
	if p == nil {
		return 1
	}
	return p.threads
}

// Run calls f(0), …, f(n−1), spread over the pool's goroutines (the caller's
// included), and returns when all have returned. A nil Pool runs them in
// order on the caller. A closure handed to other goroutines escapes to the
// heap, so each Run costs an allocation; hot paths use RunTask.
func (p *Pool) Run(n int, f func(i int)) {
	p.RunTask(n, TaskFunc(f))
}

// RunTask is Run for a Task: it calls t.Do(0), …, t.Do(n−1) the same way.
// A pointer to a struct the caller keeps passes through the Task interface
// without an allocation, so a RunTask in steady state allocates nothing.
// Thread k runs parts k, k+threads, k+2·threads, …: the parts of a call
// are usually equal slabs, one per thread, so a fixed deal balances them.
func (p *Pool) RunTask(n int, t Task) {
	if p == nil || p.threads == 1 || n <= 1 {
		for i := 0; i < n; i++ {
			t.Do(i)
		}
		return
	}
	busy := min(n, p.threads) - 1 // workers with at least one part
	p.task, p.n = t, n
	p.pending.Store(int32(busy))
	for _, w := range p.workers[:busy] {
		w.post()
	}
	for i := 0; i < n; i += p.threads {
		t.Do(i)
	}
	for p.pending.Load() != 0 {
		runtime.Gosched()
	}
	p.task = nil // drop the caller's task
}

// Close stops the pool's goroutines. The pool must not be used afterwards.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	p.close.Do(func() {
		p.closed.Store(true)
		for _, w := range p.workers {
			w.post()
		}
	})
}
