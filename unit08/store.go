package unit08

import "github.com/llmforge/forge/unit03"

// NewStore returns a KV cache of layers layers and maxSeq positions whose
// keys are kept as kt and values as vt, attended with f (a unit05.KVStore:
// set it as a model's Store). It gives f's workers room to widen a block
// of keys and one of values. Sizes that are not positive, a type that is
// not one of the three, or Q8_0 for a head width that is not a multiple of
// Q8Block (a block must not straddle two heads) is an error wrapping
// unit00.ErrInvalid.
func NewStore(f *Flash, layers, maxSeq int, kt, vt CacheType) (*Store, error) {
	panic("TODO(8.5): write NewStore, see docs/unit08.md")
}

// Bytes is the memory of the stored keys and values, every layer.
func (s *Store) Bytes() int {
	panic("TODO(8.5): write Store.Bytes, see docs/unit08.md")
}

// Put stores the T rows of k and v (T × kvHeads·headDim) as positions
// pos0 … pos0+T−1 of layer l, in the store's types: F16 rounded to the
// nearest half, ties to even; Q8_0 as llama.cpp's CPU backend writes its
// cache (docs/unit08.md, 8.5). It panics (unit00.Check) on a layer,
// positions or shapes that do not fit.
func (s *Store) Put(l, pos0 int, k, v unit03.Mat) {
	panic("TODO(8.5): write Store.Put, see docs/unit08.md")
}

// Attend computes attention for the T rows of q at positions
// pos0 … pos0+T−1 over layer l's stored positions 0 … pos0+T−1, as
// Flash.Attend does over float32 rows: Decode's road for one row,
// Prefill's for more, each block of keys and of values widened to float32
// once, into the worker's scratch, where the float32 road reads it in
// place. It panics (unit00.Check) on a layer or shapes that do not fit.
func (s *Store) Attend(p *unit03.Pool, out, q unit03.Mat, l, heads, kvHeads, pos0 int) {
	panic("TODO(8.5): write Store.Attend, see docs/unit08.md")
}
