package unit15

// The flash attention kernel of 15.4: unit08's tiles and online softmax on
// a GPU, for one head.

// QueryTile is the number of query rows a block of FlashAttention
// computes: the height of its block of threads, a warp per row.
const QueryTile = 16

// KeyTile is the number of keys FlashAttention scores per step: the width
// of its block, a thread per key.
const KeyTile = WarpSize

// MaxHeadDim is the widest head FlashAttention takes: each thread keeps
// MaxHeadDim/KeyTile elements of its row's output in registers.
const MaxHeadDim = 128

// FlashAttention sets o = softmax(q·kᵀ/√d)·v for one head: q and o are nq
// rows of d, k and v nk rows of d, all row-major. With causal, query row
// i sits at position nk−nq+i (the last nq of nk positions, as in a
// decode step or a prompt after a cached prefix) and sees keys 0 to that
// position; without, every key. A block of KeyTile × QueryTile threads
// computes QueryTile rows of o: it copies its queries into shared memory
// once, then, a tile of KeyTile keys and values at a time, copies the
// tile, scores it (thread x of row y: query y against key x), and folds
// the scores into each row's running maximum, sum and output (the online
// softmax), each thread for the output columns x, x+32, …. The shared
// memory holds the queries, one tile of keys, one of values and one of
// scores, whatever nk is; tiles past a block's last visible key are not
// read. A row of a tile is the head padded with zeros to a multiple of
// 32 words, and one word more: the threads of a warp then take the same
// path through every copy and every sum (a warp does not diverge), and the
// 32 keys a warp scores, rows an odd number of words apart, lie in 32
// different banks.
// Sizes that are not positive, d above MaxHeadDim, causal with nq > nk,
// or buffers that do not hold the sizes are an error wrapping
// unit00.ErrInvalid.
func FlashAttention(o, q, k, v *Global, nq, nk, d int, causal bool) (Stats, error) {
	panic("TODO(15.4): write FlashAttention, see docs/unit15.md")
}
