package unit08

// Flash is causal grouped-query attention computed tile by tile, with
// scratch for a fixed number of workers allocated when it is made, so that
// after its first call it allocates nothing. It is not safe for
// concurrent use (a Model is not either).
type Flash struct {
	heads, kvHeads, hd int
	workers            []*worker
	pre                prefillTask // kept here: a task handed to the pool as a
	dec                decodeTask  // pointer into f allocates nothing
}

// worker is one thread's scratch: a few tiles, whatever the sequence's
// length.
type worker struct {
	buf   []float32 // all of the below
	kt    []float32 // a block of keys, transposed: headDim × TileKeys
	s     []float32 // scores, then exponentials: max(4, group) rows × TileKeys
	m, l  []float32 // each tile row's running maximum and sum: group × TileQueries
	alpha []float32 // the rows' rescale factors in one product
	ones  []float32 // 1s: the exponentials enter the output unscaled
	scale []float32 // 1/√headDim four times: the score rows' factors
	heads []Partial // a decode step: a partial per head over this worker's keys
	ho    []float32 // their outputs, head after head
	// A block of keys and one of values widened to float32, TileKeys ×
	// headDim each: only for a Store's F16 and Q8_0 rows (NewStore).
	kb, vb []float32
}

// Store is a KV cache that keeps keys and values as F32, F16 or Q8_0 rows
// and attends over them with its Flash (8.5).
type Store struct {
	f            *Flash
	keys, values []kv // per layer, maxSeq rows of kvHeads·headDim values
	maxSeq       int
}
