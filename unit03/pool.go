package unit03

import (
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
	panic("TODO(3.3): write NewPool, see docs/unit03.md")
}

// Threads is the number of goroutines Run spreads work over.
func (p *Pool) Threads() int {
	panic("TODO(3.3): write Pool.Threads, see docs/unit03.md")
}

// Run calls f(0), …, f(n−1), spread over the pool's goroutines (the caller's
// included), and returns when all have returned. A nil Pool runs them in
// order on the caller. A closure handed to other goroutines escapes to the
// heap, so each Run costs an allocation; hot paths use RunTask.
func (p *Pool) Run(n int, f func(i int)) {
	panic("TODO(3.3): write Pool.Run, see docs/unit03.md")
}

// RunTask is Run for a Task: it calls t.Do(0), …, t.Do(n−1) the same way.
// A pointer to a struct the caller keeps passes through the Task interface
// without an allocation, so a RunTask in steady state allocates nothing.
func (p *Pool) RunTask(n int, t Task) {
	panic("TODO(3.3): write Pool.RunTask, see docs/unit03.md")
}

// Close stops the pool's goroutines. The pool must not be used afterwards.
func (p *Pool) Close() {
	panic("TODO(3.3): write Pool.Close, see docs/unit03.md")
}
