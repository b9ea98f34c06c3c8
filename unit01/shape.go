package unit01

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
	panic("TODO(1.1): write NewShape, see docs/unit01.md")
}

// MustShape is NewShape for shapes written in code: it panics instead of
// returning an error.
func MustShape(dims ...int) Shape {
	panic("TODO(1.1): write MustShape, see docs/unit01.md")
}

// Rank is the number of axes; 0 for a scalar.
func (s Shape) Rank() int {
	panic("TODO(1.1): write Shape.Rank, see docs/unit01.md")
}

// Dim is the extent of axis i. It panics (unit00.Check) unless 0 ≤ i < Rank().
func (s Shape) Dim(i int) int {
	panic("TODO(1.1): write Shape.Dim, see docs/unit01.md")
}

// Numel is the number of elements: the product of the extents, 1 for a scalar.
func (s Shape) Numel() int {
	panic("TODO(1.1): write Shape.Numel, see docs/unit01.md")
}

// Equal reports whether two shapes have the same rank and extents.
func (s Shape) Equal(o Shape) bool {
	panic("TODO(1.1): write Shape.Equal, see docs/unit01.md")
}

// String formats the shape like a Go slice: "[2 3 4]", "[]" for a scalar.
func (s Shape) String() string {
	panic("TODO(1.1): write Shape.String, see docs/unit01.md")
}

// ContiguousStrides returns the row-major strides of s: the last axis has
// stride 1 and each axis steps over everything after it.
func (s Shape) ContiguousStrides() Strides {
	panic("TODO(1.1): write Shape.ContiguousStrides, see docs/unit01.md")
}

// RowBytes is the size in bytes of n consecutive elements of type d: for a
// quantized type, n must be a whole number of blocks. Otherwise, for an
// unknown type, or for a size that overflows int, it returns 0 and an error
// wrapping unit00.ErrInvalid.
func (d DType) RowBytes(n int) (int, error) {
	panic("TODO(1.1): write DType.RowBytes, see docs/unit01.md")
}
