package unit01

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/llmforge/forge/unit00"
)

// ErrArenaFull is returned when an arena has no room for an allocation.
var ErrArenaFull = errors.New("arena full")

// Arena is a bump allocator over one aligned Storage: each allocation takes
// the next Alignment-aligned bytes, and Reset or Rewind gives them all back at
// once. A forward pass carves its scratch tensors from an arena, so after the
// first pass it allocates nothing.
//
// Memory handed out is not cleared: after Reset or Rewind, new allocations
// see whatever the previous ones wrote.
type Arena struct {
	storage *Storage
	used    int // bytes handed out, including alignment padding
	high    int // the largest used has ever been
	epoch   int // counts Resets, so a mark from before one is known stale
}

// Mark is a position in an arena, for Rewind.
type Mark struct {
	pos   int
	epoch int
}

// NewArena returns an arena of capacity bytes, backed by one NewStorage.
func NewArena(capacity int) *Arena {
	return &Arena{storage: NewStorage(capacity)}
}

// Alloc returns n bytes starting at the next Alignment-aligned position. The
// slice's capacity is exactly n, so an append can never overwrite the next
// allocation. When the arena has no room it returns an error wrapping
// ErrArenaFull that gives the sizes, and the arena is unchanged. A negative n
// is an error wrapping unit00.ErrInvalid.
func (a *Arena) Alloc(n int) ([]byte, error) {
	start, err := a.reserve(n)
	if err != nil {
		return nil, err
	}
	return a.storage.buf[start : start+n : start+n], nil
}

// reserve takes n bytes at the next aligned position and returns where they
// start.
func (a *Arena) reserve(n int) (int, error) {
	if n < 0 {
		return 0, fmt.Errorf("arena: allocation of %d bytes: %w", n, unit00.ErrInvalid)
	}
	start := (a.used + Alignment - 1) &^ (Alignment - 1)
	if start > a.Cap() || n > a.Cap()-start {
		return 0, fmt.Errorf("arena: %d bytes at offset %d do not fit in capacity %d: %w", n, start, a.Cap(), ErrArenaFull)
	}
	a.used = start + n
	a.high = max(a.high, a.used)
	return start, nil
}

// Float32s returns n float32s carved from the arena, aligned like Alloc.
func (a *Arena) Float32s(n int) ([]float32, error) {
	if n < 0 {
		return nil, fmt.Errorf("arena: Float32s(%d): %w", n, unit00.ErrInvalid)
	}
	if n > a.Cap()/4 { // also keeps 4·n from overflowing
		return nil, fmt.Errorf("arena: %d float32s do not fit in capacity %d: %w", n, a.Cap(), ErrArenaFull)
	}
	b, err := a.Alloc(4 * n)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return []float32{}, nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n), nil
}

// Tensor returns a contiguous tensor of a scalar type dt and shape s carved
// from the arena: a view of the arena's one Storage, so it costs no heap
// allocation. Quantized types are an error wrapping unit00.ErrUnsupported,
// unknown ones an error wrapping unit00.ErrInvalid.
func (a *Arena) Tensor(dt DType, s Shape) (Tensor, error) {
	if dt.Quantized() {
		return Tensor{}, fmt.Errorf("arena: Tensor of type %v: only scalar types are carved from an arena: %w", dt, unit00.ErrUnsupported)
	}
	n, err := byteSize(dt, s)
	if err != nil {
		return Tensor{}, err
	}
	start, err := a.reserve(n)
	if err != nil {
		return Tensor{}, err
	}
	return Tensor{storage: a.storage, offset: start / dt.BlockBytes(), shape: s, strides: s.ContiguousStrides(), dtype: dt}, nil
}

// Reset gives back everything allocated, and makes every earlier Mark
// stale. HighWater is kept.
func (a *Arena) Reset() {
	a.used = 0
	a.epoch++
}

// Mark returns the current position, for Rewind.
func (a *Arena) Mark() Mark { return Mark{pos: a.used, epoch: a.epoch} }

// Rewind gives back everything allocated since m was taken. It panics
// (unit00.Check) if m is stale: taken before a Reset (the memory after it may
// belong to new allocations, which the next Alloc would then overwrite), or
// ahead of the current position (taken after a point that was since rewound).
func (a *Arena) Rewind(m Mark) {
	unit00.Check(m.epoch == a.epoch, "Rewind to a mark taken before the arena's last Reset")
	unit00.Check(m.pos <= a.used, "Rewind to a mark ahead of the arena's position")
	a.used = m.pos
}

// Used is the number of bytes allocated now, alignment padding included.
func (a *Arena) Used() int { return a.used }

// HighWater is the largest Used has ever been: the capacity a workload needs.
func (a *Arena) HighWater() int { return a.high }

// Cap is the arena's capacity in bytes.
func (a *Arena) Cap() int { return a.storage.Len() }
