package unit15

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

// block is one block of a launch while it runs: its threads, its shared
// memory with the state the race check needs, and its warps' logs.
type block struct {
	idx, dim, grid Dim3
	sh             []float32
	words          []wordState
	epoch          int // barriers passed so far
	threads        []*Thread
	warps          []*warpLog
	done           chan event
}

// wordState is what the race check knows of one shared word in the
// current epoch (the stretch between two barriers): who wrote it and who
// read it. Epochs are counted from 1, so the zero value means "not yet".
type wordState struct {
	wEpoch, writer int
	rEpoch, reader int // reader: a thread's id, or manyReaders
}

const manyReaders = -1

func newBlock(grid, dim, idx Dim3, shared int) *block {
	n := dim.Size()
	b := &block{idx: idx, dim: dim, grid: grid, sh: make([]float32, shared), words: make([]wordState, shared), done: make(chan event)}
	for w := 0; w < n; w += WarpSize {
		b.warps = append(b.warps, &warpLog{})
	}
	for id := range n {
		b.threads = append(b.threads, &Thread{
			Idx: b.index(id), BlockIdx: idx, BlockDim: dim, GridDim: grid,
			b: b, id: id, warp: b.warps[id/WarpSize], wake: make(chan bool),
		})
	}
	return b
}

// index is the 3-D index of the thread with linear index id.
func (b *block) index(id int) Dim3 {
	return Dim3{id % b.dim.X, id / b.dim.X % b.dim.Y, id / (b.dim.X * b.dim.Y)}
}

// run runs every thread of the block to its end, one at a time, phase by
// phase: a phase ends when every thread still running has reached
// SyncThreads.
func (b *block) run(k Kernel) error {
	for _, t := range b.threads {
		go t.start(k)
	}
	live := make([]int, len(b.threads))
	for i := range live {
		live[i] = i
	}
	waiting := map[int]bool{} // threads blocked on their wake channel: not yet started, or at a barrier
	for id := range b.threads {
		waiting[id] = true
	}
	for {
		var arrived []int
		ended := -1
		for _, id := range live {
			delete(waiting, id)
			b.threads[id].wake <- true
			ev := <-b.done
			switch ev.kind {
			case failed:
				b.abort(waiting)
				return ev.err
			case atBarrier:
				arrived = append(arrived, id)
				waiting[id] = true
			case exited:
				ended = id
			}
		}
		if len(arrived) == 0 {
			return nil
		}
		if ended >= 0 {
			b.abort(waiting)
			return fmt.Errorf("launch: block %v: thread %v returned while thread %v waits at SyncThreads: every thread of a block must reach every barrier: %w",
				b.idx, b.index(ended), b.index(arrived[0]), unit00.ErrInvalid)
		}
		b.epoch++
		live = arrived
	}
}

// abort releases the threads still blocked, which then end without a word.
func (b *block) abort(waiting map[int]bool) {
	for id := range waiting {
		b.threads[id].wake <- false
	}
}

// start is a thread's goroutine: it waits for its turn, runs the kernel,
// and tells the scheduler how it ended.
func (t *Thread) start(k Kernel) {
	defer func() {
		switch r := recover().(type) {
		case nil:
			t.b.done <- event{id: t.id, kind: exited}
		case abort:
		case launchError:
			t.b.done <- event{id: t.id, kind: failed, err: r.err}
		default:
			t.b.done <- event{id: t.id, kind: failed, err: fmt.Errorf("launch: thread %v of block %v panicked: %v: %w", t.Idx, t.BlockIdx, r, unit00.ErrInvalid)}
		}
	}()
	if !<-t.wake {
		panic(abort{})
	}
	k(t)
}

// touch checks thread t's access to shared word i against the others' in
// this epoch, and records it.
func (b *block) touch(t *Thread, i int, write bool) {
	w, e := &b.words[i], b.epoch+1
	if w.wEpoch == e && w.writer != t.id {
		t.fail(fmt.Sprintf("%s shared word %d, which thread %v wrote since the last SyncThreads: a race", verb(write), i, b.index(w.writer)))
	}
	if write && w.rEpoch == e && w.reader != t.id {
		other := "other threads"
		if w.reader != manyReaders {
			other = fmt.Sprintf("thread %v", b.index(w.reader))
		}
		t.fail(fmt.Sprintf("writes shared word %d, which %s read since the last SyncThreads: a race", i, other))
	}
	switch {
	case write:
		w.wEpoch, w.writer = e, t.id
	case w.rEpoch != e:
		w.rEpoch, w.reader = e, t.id
	case w.reader != t.id:
		w.reader = manyReaders
	}
}

func verb(write bool) string {
	if write {
		return "writes"
	}
	return "reads"
}

// stats tallies the block's warps.
func (b *block) stats() Stats {
	s := Stats{Blocks: 1, Threads: len(b.threads), Barriers: b.epoch}
	for _, w := range b.warps {
		w.tally(&s)
	}
	return s
}
