package unit01

// Views share their source's Storage: each returns a new header (offset,
// shape, strides) and copies no data. Errors wrap unit00.ErrInvalid and name
// the shapes involved; they format copies of slices (slices.Clone), because a
// slice handed to fmt escapes to the heap on every call, error or not.

// Reshape returns a view with shape s over the same elements in the same
// row-major order. The tensor must be contiguous (a strided view cannot be
// re-read in a new shape without copying: call Contiguous first) and s must
// have the same number of elements.
// Otherwise it is an error wrapping unit00.ErrInvalid.
func (t Tensor) Reshape(s Shape) (Tensor, error) {
	panic("TODO(1.3): write Tensor.Reshape, see docs/unit01.md")
}

// Permute returns a view whose axis i is axis axes[i] of t. axes must be a
// permutation of 0 … Rank()−1; anything else is an error wrapping
// unit00.ErrInvalid.
func (t Tensor) Permute(axes ...int) (Tensor, error) {
	panic("TODO(1.3): write Tensor.Permute, see docs/unit01.md")
}

// Transpose returns a view with axes a and b swapped. An axis out of range
// is an error wrapping unit00.ErrInvalid.
func (t Tensor) Transpose(a, b int) (Tensor, error) {
	panic("TODO(1.3): write Tensor.Transpose, see docs/unit01.md")
}

// Slice returns a view of the elements whose index along axis is in
// [start, end). 0 ≤ start ≤ end ≤ Dim(axis); an empty range is allowed. An
// axis out of range or bounds outside those are an error wrapping
// unit00.ErrInvalid.
func (t Tensor) Slice(axis, start, end int) (Tensor, error) {
	panic("TODO(1.3): write Tensor.Slice, see docs/unit01.md")
}

// Expand returns a view of t broadcast to shape s, NumPy style: the shapes
// are aligned at their last axis, an axis of extent 1 repeats (its stride
// becomes 0), and new leading axes repeat the whole tensor. Every other axis
// must match; a shape that does not (or has fewer axes than t) is an error
// wrapping unit00.ErrInvalid.
func (t Tensor) Expand(s Shape) (Tensor, error) {
	panic("TODO(1.3): write Tensor.Expand, see docs/unit01.md")
}

// Contiguous returns t itself when it is already contiguous, and otherwise a
// copy in a new Storage with row-major strides: the one view operation that
// copies.
func (t Tensor) Contiguous() Tensor {
	panic("TODO(1.3): write Tensor.Contiguous, see docs/unit01.md")
}
