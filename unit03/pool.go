package unit03

import (
	"sync"
	"sync/atomic"
)

// Pool is a fixed set of worker goroutines, started once and reused by every
// parallel call: handing work to a waiting goroutine costs far less than
// starting one per call. Between calls a worker spins for a while before it
// parks, so that the parallel calls of a forward pass, microseconds apart,
// find it awake. A Pool runs one Run or RunTask at a time; calls from
// several goroutines at once must be serialised by the caller.
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
// posted to it, times two, plus 1 while the worker is parked on wake. Every
// change of state is one compare-and-swap on that one word.
type poolWorker struct {
	state atomic.Uint64
	wake  chan struct{} // buffered: a post never blocks
	_     [64]byte      // keep two workers' states off one cache line
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
