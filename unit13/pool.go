package unit13

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
	panic("TODO(13.1): write NewPool, see docs/unit13.md")
}

// Blocks is the number of blocks in the pool.
func (p *Pool) Blocks() int {
	panic("TODO(13.1): write Pool.Blocks, see docs/unit13.md")
}

// Free is the number of blocks no sequence refers to, cached ones included:
// the blocks an allocation can take.
func (p *Pool) Free() int {
	panic("TODO(13.1): write Pool.Free, see docs/unit13.md")
}

// Cached is the number of blocks registered in the prefix cache, in use or
// free.
func (p *Pool) Cached() int {
	panic("TODO(13.1): write Pool.Cached, see docs/unit13.md")
}

// Bytes is the memory of the pool's keys and values.
func (p *Pool) Bytes() int {
	panic("TODO(13.1): write Pool.Bytes, see docs/unit13.md")
}

// NewSeq returns an empty sequence on this pool.
func (p *Pool) NewSeq() *Seq {
	panic("TODO(13.1): write Pool.NewSeq, see docs/unit13.md")
}

// Match returns a new sequence holding the longest prefix of tokens whose
// blocks are in the prefix cache, whole blocks only, sharing them: its Len
// is the number of positions whose keys and values need no computing. It
// never covers the last token, which must run through the model for its
// logits, so it holds at most (len(tokens)−1)/BlockSize blocks. Match
// allocates no block and cannot fail; the blocks it takes from the free
// queue leave it.
func (p *Pool) Match(tokens []int32) *Seq {
	panic("TODO(13.1): write Pool.Match, see docs/unit13.md")
}
