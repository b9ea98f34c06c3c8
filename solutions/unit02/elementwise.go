package unit02

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// BroadcastShape returns the shape that a and b broadcast to under NumPy's
// rules: align the shapes at their last axis; along each axis the extents
// must be equal or one of them 1 (a missing leading axis counts as 1), and
// the result takes the larger. Incompatible shapes are an error wrapping
// unit00.ErrInvalid that names both.
func BroadcastShape(a, b unit01.Shape) (unit01.Shape, error) {
	rank := max(a.Rank(), b.Rank())
	var dims [unit01.MaxRank]int
	for i := 0; i < rank; i++ {
		da, db := extentFromEnd(a, rank-1-i), extentFromEnd(b, rank-1-i)
		switch {
		case da == db || db == 1:
			dims[i] = da
		case da == 1:
			dims[i] = db
		default:
			return unit01.Shape{}, fmt.Errorf("shapes %v and %v do not broadcast: axis %d has extents %d and %d: %w", a, b, i, da, db, unit00.ErrInvalid)
		}
	}
	return unit01.NewShape(dims[:rank]...)
}

// extentFromEnd returns the extent of the axis k places from the end of s,
// or 1 where s has no such axis.
func extentFromEnd(s unit01.Shape, k int) int {
	if k >= s.Rank() {
		return 1
	}
	return s.Dim(s.Rank() - 1 - k)
}

// Binary returns op(a, b) elementwise in a new contiguous F32 tensor of the
// broadcast shape. a and b may be any F32 views (transposed, sliced,
// expanded); other types are an error wrapping unit00.ErrUnsupported.
func Binary(op Op, a, b unit01.Tensor) (unit01.Tensor, error) {
	shape, err := BroadcastShape(a.Shape(), b.Shape())
	if err != nil {
		return unit01.Tensor{}, err
	}
	dst, err := unit01.Empty(unit01.F32, shape)
	if err != nil {
		return unit01.Tensor{}, err
	}
	return dst, BinaryInto(op, dst, a, b)
}

// BinaryInto writes op(a, b) into dst, whose shape must be the broadcast
// shape of a and b. dst may be a or b itself (an in-place update) but must
// not partly overlap them. It allocates nothing.
func BinaryInto(op Op, dst, a, b unit01.Tensor) error {
	for _, t := range []unit01.Tensor{dst, a, b} {
		if t.DType() != unit01.F32 {
			return fmt.Errorf("%v: %v operands are not supported, only F32: %w", op, t.DType(), unit00.ErrUnsupported)
		}
	}
	shape, err := BroadcastShape(a.Shape(), b.Shape())
	if err != nil {
		return err
	}
	if !dst.Shape().Equal(shape) {
		return fmt.Errorf("%v: destination shape %v, want the broadcast shape %v of %v and %v: %w", op, dst.Shape(), shape, a.Shape(), b.Shape(), unit00.ErrInvalid)
	}
	// Broadcasting is a view: stride 0 along the repeated axes.
	if a, err = a.Expand(shape); err != nil {
		return err
	}
	if b, err = b.Expand(shape); err != nil {
		return err
	}
	if dst.IsContiguous() && a.IsContiguous() && b.IsContiguous() {
		applySlices(op, dst.F32(), a.F32(), b.F32())
		return nil
	}
	applyStrided(op, dst, a, b)
	return nil
}

// applyStrided walks every index of dst's shape with an odometer, keeping
// one storage position per operand and moving each by its own strides.
func applyStrided(op Op, dst, a, b unit01.Tensor) {
	shape := dst.Shape()
	n := shape.Numel()
	if n == 0 {
		return
	}
	d, x, y := dst.Storage().Float32s(), a.Storage().Float32s(), b.Storage().Float32s()
	sd, sa, sb := dst.Strides(), a.Strides(), b.Strides()
	pd, pa, pb := dst.Offset(), a.Offset(), b.Offset()
	var idx [unit01.MaxRank]int
	last := shape.Rank() - 1
	for i := 0; i < n; i++ {
		d[pd] = apply(op, x[pa], y[pb])
		// Advance the odometer: step the last axis, carrying into earlier
		// ones, and move each position the same way.
		for ax := last; ax >= 0; ax-- {
			idx[ax]++
			pd, pa, pb = pd+sd[ax], pa+sa[ax], pb+sb[ax]
			if idx[ax] < shape.Dim(ax) {
				break
			}
			pd, pa, pb = pd-idx[ax]*sd[ax], pa-idx[ax]*sa[ax], pb-idx[ax]*sb[ax]
			idx[ax] = 0
		}
	}
}

// applySlices is the contiguous fast path: dst[i] = op(a[i], b[i]).
func applySlices(op Op, dst, a, b []float32) {
	switch op {
	case Add:
		AddSlices(dst, a, b)
	case Mul:
		MulSlices(dst, a, b)
	default:
		a, b = a[:len(dst)], b[:len(dst)]
		for i := range dst {
			dst[i] = apply(op, a[i], b[i])
		}
	}
}

func apply(op Op, x, y float32) float32 {
	switch op {
	case Add:
		return x + y
	case Sub:
		return x - y
	case Mul:
		return x * y
	case Div:
		return x / y
	}
	panic(fmt.Sprintf("unit02: unknown %v", op))
}

// Scalar returns op(a, s) elementwise in a new contiguous F32 tensor, s
// standing for a tensor of a's shape filled with s.
func Scalar(op Op, a unit01.Tensor, s float32) (unit01.Tensor, error) {
	st, err := unit01.FromSlice([]float32{s}, unit01.MustShape())
	if err != nil {
		return unit01.Tensor{}, err
	}
	return Binary(op, a, st)
}

// AddSlices sets dst[i] = a[i] + b[i]: the residual connection's hot path.
// dst may be a or b. It panics (unit00.Check) if the lengths differ.
func AddSlices(dst, a, b []float32) {
	unit00.Check(len(a) == len(dst) && len(b) == len(dst), "AddSlices: lengths differ")
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// MulSlices sets dst[i] = a[i] · b[i]. dst may be a or b. It panics
// (unit00.Check) if the lengths differ.
func MulSlices(dst, a, b []float32) {
	unit00.Check(len(a) == len(dst) && len(b) == len(dst), "MulSlices: lengths differ")
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}
