package unit01

import (
	"errors"
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
	panic("TODO(1.2): write NewArena, see docs/unit01.md")
}

// Alloc returns n bytes starting at the next Alignment-aligned position. The
// slice's capacity is exactly n, so an append can never overwrite the next
// allocation. When the arena has no room it returns an error wrapping
// ErrArenaFull that gives the sizes, and the arena is unchanged. A negative n
// is an error wrapping unit00.ErrInvalid; n = 0 is not an error, even in an
// arena filled to its last byte: it returns an empty slice.
func (a *Arena) Alloc(n int) ([]byte, error) {
	panic("TODO(1.2): write Arena.Alloc, see docs/unit01.md")
}

// Float32s returns n float32s carved from the arena, aligned like Alloc: it
// takes 4·n bytes. n = 0 gives an empty, non-nil slice; a negative n is an
// error wrapping unit00.ErrInvalid; an n whose bytes do not fit, however
// large (4·n must not overflow), an error wrapping ErrArenaFull.
func (a *Arena) Float32s(n int) ([]float32, error) {
	panic("TODO(1.2): write Arena.Float32s, see docs/unit01.md")
}

// Tensor returns a contiguous tensor of a scalar type dt and shape s carved
// from the arena: a view of the arena's one Storage, so it costs no heap
// allocation. Quantized types are an error wrapping unit00.ErrUnsupported,
// unknown ones, and a size in bytes that overflows an int, an error
// wrapping unit00.ErrInvalid; a tensor larger than the room left is
// ErrArenaFull, as for Alloc, and leaves the arena unchanged.
func (a *Arena) Tensor(dt DType, s Shape) (Tensor, error) {
	panic("TODO(1.2): write Arena.Tensor, see docs/unit01.md")
}

// Reset gives back everything allocated, and makes every earlier Mark
// stale. HighWater is kept.
func (a *Arena) Reset() {
	panic("TODO(1.2): write Arena.Reset, see docs/unit01.md")
}

// Mark returns the current position, for Rewind.
func (a *Arena) Mark() Mark {
	panic("TODO(1.2): write Arena.Mark, see docs/unit01.md")
}

// Rewind gives back everything allocated since m was taken. It panics
// (unit00.Check) if m is stale: taken before a Reset (the memory after it may
// belong to new allocations, which the next Alloc would then overwrite), or
// ahead of the current position (taken after a point that was since rewound).
func (a *Arena) Rewind(m Mark) {
	panic("TODO(1.2): write Arena.Rewind, see docs/unit01.md")
}

// Used is the number of bytes allocated now, alignment padding included.
func (a *Arena) Used() int {
	panic("TODO(1.2): write Arena.Used, see docs/unit01.md")
}

// HighWater is the largest Used has ever been: the capacity a workload needs.
func (a *Arena) HighWater() int {
	panic("TODO(1.2): write Arena.HighWater, see docs/unit01.md")
}

// Cap is the arena's capacity in bytes.
func (a *Arena) Cap() int {
	panic("TODO(1.2): write Arena.Cap, see docs/unit01.md")
}
