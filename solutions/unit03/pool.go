package unit03

import (
	"runtime"
	"sync"
)

// Pool is a fixed set of worker goroutines, started once and reused by every
// parallel call: handing work to a waiting goroutine costs far less than
// starting one per call. A Pool runs one Run or RunTask at a time; calls
// from several goroutines at once must be serialised by the caller.
type Pool struct {
	threads int
	jobs    chan poolJob
	wg      sync.WaitGroup
	close   sync.Once
}

// poolJob asks a worker to run part i of t.
type poolJob struct {
	t Task
	i int
}

// NewPool starts a pool of threads goroutines in all (threads ≤ 0 means
// GOMAXPROCS): Run uses the calling goroutine as one of them, so the pool
// starts threads − 1.
func NewPool(threads int) *Pool {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	p := &Pool{threads: threads, jobs: make(chan poolJob, threads)}
	for w := 1; w < threads; w++ {
		go p.work()
	}
	return p
}

func (p *Pool) work() {
	for j := range p.jobs {
		j.t.Do(j.i)
		p.wg.Done()
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
func (p *Pool) RunTask(n int, t Task) {
	if p == nil || p.threads == 1 || n <= 1 {
		for i := 0; i < n; i++ {
			t.Do(i)
		}
		return
	}
	p.wg.Add(n - 1)
	for i := 1; i < n; i++ {
		p.jobs <- poolJob{t: t, i: i}
	}
	t.Do(0)
	p.wg.Wait()
}

// Close stops the pool's goroutines. The pool must not be used afterwards.
func (p *Pool) Close() {
	if p != nil {
		p.close.Do(func() { close(p.jobs) })
	}
}
