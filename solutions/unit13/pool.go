package unit13

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

// Pool is the KV memory of a server, cut into blocks of BlockSize
// positions. A block holds, for every layer, the keys and the values of its
// positions: block b's rows of layer l are one BlockSize × kvDim matrix.
// Sequences (Seq) own blocks through a block table and share them through
// reference counts: a block is free when no sequence refers to it.
//
// Free blocks wait in a queue, oldest first, and an allocation takes the
// oldest. A full block that a sequence registered (Seq.Commit) stays in the
// prefix cache while it waits, so a later prompt that starts with the same
// tokens finds it (Match) until the queue reaches it and it is reused.
type Pool struct {
	layers, kvDim int
	k, v          []float32 // block b, layer l, slot i: row ((b·layers + l)·BlockSize + i)

	refs []int32 // sequences referring to each block; 0 means free

	// The free queue, a ring threaded through prev and next; index
	// len(refs) is its head. A free block is on it, a used one not.
	prev, next []int
	free       int

	cache map[blockKey]int // the prefix cache: a full block's key → block
	key   []blockKey       // the key each cached block is registered under
	inUse []bool           // whether key[b] is registered
	gen   []int            // bumped each time a block leaves the cache
}

// NewPool makes a pool of blocks blocks for a model of layers layers and
// kvDim floats of keys (and as many of values) per position and layer. Any
// of them not positive is an error (unit00.ErrInvalid), as is a pool over
// 2^40 floats.
func NewPool(layers, kvDim, blocks int) (*Pool, error) {
	if layers <= 0 || kvDim <= 0 || blocks <= 0 {
		return nil, fmt.Errorf("unit13: NewPool(layers %d, kvDim %d, blocks %d): all must be positive: %w", layers, kvDim, blocks, unit00.ErrInvalid)
	}
	const limit = 1 << 40
	if blocks > limit/BlockSize/layers/kvDim {
		return nil, fmt.Errorf("unit13: NewPool(layers %d, kvDim %d, blocks %d): over 2^40 floats: %w", layers, kvDim, blocks, unit00.ErrInvalid)
	}
	floats := blocks * layers * BlockSize * kvDim
	p := &Pool{
		layers: layers, kvDim: kvDim,
		k: make([]float32, floats), v: make([]float32, floats),
		refs: make([]int32, blocks),
		prev: make([]int, blocks+1), next: make([]int, blocks+1),
		cache: make(map[blockKey]int),
		key:   make([]blockKey, blocks), inUse: make([]bool, blocks), gen: make([]int, blocks),
	}
	head := blocks
	p.prev[head], p.next[head] = head, head
	for b := range blocks {
		p.push(b)
	}
	return p, nil
}

// Blocks is the number of blocks in the pool.
func (p *Pool) Blocks() int { return len(p.refs) }

// Free is the number of blocks no sequence refers to, cached ones included:
// the blocks an allocation can take.
func (p *Pool) Free() int { return p.free }

// Cached is the number of blocks registered in the prefix cache, in use or
// free.
func (p *Pool) Cached() int { return len(p.cache) }

// Bytes is the memory of the pool's keys and values.
func (p *Pool) Bytes() int { return 2 * 4 * len(p.k) }

// NewSeq returns an empty sequence on this pool.
func (p *Pool) NewSeq() *Seq { return &Seq{pool: p} }

// Match returns a new sequence holding the longest prefix of tokens whose
// blocks are in the prefix cache, whole blocks only, sharing them: its Len
// is the number of positions whose keys and values need no computing. It
// never covers the last token, which must run through the model for its
// logits, so it holds at most (len(tokens)−1)/BlockSize blocks. Match
// allocates no block and cannot fail; the blocks it takes from the free
// queue leave it.
func (p *Pool) Match(tokens []int32) *Seq {
	s := p.NewSeq()
	parent, gen := -1, 0
	for b := 0; (b+1)*BlockSize < len(tokens); b++ {
		k := blockKey{parent: parent, gen: gen}
		copy(k.tokens[:], tokens[b*BlockSize:])
		blk, ok := p.cache[k]
		if !ok {
			break
		}
		p.ref(blk)
		s.table = append(s.table, blk)
		parent, gen = blk, p.gen[blk]
	}
	s.n = len(s.table) * BlockSize
	s.tokens = append(s.tokens, tokens[:s.n]...)
	s.committed = len(s.table)
	return s
}

// rows returns the offset of layer l's rows of block b in k and v.
func (p *Pool) rows(b, l int) int { return (b*p.layers + l) * BlockSize * p.kvDim }

// alloc takes the oldest free block, dropping it from the prefix cache,
// with one reference. The caller has checked that one is free.
func (p *Pool) alloc() int {
	b := p.next[len(p.refs)]
	p.unlink(b)
	p.forget(b)
	p.refs[b] = 1
	return b
}

// ref adds a reference to block b, taking it off the free queue if it was
// free.
func (p *Pool) ref(b int) {
	if p.refs[b] == 0 {
		p.unlink(b)
	}
	p.refs[b]++
}

// unref drops a reference to block b; the last one puts it at the back of
// the free queue.
func (p *Pool) unref(b int) {
	unit00.Check(p.refs[b] > 0, "unit13: a block released more often than it was referred to")
	p.refs[b]--
	if p.refs[b] == 0 {
		p.push(b)
	}
}

// forget drops block b from the prefix cache, if it is there: its rows are
// about to change.
func (p *Pool) forget(b int) {
	if p.inUse[b] {
		delete(p.cache, p.key[b])
		p.inUse[b] = false
		p.gen[b]++
	}
}

// push puts block b at the back of the free queue.
func (p *Pool) push(b int) {
	head := len(p.refs)
	last := p.prev[head]
	p.next[last], p.prev[b] = b, last
	p.next[b], p.prev[head] = head, b
	p.free++
}

// unlink takes block b off the free queue.
func (p *Pool) unlink(b int) {
	p.next[p.prev[b]] = p.next[b]
	p.prev[p.next[b]] = p.prev[b]
	p.free--
}
