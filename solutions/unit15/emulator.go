package unit15

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

// Launch runs k on a grid of blocks of block threads each, every block
// with shared words of shared memory (float32s, zeroed), and returns what
// the launch did (Stats, whose Shared is that number of words). The blocks run one after another; inside a
// block the threads run one at a time in the order of their linear index
// (x fastest), each until it reaches SyncThreads or returns, then the next:
// a barrier is a real one, and a kernel that skips one reads what was not
// written yet. It is an error, and the launch stops, if the block has no
// thread or more than 1024, or the grid no block; if a thread reads or
// writes a word outside a Global or the shared memory; if two threads of
// a block touch one shared word with no SyncThreads between, one of them
// writing (a race, which on a GPU gives a result that depends on timing);
// or if some threads of a block wait at SyncThreads while others have
// returned (a barrier not every thread reaches, which on a GPU hangs or
// corrupts). The error wraps unit00.ErrInvalid and says where and what:
// the thread and its block; for an access out of range, whether it reads
// or writes and which word (checked before the access, not left to Go's
// index check); for a race, the word, whether the thread at fault reads
// or writes it, and the thread it races with ("other threads" when
// several read it); for a barrier, a thread that returned and one that
// waits at SyncThreads.
func Launch(grid, block Dim3, shared int, k Kernel) (Stats, error) {
	if grid.X < 1 || grid.Y < 1 || grid.Z < 1 || block.X < 1 || block.Y < 1 || block.Z < 1 || block.Size() > MaxThreads || shared < 0 {
		return Stats{}, fmt.Errorf("launch: grid %v of blocks %v with %d shared words: want at least one block, 1 to %d threads a block, shared ≥ 0: %w", grid, block, shared, MaxThreads, unit00.ErrInvalid)
	}
	st := Stats{Shared: shared}
	for z := range grid.Z {
		for y := range grid.Y {
			for x := range grid.X {
				b := newBlock(grid, block, Dim3{x, y, z}, shared)
				if err := b.run(k); err != nil {
					return st, err
				}
				st.add(b.stats())
			}
		}
	}
	return st, nil
}

// Thread is one thread of a launch: where it is, and its access to memory.
type Thread struct {
	Idx, BlockIdx, BlockDim, GridDim Dim3

	b    *block
	id   int // linear index in the block
	warp *warpLog
	nG   int // global accesses so far: the k of the next one
	nS   int // shared accesses so far
	wake chan bool
}

// Load reads word i of g (g.Data[i]), counted as this thread's part of a
// warp's global load.
func (t *Thread) Load(g *Global, i int) float32 {
	t.checkGlobal(g, i, "reads")
	t.warp.global(t.nG, false, i)
	t.nG++
	return g.Data[i]
}

// Store writes v to word i of g, counted as this thread's part of a warp's
// global store.
func (t *Thread) Store(g *Global, i int, v float32) {
	t.checkGlobal(g, i, "writes")
	t.warp.global(t.nG, true, i)
	t.nG++
	g.Data[i] = v
}

// SharedLoad reads word i of the block's shared memory.
func (t *Thread) SharedLoad(i int) float32 {
	t.checkShared(i, "reads")
	t.b.touch(t, i, false)
	t.warp.shared(t.nS, i)
	t.nS++
	return t.b.sh[i]
}

// SharedStore writes v to word i of the block's shared memory.
func (t *Thread) SharedStore(i int, v float32) {
	t.checkShared(i, "writes")
	t.b.touch(t, i, true)
	t.warp.shared(t.nS, i)
	t.nS++
	t.b.sh[i] = v
}

// SyncThreads is __syncthreads: the thread waits until every thread of its
// block has reached it; what any of them wrote to shared memory before is
// then visible to all.
func (t *Thread) SyncThreads() {
	t.b.done <- event{id: t.id, kind: atBarrier}
	if !<-t.wake {
		panic(abort{})
	}
}

func (t *Thread) checkGlobal(g *Global, i int, verb string) {
	if i < 0 || i >= len(g.Data) {
		t.fail(fmt.Sprintf("%s global word %d of a buffer of %d", verb, i, len(g.Data)))
	}
}

func (t *Thread) checkShared(i int, verb string) {
	if i < 0 || i >= len(t.b.sh) {
		t.fail(fmt.Sprintf("%s shared word %d of %d", verb, i, len(t.b.sh)))
	}
}

// fail stops the thread with an error the launch returns.
func (t *Thread) fail(what string) {
	panic(launchError{fmt.Errorf("launch: thread %v of block %v %s: %w", t.Idx, t.BlockIdx, what, unit00.ErrInvalid)})
}

// launchError carries a thread's error out of its goroutine; abort stops a
// thread whose block has failed.
type (
	launchError struct{ err error }
	abort       struct{}
)

// event is what a thread tells its block's scheduler when it stops running.
type event struct {
	id   int
	kind int
	err  error
}

const (
	atBarrier = iota
	exited
	failed
)
