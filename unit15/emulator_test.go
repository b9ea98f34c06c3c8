package unit15

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/unit00"
)

func TestC15_1_Indices(t *testing.T) {
	for _, tc := range []struct{ grid, block Dim3 }{
		{Dim3{1, 1, 1}, Dim3{1, 1, 1}},
		{Dim3{3, 2, 2}, Dim3{4, 3, 2}},
		{Dim3{2, 1, 1}, Dim3{33, 1, 1}}, // a warp and a bit
		{Dim3{1, 1, 1}, Dim3{8, 8, 16}}, // 1024, the most
		{Dim3{1, 5, 1}, Dim3{1, 1, 3}},
	} {
		n := tc.grid.Size() * tc.block.Size()
		out := &Global{Data: make([]float32, 4*n)}
		st, err := Launch(tc.grid, tc.block, 0, func(th *Thread) {
			if th.BlockDim != tc.block || th.GridDim != tc.grid {
				panic(fmt.Sprintf("BlockDim %v GridDim %v", th.BlockDim, th.GridDim))
			}
			b := (th.BlockIdx.Z*tc.grid.Y+th.BlockIdx.Y)*tc.grid.X + th.BlockIdx.X
			i := (th.Idx.Z*tc.block.Y+th.Idx.Y)*tc.block.X + th.Idx.X
			g := b*tc.block.Size() + i
			th.Store(out, 4*g, 1+out.Data[4*g]) // every thread exactly once
			th.Store(out, 4*g+1, float32(th.Idx.X))
			th.Store(out, 4*g+2, float32(th.Idx.Y))
			th.Store(out, 4*g+3, float32(th.Idx.Z))
		})
		require.NoError(t, err, "Launch(grid %v, block %v)", tc.grid, tc.block)
		want := make([]float32, 4*n)
		for g := range n {
			i := g % tc.block.Size()
			want[4*g], want[4*g+1], want[4*g+2], want[4*g+3] = 1, float32(i%tc.block.X), float32(i/tc.block.X%tc.block.Y), float32(i/(tc.block.X*tc.block.Y))
		}
		if diff := cmp.Diff(want, out.Data); diff != "" {
			t.Fatalf("Launch(grid %v, block %v): each thread writes 1 and its (x, y, z) at its linear index (-want +got):\n%s", tc.grid, tc.block, diff)
		}
		if st.Blocks != tc.grid.Size() || st.Threads != n {
			t.Errorf("Launch(grid %v, block %v): Stats says %d blocks and %d threads, want %d and %d", tc.grid, tc.block, st.Blocks, st.Threads, tc.grid.Size(), n)
		}
	}
}

// rotate is a kernel that passes values round the block through shared
// memory, rounds times: each thread writes its word, waits, reads its
// neighbour's, waits. Without the barriers a thread reads a word its
// neighbour has not written yet.
func rotate(out *Global, n, rounds int, barriers bool) Kernel {
	return func(th *Thread) {
		id := th.Idx.X
		v := float32(id)
		for range rounds {
			th.SharedStore(id, v)
			if barriers {
				th.SyncThreads()
			}
			v = th.SharedLoad((id + 1) % n)
			if barriers {
				th.SyncThreads()
			}
		}
		th.Store(out, id, v)
	}
}

func TestC15_1_Barrier(t *testing.T) {
	for _, n := range []int{2, 31, 32, 33, 256} {
		for _, rounds := range []int{1, 3} {
			out := &Global{Data: make([]float32, n)}
			st, err := Launch(Dim3{1, 1, 1}, Dim3{n, 1, 1}, n, rotate(out, n, rounds, true))
			require.NoError(t, err, "a kernel with its barriers (%d threads, %d rounds)", n, rounds)
			for i, v := range out.Data {
				if want := float32((i + rounds) % n); v != want {
					t.Fatalf("%d threads, %d rounds: thread %d ended with %v, want %v: SyncThreads must wait for every thread of the block", n, rounds, i, v, want)
				}
			}
			if st.Shared != n {
				t.Errorf("%d threads: Stats.Shared = %d, want %d (the shared words each block was given)", n, st.Shared, n)
			}
			if st.Barriers != 2*rounds {
				t.Errorf("%d threads, %d rounds: Stats.Barriers = %d, want %d (one per SyncThreads the block passed)", n, rounds, st.Barriers, 2*rounds)
			}
			noLeak(t, "a launch without its barriers", func() {
				_, err = Launch(Dim3{1, 1, 1}, Dim3{n, 1, 1}, n, rotate(out, n, rounds, false))
			})
			require.ErrorIs(t, err, unit00.ErrInvalid, "%d threads: the kernel without SyncThreads races on shared memory", n)
			require.Contains(t, err.Error(), "race", "the error says what went wrong")
		}
	}
	// Several blocks: each has its own shared memory, zeroed.
	out := &Global{Data: make([]float32, 12)}
	_, err := Launch(Dim3{3, 1, 1}, Dim3{4, 1, 1}, 4, func(th *Thread) {
		if v := th.SharedLoad(th.Idx.X); v != 0 {
			panic("shared memory not zeroed for a new block")
		}
		th.SyncThreads()
		th.SharedStore(th.Idx.X, float32(th.BlockIdx.X))
		th.SyncThreads()
		th.Store(out, th.BlockIdx.X*4+th.Idx.X, th.SharedLoad(3-th.Idx.X))
	})
	require.NoError(t, err)
	if diff := cmp.Diff([]float32{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, out.Data); diff != "" {
		t.Errorf("three blocks of four, each reading its own shared memory (-want +got):\n%s", diff)
	}
}

func TestC15_1_Races(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    Kernel
		race []string // what the error must say (the thread at fault first, then the one before it); nil: no race
	}{
		{"two threads write one word", func(th *Thread) { th.SharedStore(0, 1) }, []string{"thread {1 0 0}", "writes", "thread {0 0 0}"}},
		{"a read after another's write", func(th *Thread) {
			if th.Idx.X == 0 {
				th.SharedStore(5, 1)
			} else {
				th.SharedLoad(5)
			}
		}, []string{"thread {1 0 0}", "reads", "thread {0 0 0}"}},
		{"a write after another's read", func(th *Thread) {
			if th.Idx.X == 0 {
				th.SharedLoad(5)
			} else {
				th.SharedStore(5, 1)
			}
		}, []string{"thread {1 0 0}", "writes", "thread {0 0 0}"}},
		{"thread 1 reads, thread 2 writes", func(th *Thread) {
			switch th.Idx.X {
			case 1:
				th.SharedLoad(7)
			case 2:
				th.SharedStore(7, 1)
			}
		}, []string{"thread {2 0 0}", "writes", "thread {1 0 0}"}},
		{"two read, then one of them writes", func(th *Thread) {
			if th.Idx.X < 2 {
				th.SharedLoad(3)
			}
			th.SyncThreads()
			th.SharedLoad(2)
			if th.Idx.X == 2 {
				th.SharedStore(2, 1)
			}
		}, []string{"thread {2 0 0}", "writes", "shared word 2"}},
		{"a read by one thread, then its own write", func(th *Thread) {
			th.SharedLoad(th.Idx.X)
			th.SharedStore(th.Idx.X, 2)
			if th.Idx.X == 1 {
				th.SharedLoad(0) // thread 0 read and wrote word 0 in this epoch
			}
		}, []string{"thread {1 0 0}", "reads", "thread {0 0 0}"}},
		{"everyone reads one word", func(th *Thread) { th.SharedLoad(3) }, nil},
		{"each reads its own word twice, then writes it", func(th *Thread) {
			th.SharedLoad(th.Idx.X)
			th.SharedLoad(th.Idx.X)
			th.SharedStore(th.Idx.X, 1)
		}, nil},
		{"each its own word, read and written many times", func(th *Thread) {
			th.SharedStore(th.Idx.X, 1)
			th.SharedStore(th.Idx.X, th.SharedLoad(th.Idx.X)+1)
		}, nil},
		{"a write, a barrier, a read", func(th *Thread) {
			if th.Idx.X == 0 {
				th.SharedStore(5, 1)
			}
			th.SyncThreads()
			th.SharedLoad(5)
		}, nil},
		{"reads, a barrier, a write", func(th *Thread) {
			th.SharedLoad(5)
			th.SyncThreads()
			if th.Idx.X == 2 {
				th.SharedStore(5, 1)
			}
		}, nil},
	} {
		var err error
		noLeak(t, tc.name, func() { _, err = Launch(Dim3{2, 1, 1}, Dim3{3, 1, 1}, 8, tc.k) })
		if tc.race == nil {
			require.NoError(t, err, "%s: no race", tc.name)
			continue
		}
		require.ErrorIs(t, err, unit00.ErrInvalid, "%s: a race", tc.name)
		for _, want := range append([]string{"race", "block {0 0 0}"}, tc.race...) {
			require.Contains(t, err.Error(), want, "%s: the error says it is a race, names the block, the thread at fault, whether it reads or writes, and the thread whose access it races with", tc.name)
		}
	}
	// Two readers, then a write by a third: the error cannot name one reader.
	_, err := Launch(Dim3{1, 1, 1}, Dim3{3, 1, 1}, 1, func(th *Thread) {
		if th.Idx.X < 2 {
			th.SharedLoad(0)
		} else {
			th.SharedStore(0, 1)
		}
	})
	require.ErrorIs(t, err, unit00.ErrInvalid)
	require.Contains(t, err.Error(), "thread {2 0 0} of block {0 0 0} writes shared word 0")
}

func TestC15_1_Errors(t *testing.T) {
	ok := func(*Thread) {}
	for _, tc := range []struct {
		grid, block Dim3
		shared      int
	}{
		{Dim3{0, 1, 1}, Dim3{1, 1, 1}, 0}, {Dim3{1, 1, 0}, Dim3{1, 1, 1}, 0}, {Dim3{1, -1, 1}, Dim3{1, 1, 1}, 0}, {Dim3{1, 0, 1}, Dim3{1, 1, 1}, 0},
		{Dim3{1, 1, 1}, Dim3{0, 1, 1}, 0}, {Dim3{1, 1, 1}, Dim3{1, 0, 1}, 0}, {Dim3{1, 1, 1}, Dim3{1, 1, 0}, 0},
		{Dim3{1, 1, 1}, Dim3{1025, 1, 1}, 0}, {Dim3{1, 1, 1}, Dim3{32, 32, 2}, 0}, {Dim3{1, 1, 1}, Dim3{1, 1, 1}, -1},
	} {
		_, err := Launch(tc.grid, tc.block, tc.shared, ok)
		require.ErrorIs(t, err, unit00.ErrInvalid, "Launch(grid %v, block %v, shared %d)", tc.grid, tc.block, tc.shared)
	}
	g := &Global{Data: make([]float32, 10)}
	for _, tc := range []struct {
		name string
		want []string // what the error must say
		k    Kernel
	}{
		{"a load past the end", []string{"thread {3 0 0} of block {1 0 0}", "reads global word 10"}, func(th *Thread) {
			th.Load(g, th.BlockIdx.X*4+th.Idx.X+3)
		}},
		{"a store before the start", []string{"thread {0 0 0} of block {0 0 0}", "writes global word -1"}, func(th *Thread) { th.Store(g, th.Idx.X-1, 1) }},
		{"a shared load past the end", []string{"thread {2 0 0} of block {0 0 0}", "reads shared word 8"}, func(th *Thread) { th.SharedLoad(th.Idx.X * 4) }},
		{"a shared store at −1", []string{"thread {0 0 0} of block {0 0 0}", "writes shared word -1"}, func(th *Thread) { th.SharedStore(th.Idx.X-1, 0) }},
		{"a barrier thread 1 skips", []string{"block {0 0 0}", "thread {1 0 0}", "SyncThreads"}, func(th *Thread) {
			if th.Idx.X != 1 {
				th.SyncThreads()
			}
		}},
		{"a barrier thread 0 skips", []string{"block {0 0 0}", "thread {0 0 0}", "SyncThreads"}, func(th *Thread) {
			if th.Idx.X != 0 {
				th.SyncThreads()
			}
		}},
		{"a barrier only thread 3 reaches", []string{"block {0 0 0}", "thread {3 0 0}", "SyncThreads"}, func(th *Thread) {
			if th.Idx.X == 3 {
				th.SyncThreads()
			}
		}},
		{"a panic in the kernel", []string{"thread {2 0 0} of block {0 0 0}", "index out of range"}, func(th *Thread) {
			th.SyncThreads()
			if th.Idx.X == 2 {
				var s []int
				_ = s[th.Idx.X]
			}
		}},
	} {
		var err error
		noLeak(t, tc.name, func() { _, err = Launch(Dim3{2, 1, 1}, Dim3{4, 1, 1}, 8, tc.k) })
		require.ErrorIs(t, err, unit00.ErrInvalid, tc.name)
		for _, want := range tc.want {
			require.Contains(t, err.Error(), want, "%s: the error names the thread, the block and what it did, checked before the access (not Go's own index check)", tc.name)
		}
	}
	for i, v := range g.Data {
		require.Zero(t, v, "nothing was stored at %d by a launch that failed before its stores", i)
	}
}

func TestC15_1_Coalescing(t *testing.T) {
	g := &Global{Data: make([]float32, 64*33+8)}
	for _, tc := range []struct {
		name              string
		threads           int
		index             func(i int) int
		requests, sectors int
	}{
		{"neighbouring words", 64, func(i int) int { return i }, 2, 8},                 // 128 bytes a warp: 4 sectors
		{"one word for all", 64, func(int) int { return 5 }, 2, 2},                     // a broadcast
		{"a sector apart", 64, func(i int) int { return 8 * i }, 2, 64},                // 32 sectors a warp
		{"two words apart", 64, func(i int) int { return 2 * i }, 2, 16},               // 8 sectors a warp
		{"one word off", 64, func(i int) int { return i + 1 }, 2, 10},                  // 5 sectors a warp
		{"backwards", 64, func(i int) int { return 63 - i }, 2, 8},                     // the order inside a warp is free
		{"a warp and a bit", 40, func(i int) int { return i }, 2, 5},                   // 4 + 1
		{"a column of a 33-wide matrix", 32, func(i int) int { return 33 * i }, 1, 32}, // the transposed read
	} {
		st, err := Launch(Dim3{1, 1, 1}, Dim3{tc.threads, 1, 1}, 0, func(th *Thread) { th.Load(g, tc.index(th.Idx.X)) })
		require.NoError(t, err)
		if st.LoadRequests != tc.requests || st.LoadSectors != tc.sectors {
			t.Errorf("%s (%d threads): %d load requests moving %d sectors, want %d and %d: a warp's k-th loads are one request, and a request moves each 32-byte sector it touches once",
				tc.name, tc.threads, st.LoadRequests, st.LoadSectors, tc.requests, tc.sectors)
		}
		if st.LoadBytes() != 32*tc.sectors || st.StoreRequests != 0 || st.SharedRequests != 0 {
			t.Errorf("%s: %+v: loads only", tc.name, st)
		}
		st, err = Launch(Dim3{2, 1, 1}, Dim3{tc.threads, 1, 1}, 0, func(th *Thread) {
			th.Store(g, tc.index(th.Idx.X), 1)
			th.Store(g, tc.index(th.Idx.X), 2)
		})
		require.NoError(t, err)
		if st.StoreRequests != 4*tc.requests || st.StoreSectors != 4*tc.sectors || st.LoadRequests != 0 {
			t.Errorf("%s, stored twice by 2 blocks: %d store requests moving %d sectors (and %d loads), want %d and %d", tc.name, st.StoreRequests, st.StoreSectors, st.LoadRequests, 4*tc.requests, 4*tc.sectors)
		}
	}
}

func TestC15_1_BankConflicts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threads   int
		index     func(i int) int
		conflicts int // per request
	}{
		{"neighbouring words", 32, func(i int) int { return i }, 0},
		{"one word for all", 32, func(int) int { return 7 }, 0}, // a broadcast
		{"two words apart", 32, func(i int) int { return 2 * i }, 1},
		{"a column of a 32-wide tile", 32, func(i int) int { return 32 * i }, 31},
		{"a column of a 33-wide tile", 32, func(i int) int { return 33 * i }, 0}, // padding
		{"four words apart", 32, func(i int) int { return 4 * i }, 3},
		{"half the warp on one word", 32, func(i int) int { return (i % 2) * 32 }, 1},
		{"a column of a 32-wide tile, 8 threads", 8, func(i int) int { return 32 * i }, 7},
	} {
		st, err := Launch(Dim3{1, 1, 1}, Dim3{tc.threads, 1, 1}, 32*33, func(th *Thread) {
			th.SharedStore(tc.index(th.Idx.X)%(32*33), 1) // a store: races only if two threads take one word
		})
		if tc.name == "one word for all" || tc.name == "half the warp on one word" {
			require.Error(t, err, "%s: two threads storing one word race", tc.name)
			st, err = Launch(Dim3{1, 1, 1}, Dim3{tc.threads, 1, 1}, 32*33, func(th *Thread) { th.SharedLoad(tc.index(th.Idx.X)) })
		}
		require.NoError(t, err, tc.name)
		if st.SharedRequests != 1 || st.BankConflicts != tc.conflicts {
			t.Errorf("%s: %d shared requests with %d bank conflicts, want 1 with %d: a request takes as many passes as the most distinct words any one bank (word mod 32) must give; the same word to many threads is free",
				tc.name, st.SharedRequests, st.BankConflicts, tc.conflicts)
		}
	}
}

func TestC15_1_BankConflictsAddUp(t *testing.T) {
	// Two blocks of two warps, each warp two requests: a 2-way and a
	// 32-way conflict. Every request's passes add up.
	st, err := Launch(Dim3{2, 1, 1}, Dim3{64, 1, 1}, 4096, func(th *Thread) {
		th.SharedStore(2*th.Idx.X, 1)
		th.SharedStore(128+32*th.Idx.X, 2)
	})
	require.NoError(t, err)
	if st.SharedRequests != 8 || st.BankConflicts != 2*2*(1+31) {
		t.Errorf("two blocks of two warps, a 2-way and a 32-way conflict each: %d requests, %d conflicts; want 8 and %d", st.SharedRequests, st.BankConflicts, 2*2*(1+31))
	}
}

func TestC15_1_Occupancy(t *testing.T) {
	for _, tc := range []struct {
		gpu                  GPU
		threads, regs, bytes int
		want                 Occupancy
	}{
		// 8 warps a block: 64/8 = 8 by warps; registers 32·32 = 1024 a warp, 64 warps, 8 blocks; ties go to warps.
		{A100, 256, 32, 0, Occupancy{8, 64, 1, "warps"}},
		{A100, 256, 64, 0, Occupancy{4, 32, 0.5, "registers"}},
		// 37 registers: 1184 a warp, rounded to 1280: 51 warps, 6 blocks of 8.
		{A100, 256, 37, 0, Occupancy{6, 48, 0.75, "registers"}},
		// 33 registers: 1056 a warp, rounded to 1280: 51 warps, 6 blocks (unrounded, 62 warps would hold 7).
		{A100, 256, 33, 0, Occupancy{6, 48, 0.75, "registers"}},
		// 48 KB + 1 KB reserved = 50176 bytes: 3 blocks in 164 KB.
		{A100, 128, 0, 48 << 10, Occupancy{3, 12, 0.1875, "shared memory"}},
		{A100, 32, 0, 0, Occupancy{32, 32, 0.5, "blocks"}},
		{A100, 33, 16, 1, Occupancy{32, 64, 1, "warps"}}, // 2 warps a block; 1 + 1024 bytes round to 1152
		{A100, 1024, 0, 0, Occupancy{2, 64, 1, "warps"}},
		{A100, 1, 0, 0, Occupancy{32, 32, 0.5, "blocks"}},                     // one thread is a whole warp
		{A100, 256, 0, 163 << 10, Occupancy{1, 8, 0.125, "shared memory"}},    // the most a block may have
		{A100, 64, 0, 40<<10 + 1, Occupancy{3, 6, 6.0 / 64, "shared memory"}}, // 41985 bytes round to 42112: 3, not 4
		{RTX4090, 1024, 0, 0, Occupancy{1, 32, 2.0 / 3, "warps"}},
		{RTX4090, 32, 0, 0, Occupancy{24, 24, 0.5, "blocks"}},
		{RTX4090, 256, 0, 16 << 10, Occupancy{5, 40, 40.0 / 48, "shared memory"}}, // 17 KB a block: 5 in 100 KB
		{RTX4090, 128, 255, 0, Occupancy{2, 8, 8.0 / 48, "registers"}},            // 8160 a warp, rounded to 8192: 8 warps, 2 blocks of 4
	} {
		got, err := tc.gpu.Occupancy(tc.threads, tc.regs, tc.bytes)
		require.NoError(t, err)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: blocks of %d threads, %d registers each, %d shared bytes (-want +got):\n%s", tc.gpu.Name, tc.threads, tc.regs, tc.bytes, diff)
		}
	}
	for _, tc := range []struct{ threads, regs, bytes int }{
		{0, 32, 0}, {1025, 32, 0}, {256, -1, 0}, {256, 256, 0}, {256, 32, -1}, {256, 32, 163<<10 + 1},
	} {
		_, err := A100.Occupancy(tc.threads, tc.regs, tc.bytes)
		require.ErrorIs(t, err, unit00.ErrInvalid, "A100.Occupancy(%d, %d, %d)", tc.threads, tc.regs, tc.bytes)
	}
	_, err := RTX4090.Occupancy(256, 32, 100<<10)
	require.ErrorIs(t, err, unit00.ErrInvalid, "100 KB is more than one block may have on an RTX 4090 (99 KB)")
}
