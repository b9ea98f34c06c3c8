package unit15

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
	panic("TODO(15.1): write Launch, see docs/unit15.md")
}

// Thread is one thread of a launch: where it is, and its access to memory.
type Thread struct {
	Idx, BlockIdx, BlockDim, GridDim Dim3
	// TODO(15.1): what a thread needs to reach its block, its warp's
	// counters and its turn to run.
}

// Load reads word i of g (g.Data[i]), counted as this thread's part of a
// warp's global load.
func (t *Thread) Load(g *Global, i int) float32 {
	panic("TODO(15.1): write Thread.Load, see docs/unit15.md")
}

// Store writes v to word i of g, counted as this thread's part of a warp's
// global store.
func (t *Thread) Store(g *Global, i int, v float32) {
	panic("TODO(15.1): write Thread.Store, see docs/unit15.md")
}

// SharedLoad reads word i of the block's shared memory.
func (t *Thread) SharedLoad(i int) float32 {
	panic("TODO(15.1): write Thread.SharedLoad, see docs/unit15.md")
}

// SharedStore writes v to word i of the block's shared memory.
func (t *Thread) SharedStore(i int, v float32) {
	panic("TODO(15.1): write Thread.SharedStore, see docs/unit15.md")
}

// SyncThreads is __syncthreads: the thread waits until every thread of its
// block has reached it; what any of them wrote to shared memory before is
// then visible to all.
func (t *Thread) SyncThreads() {
	panic("TODO(15.1): write Thread.SyncThreads, see docs/unit15.md")
}
