package unit02

import (
	"github.com/llmforge/forge/unit01"
)

// BroadcastShape returns the shape that a and b broadcast to under NumPy's
// rules: align the shapes at their last axis; along each axis the extents
// must be equal or one of them 1 (a missing leading axis counts as 1), and
// the result takes the larger. Incompatible shapes are an error wrapping
// unit00.ErrInvalid that names both.
func BroadcastShape(a, b unit01.Shape) (unit01.Shape, error) {
	panic("TODO(2.1): write BroadcastShape, see docs/unit02.md")
}

// Binary returns op(a, b) elementwise in a new contiguous F32 tensor of the
// broadcast shape. a and b may be any F32 views (transposed, sliced,
// expanded); other types are an error wrapping unit00.ErrUnsupported, and
// shapes that do not broadcast (BroadcastShape's rule) one wrapping
// unit00.ErrInvalid.
func Binary(op Op, a, b unit01.Tensor) (unit01.Tensor, error) {
	panic("TODO(2.1): write Binary, see docs/unit02.md")
}

// BinaryInto writes op(a, b) into dst, whose shape must be the broadcast
// shape of a and b. dst may be a or b itself (an in-place update) but must
// not partly overlap them. It allocates nothing. Shapes that do not
// broadcast, or a dst of another shape, are an error wrapping
// unit00.ErrInvalid; a type other than F32 (in a, b or dst) one wrapping
// unit00.ErrUnsupported. On an error dst is not written.
func BinaryInto(op Op, dst, a, b unit01.Tensor) error {
	panic("TODO(2.1): write BinaryInto, see docs/unit02.md")
}

// Scalar returns op(a, s) elementwise in a new contiguous F32 tensor, s
// standing for a tensor of a's shape filled with s.
func Scalar(op Op, a unit01.Tensor, s float32) (unit01.Tensor, error) {
	panic("TODO(2.1): write Scalar, see docs/unit02.md")
}

// AddSlices sets dst[i] = a[i] + b[i]: the residual connection's hot path.
// dst may be a or b. It panics (unit00.Check) if the lengths differ.
func AddSlices(dst, a, b []float32) {
	panic("TODO(2.1): write AddSlices, see docs/unit02.md")
}

// MulSlices sets dst[i] = a[i] · b[i]. dst may be a or b. It panics
// (unit00.Check) if the lengths differ.
func MulSlices(dst, a, b []float32) {
	panic("TODO(2.1): write MulSlices, see docs/unit02.md")
}
