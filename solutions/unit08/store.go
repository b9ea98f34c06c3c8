package unit08

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// NewStore returns a KV cache of layers layers and maxSeq positions whose
// keys are kept as kt and values as vt, attended with f (a unit05.KVStore:
// set it as a model's Store). It gives f's workers room to widen a block
// of keys and one of values. Sizes that are not positive, a type that is
// not one of the three, or Q8_0 for a head width that is not a multiple of
// Q8Block (a block must not straddle two heads) is an error wrapping
// unit00.ErrInvalid.
func NewStore(f *Flash, layers, maxSeq int, kt, vt CacheType) (*Store, error) {
	switch {
	case layers <= 0 || maxSeq <= 0:
		return nil, fmt.Errorf("kv store: %d layers and %d positions must be positive: %w", layers, maxSeq, unit00.ErrInvalid)
	case !kt.Valid() || !vt.Valid():
		return nil, fmt.Errorf("kv store: cache types %v and %v, want f32, f16 or q8_0: %w", kt, vt, unit00.ErrInvalid)
	case (kt == CacheQ8_0 || vt == CacheQ8_0) && f.hd%Q8Block != 0:
		return nil, fmt.Errorf("kv store: q8_0 needs a head width that is a multiple of %d, this one is %d: %w", Q8Block, f.hd, unit00.ErrInvalid)
	}
	s := &Store{f: f, maxSeq: maxSeq}
	width := f.kvHeads * f.hd
	for range layers {
		s.keys = append(s.keys, newKV(kt, maxSeq, width))
		s.values = append(s.values, newKV(vt, maxSeq, width))
	}
	f.blockScratch()
	return s, nil
}

// blockScratch gives each of f's workers, once, room for a block of keys
// and one of values as float32s: where a Store widens its rows and a
// RowReader copies rows that do not lie together.
func (f *Flash) blockScratch() {
	for _, w := range f.workers {
		if w.kb == nil {
			w.kb, w.vb = make([]float32, TileKeys*f.hd), make([]float32, TileKeys*f.hd)
		}
	}
}

// newKV allocates maxSeq rows of width values in type t.
func newKV(t CacheType, maxSeq, width int) kv {
	if t == CacheF32 {
		return matKV(unit03.NewMat(maxSeq, width))
	}
	n := t.RowBytes(width)
	return kv{typ: t, data: make([]byte, maxSeq*n), rowBytes: n, rows: maxSeq}
}

// Bytes is the memory of the stored keys and values, every layer.
func (s *Store) Bytes() int {
	n := 0
	for l := range s.keys {
		n += s.keys[l].bytes() + s.values[l].bytes()
	}
	return n
}

// bytes is the memory of r's rows.
func (r *kv) bytes() int {
	if r.typ == CacheF32 {
		return 4 * len(r.m.Data)
	}
	return len(r.data)
}

// Put stores the T rows of k and v (T × kvHeads·headDim) as positions
// pos0 … pos0+T−1 of layer l, in the store's types: F16 rounded to the
// nearest half, ties to even; Q8_0 as llama.cpp's CPU backend writes its
// cache (docs/unit08.md, 8.5). It panics
// (unit00.Check) on a layer, positions or shapes that do not fit.
func (s *Store) Put(l, pos0 int, k, v unit03.Mat) {
	width := s.f.kvHeads * s.f.hd
	unit00.Check(l >= 0 && l < len(s.keys), "Store.Put: layer out of range")
	unit00.Check(k.Cols == width && v.Cols == width && k.Rows == v.Rows, "Store.Put: k and v must be T × kvHeads·headDim")
	unit00.Check(pos0 >= 0 && pos0+k.Rows <= s.maxSeq, "Store.Put: positions beyond the store")
	for t := range k.Rows {
		s.keys[l].encode(pos0+t, k.Row(t))
		s.values[l].encode(pos0+t, v.Row(t))
	}
}

// Attend computes attention for the T rows of q at positions
// pos0 … pos0+T−1 over layer l's stored positions 0 … pos0+T−1, as
// Flash.Attend does over float32 rows: Decode's road for one row,
// Prefill's for more, each block of keys and of values widened to float32
// once, into the worker's scratch, where the float32 road reads it in
// place. It panics (unit00.Check) on a layer or shapes that do not fit.
func (s *Store) Attend(p *unit03.Pool, out, q unit03.Mat, l, heads, kvHeads, pos0 int) {
	unit00.Check(l >= 0 && l < len(s.keys), "Store.Attend: layer out of range")
	if q.Rows == 1 {
		s.f.decode(p, out, q, s.keys[l], s.values[l], heads, kvHeads, pos0)
		return
	}
	s.f.prefill(p, out, q, s.keys[l], s.values[l], heads, kvHeads, pos0)
}
