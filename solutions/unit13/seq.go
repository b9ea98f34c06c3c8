package unit13

import (
	"github.com/llmforge/forge/unit00"
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

// blocksFor is the number of blocks n positions take.
func blocksFor(n int) int { return (n + BlockSize - 1) / BlockSize }

// Len is the number of positions the sequence holds.
func (s *Seq) Len() int { return s.n }

// Table returns the block table, one pool block per started block of
// positions. The slice is the sequence's own: read it, do not change it.
func (s *Seq) Table() []int { return s.table }

// Tokens returns the token ids of positions 0 … Len()−1, the sequence's
// own slice like Table.
func (s *Seq) Tokens() []int32 { return s.tokens }

// Append adds len(tokens) positions after Len(), whose keys and values the
// caller then writes with Put. It allocates the blocks they need. A partly
// filled last block that another sequence shares is copied first
// (copy-on-write); one that only this sequence holds leaves the prefix
// cache instead, since its rows are about to change. A block that anyone
// else can read never changes. With too few free blocks it returns
// ErrNoBlocks and changes nothing.
func (s *Seq) Append(tokens []int32) error {
	if len(tokens) == 0 {
		return nil
	}
	p := s.pool
	need := blocksFor(s.n+len(tokens)) - len(s.table)
	last := -1
	if s.n%BlockSize != 0 {
		last = s.table[len(s.table)-1]
	}
	cow := last >= 0 && p.refs[last] > 1
	if cow {
		need++
	}
	if need > p.free {
		return ErrNoBlocks
	}
	if cow {
		s.table[len(s.table)-1] = s.copyBlock(last, s.n%BlockSize)
	} else if last >= 0 {
		p.forget(last) // ours alone: it may change, so no prompt may find it
	}
	for len(s.table) < blocksFor(s.n+len(tokens)) {
		s.table = append(s.table, p.alloc())
	}
	s.tokens = append(s.tokens, tokens...)
	s.n += len(tokens)
	return nil
}

// copyBlock copies the first used rows of every layer of block b into a
// new block, drops the sequence's reference to b, and returns the copy.
func (s *Seq) copyBlock(b, used int) int {
	p := s.pool
	c := p.alloc()
	for l := range p.layers {
		from, to := p.rows(b, l), p.rows(c, l)
		copy(p.k[to:to+used*p.kvDim], p.k[from:])
		copy(p.v[to:to+used*p.kvDim], p.v[from:])
	}
	p.unref(b)
	return c
}

// Put writes the keys and values of positions pos0 … pos0 + k.Rows − 1
// for layer l, one row per position. The positions must have been added by
// Append and lie in blocks only this sequence holds; anything else (rows of
// another width, a block shared or cached) is a programming error and
// panics (unit00.Check).
func (s *Seq) Put(l, pos0 int, k, v unit03.Mat) {
	p := s.pool
	unit00.Check(l >= 0 && l < p.layers, "unit13: Put: layer out of range")
	unit00.Check(k.Cols == p.kvDim && v.Cols == p.kvDim && k.Rows == v.Rows, "unit13: Put: k and v must be rows of kvDim floats, as many of each")
	unit00.Check(pos0 >= 0 && pos0+k.Rows <= s.n, "unit13: Put: positions outside 0 … Len()−1 (Append them first)")
	for r := range k.Rows {
		pos := pos0 + r
		b := s.table[pos/BlockSize]
		unit00.Check(p.refs[b] == 1 && !p.inUse[b], "unit13: Put into a block that another sequence or the prefix cache can read")
		at := p.rows(b, l) + pos%BlockSize*p.kvDim
		copy(p.k[at:at+p.kvDim], k.Row(r))
		copy(p.v[at:at+p.kvDim], v.Row(r))
	}
}

// Block returns views of layer l's keys and values in logical block i: its
// used rows (BlockSize, or fewer in the last block), kvDim floats each,
// sharing the pool's memory. Attention reads a sequence block by block.
func (s *Seq) Block(l, i int) (k, v unit03.Mat) {
	p := s.pool
	unit00.Check(l >= 0 && l < p.layers && i >= 0 && i < len(s.table), "unit13: Block: layer or block out of range")
	rows := min(BlockSize, s.n-i*BlockSize)
	at := p.rows(s.table[i], l)
	size := rows * p.kvDim
	k = unit03.Mat{Rows: rows, Cols: p.kvDim, Stride: p.kvDim, Data: p.k[at : at+size]}
	v = unit03.Mat{Rows: rows, Cols: p.kvDim, Stride: p.kvDim, Data: p.v[at : at+size]}
	return k, v
}

// Commit offers the sequence's full blocks to the prefix cache, once their
// keys and values are written for every layer: a later Match of a prompt
// that starts with the same tokens shares them. A block whose key another
// block already holds stays out (the first one serves).
func (s *Seq) Commit() {
	p := s.pool
	for b := s.committed; (b+1)*BlockSize <= s.n; b++ {
		k := blockKey{parent: -1}
		if b > 0 {
			k.parent = s.table[b-1]
			k.gen = p.gen[k.parent]
		}
		copy(k.tokens[:], s.tokens[b*BlockSize:])
		blk := s.table[b]
		if _, taken := p.cache[k]; !taken && !p.inUse[blk] {
			p.cache[k] = blk
			p.key[blk], p.inUse[blk] = k, true
		}
		s.committed = b + 1
	}
}

// Fork returns a second sequence with the same positions, sharing every
// block: nothing is copied until one of them appends into a shared, partly
// filled block.
func (s *Seq) Fork() *Seq {
	for _, b := range s.table {
		s.pool.ref(b)
	}
	return &Seq{
		pool:      s.pool,
		table:     append([]int(nil), s.table...),
		tokens:    append([]int32(nil), s.tokens...),
		n:         s.n,
		committed: s.committed,
	}
}

// Truncate keeps positions 0 … n−1 and releases the blocks past them,
// the last one first. n outside 0 … Len() is a programming error (unit00.Check).
func (s *Seq) Truncate(n int) {
	unit00.Check(n >= 0 && n <= s.n, "unit13: Truncate: n outside 0 … Len()")
	keep := blocksFor(n)
	// Last block first: the free queue then reuses a sequence's tail before
	// its head, and the first blocks of a prompt, which every longer match
	// needs, stay cached longest.
	for i := len(s.table) - 1; i >= keep; i-- {
		s.pool.unref(s.table[i])
	}
	s.table = s.table[:keep]
	s.tokens = s.tokens[:n]
	s.n = n
	s.committed = min(s.committed, n/BlockSize)
}

// Release drops every block: the sequence is empty afterwards, and its
// blocks are free once no other sequence refers to them.
func (s *Seq) Release() { s.Truncate(0) }
