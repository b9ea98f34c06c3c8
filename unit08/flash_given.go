// Package unit08 is flash attention: causal grouped-query attention that
// never holds a row's scores for the whole sequence. Online softmax (8.1)
// folds a row's keys in block by block with a running maximum and sum; a
// prompt's rows are cut into tiles that walk the keys a block at a time,
// the query heads of one KV group sharing each block (8.2); a decode step
// shares its keys out over threads and merges their partial results (8.3,
// "flash decoding"); a model runs every block's attention this way (8.4);
// a KV cache may keep its rows as F16 or Q8_0, widened block by block
// inside the attention loops (8.5); and the same loops read keys and
// values that someone else keeps through a RowReader (8.6).
//
// Read docs/unit08.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit08

import "github.com/llmforge/forge/unit03"

const (
	// TileQueries is the most query rows a tile takes, each for every
	// query head of one KV group.
	TileQueries = 64
	// TileKeys is how many keys a tile's scores hold at once.
	TileKeys = 128
	// MinSplit is the fewest positions a decode step gives one thread.
	MinSplit = 256
	// MaxThreads is the most workers a Flash keeps scratch for.
	MaxThreads = 512
)

// Partial is one query row's attention over some of the keys, in the form
// in which blocks of keys (and threads) are folded together:
//
//	M = the largest scaled score seen,  L = Σ e^(s−M),  O = Σ e^(s−M)·v
//
// over the keys seen, with O not yet divided by L. A Partial that has seen
// no key has M = −Inf, L = 0 and O all zeros.
type Partial struct {
	M, L float32
	O    []float32 // head width; the caller provides it
}

// Attend is the unit05.Attender a model calls: a decode step (one row)
// goes to Decode, a prompt's rows to Prefill.
func (f *Flash) Attend(p *unit03.Pool, out, q, k, v unit03.Mat, heads, kvHeads, pos0 int) {
	if q.Rows == 1 {
		f.Decode(p, out, q, k, v, heads, kvHeads, pos0)
		return
	}
	f.Prefill(p, out, q, k, v, heads, kvHeads, pos0)
}
