package unit01

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmforge/forge/unit00"
)

// MaxRank is the largest number of axes a tensor may have.
const MaxRank = 8

// Shape is a tensor's extent along each axis, outermost first: in a
// row-major tensor the last axis is the contiguous one. A Shape is a
// fixed-size value, so making, copying or changing one never touches the heap.
type Shape struct {
	rank int
	dims [MaxRank]int
}

// Strides holds, for each axis, the distance in elements between neighbours
// along that axis. Only the first Rank() entries of a tensor's strides mean
// anything.
type Strides [MaxRank]int

// NewShape returns the shape with the given extents. A rank above MaxRank, a
// negative extent, or an element count that overflows int is an error
// wrapping unit00.ErrInvalid.
//
// The error messages format a copy of dims: passing dims itself to fmt would
// make every caller's variadic slice escape to the heap.
func NewShape(dims ...int) (Shape, error) {
	if len(dims) > MaxRank {
		return Shape{}, fmt.Errorf("shape %v has rank %d, more than MaxRank %d: %w", slices.Clone(dims), len(dims), MaxRank, unit00.ErrInvalid)
	}
	var s Shape
	s.rank = len(dims)
	n := 1
	for i, d := range dims {
		if d < 0 {
			return Shape{}, fmt.Errorf("shape %v: axis %d has negative extent %d: %w", slices.Clone(dims), i, d, unit00.ErrInvalid)
		}
		if d > 0 && n > math.MaxInt/d {
			return Shape{}, fmt.Errorf("shape %v: element count overflows int: %w", slices.Clone(dims), unit00.ErrInvalid)
		}
		n *= d
		s.dims[i] = d
	}
	return s, nil
}

// MustShape is NewShape for shapes written in code: it panics instead of
// returning an error.
func MustShape(dims ...int) Shape {
	s, err := NewShape(dims...)
	if err != nil {
		panic(err)
	}
	return s
}

// Rank is the number of axes; 0 for a scalar.
func (s Shape) Rank() int { return s.rank }

// Dim is the extent of axis i. It panics (unit00.Check) unless 0 ≤ i < Rank().
func (s Shape) Dim(i int) int {
	if i < 0 || i >= s.rank {
		unit00.Checkf(false, "Dim(%d) of a rank-%d shape", i, s.rank)
	}
	return s.dims[i]
}

// Numel is the number of elements: the product of the extents, 1 for a scalar.
func (s Shape) Numel() int {
	n := 1
	for i := 0; i < s.rank; i++ {
		n *= s.dims[i]
	}
	return n
}

// Equal reports whether two shapes have the same rank and extents.
func (s Shape) Equal(o Shape) bool { return s == o }

// String formats the shape like a Go slice: "[2 3 4]", "[]" for a scalar.
func (s Shape) String() string {
	parts := make([]string, s.rank)
	for i := range parts {
		parts[i] = fmt.Sprint(s.dims[i])
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// ContiguousStrides returns the row-major strides of s: the last axis has
// stride 1 and each axis steps over everything after it.
func (s Shape) ContiguousStrides() Strides {
	var st Strides
	step := 1
	for i := s.rank - 1; i >= 0; i-- {
		st[i] = step
		step *= s.dims[i]
	}
	return st
}

// RowBytes is the size in bytes of n consecutive elements of type d: for a
// quantized type, n must be a whole number of blocks. Otherwise, for an
// unknown type, or for a size that overflows int, it returns 0 and an error
// wrapping unit00.ErrInvalid.
func (d DType) RowBytes(n int) (int, error) {
	if !d.Valid() {
		return 0, fmt.Errorf("RowBytes: unknown type %v: %w", d, unit00.ErrInvalid)
	}
	if n < 0 || n%d.BlockSize() != 0 {
		return 0, fmt.Errorf("RowBytes: %d elements of %v is not a whole number of %d-element blocks: %w", n, d, d.BlockSize(), unit00.ErrInvalid)
	}
	// A shape's element count fits in an int, but its bytes may not: a
	// wrapped product would be a small (or negative) size for a huge tensor.
	blocks := n / d.BlockSize()
	if blocks > math.MaxInt/d.BlockBytes() {
		return 0, fmt.Errorf("RowBytes: %d elements of %v: the size in bytes overflows int: %w", n, d, unit00.ErrInvalid)
	}
	return blocks * d.BlockBytes(), nil
}
