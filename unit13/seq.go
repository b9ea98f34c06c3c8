package unit13

import (
	"github.com/llmforge/forge/unit03"
)

// Seq is one sequence's view of a Pool: the token ids of its positions and
// its block table, which maps logical block i (positions i·BlockSize …
// i·BlockSize + BlockSize − 1) to a block of the pool. A Seq is used by one
// goroutine at a time; the pool it lives on is shared by every sequence,
// so calls on any of them must be serialised by the caller (a scheduler's
// loop).
type Seq struct {
	pool      *Pool
	table     []int
	tokens    []int32
	n         int
	committed int // leading blocks already offered to the prefix cache
}

// Len is the number of positions the sequence holds.
func (s *Seq) Len() int {
	panic("TODO(13.1): write Seq.Len, see docs/unit13.md")
}

// Table returns the block table, one pool block per started block of
// positions. The slice is the sequence's own: read it, do not change it.
func (s *Seq) Table() []int {
	panic("TODO(13.1): write Seq.Table, see docs/unit13.md")
}

// Tokens returns the token ids of positions 0 … Len()−1, the sequence's
// own slice like Table.
func (s *Seq) Tokens() []int32 {
	panic("TODO(13.1): write Seq.Tokens, see docs/unit13.md")
}

// Append adds len(tokens) positions after Len(), whose keys and values the
// caller then writes with Put. It allocates the blocks they need. A partly
// filled last block that another sequence shares is copied first
// (copy-on-write); one that only this sequence holds leaves the prefix
// cache instead, since its rows are about to change. A block that anyone
// else can read never changes. With too few free blocks it returns
// ErrNoBlocks and changes nothing.
func (s *Seq) Append(tokens []int32) error {
	panic("TODO(13.1): write Seq.Append, see docs/unit13.md")
}

// Put writes the keys and values of positions pos0 … pos0 + k.Rows − 1
// for layer l, one row per position. The positions must have been added by
// Append and lie in blocks only this sequence holds; anything else (rows of
// another width, a block shared or cached) is a programming error and
// panics (unit00.Check).
func (s *Seq) Put(l, pos0 int, k, v unit03.Mat) {
	panic("TODO(13.1): write Seq.Put, see docs/unit13.md")
}

// Block returns views of layer l's keys and values in logical block i: its
// used rows (BlockSize, or fewer in the last block), kvDim floats each,
// sharing the pool's memory. Attention reads a sequence block by block.
func (s *Seq) Block(l, i int) (k, v unit03.Mat) {
	panic("TODO(13.1): write Seq.Block, see docs/unit13.md")
}

// Commit offers the sequence's full blocks to the prefix cache, once their
// keys and values are written for every layer: a later Match of a prompt
// that starts with the same tokens shares them. A block whose key another
// block already holds stays out (the first one serves).
func (s *Seq) Commit() {
	panic("TODO(13.1): write Seq.Commit, see docs/unit13.md")
}

// Fork returns a second sequence with the same positions, sharing every
// block: nothing is copied until one of them appends into a shared, partly
// filled block.
func (s *Seq) Fork() *Seq {
	panic("TODO(13.1): write Seq.Fork, see docs/unit13.md")
}

// Truncate keeps positions 0 … n−1 and releases the blocks past them,
// the last one first. n outside 0 … Len() is a programming error (unit00.Check).
func (s *Seq) Truncate(n int) {
	panic("TODO(13.1): write Seq.Truncate, see docs/unit13.md")
}

// Release drops every block: the sequence is empty afterwards, and its
// blocks are free once no other sequence refers to them.
func (s *Seq) Release() {
	panic("TODO(13.1): write Seq.Release, see docs/unit13.md")
}
