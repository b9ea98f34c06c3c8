package unit01

import (
	"fmt"
	"slices"

	"github.com/llmforge/forge/unit00"
)

// Views share their source's Storage: each returns a new header (offset,
// shape, strides) and copies no data. Errors wrap unit00.ErrInvalid and name
// the shapes involved; they format copies of slices (slices.Clone), because a
// slice handed to fmt escapes to the heap on every call, error or not.

// Reshape returns a view with shape s over the same elements in the same
// row-major order. The tensor must be contiguous (a strided view cannot be
// re-read in a new shape without copying: call Contiguous first) and s must
// have the same number of elements.
func (t Tensor) Reshape(s Shape) (Tensor, error) {
	if s.Numel() != t.Numel() {
		return Tensor{}, fmt.Errorf("Reshape %v to %v: %d elements cannot become %d: %w", t.shape, s, t.Numel(), s.Numel(), unit00.ErrInvalid)
	}
	if !t.IsContiguous() {
		st := t.strides // a copy declared here, so only this error path moves it to the heap
		return Tensor{}, fmt.Errorf("Reshape of a non-contiguous %v view (strides %v): call Contiguous first: %w", t.shape, st[:t.shape.rank], unit00.ErrInvalid)
	}
	v := t
	v.shape, v.strides = s, s.ContiguousStrides()
	return v.keepBlocks(t, "Reshape")
}

// Permute returns a view whose axis i is axis axes[i] of t. axes must be a
// permutation of 0 … Rank()−1.
func (t Tensor) Permute(axes ...int) (Tensor, error) {
	if len(axes) != t.shape.rank {
		return Tensor{}, fmt.Errorf("permute %v of a rank-%d tensor %v: %w", slices.Clone(axes), t.shape.rank, t.shape, unit00.ErrInvalid)
	}
	var seen [MaxRank]bool
	v := t
	for i, a := range axes {
		if a < 0 || a >= t.shape.rank || seen[a] {
			return Tensor{}, fmt.Errorf("permute %v of %v: not a permutation of its %d axes: %w", slices.Clone(axes), t.shape, t.shape.rank, unit00.ErrInvalid)
		}
		seen[a] = true
		v.shape.dims[i] = t.shape.dims[a]
		v.strides[i] = t.strides[a]
	}
	return v.keepBlocks(t, "Permute")
}

// Transpose returns a view with axes a and b swapped.
func (t Tensor) Transpose(a, b int) (Tensor, error) {
	r := t.shape.rank
	if a < 0 || a >= r || b < 0 || b >= r {
		return Tensor{}, fmt.Errorf("Transpose(%d, %d) of a rank-%d tensor %v: %w", a, b, r, t.shape, unit00.ErrInvalid)
	}
	v := t
	v.shape.dims[a], v.shape.dims[b] = t.shape.dims[b], t.shape.dims[a]
	v.strides[a], v.strides[b] = t.strides[b], t.strides[a]
	return v.keepBlocks(t, "Transpose")
}

// Slice returns a view of the elements whose index along axis is in
// [start, end). 0 ≤ start ≤ end ≤ Dim(axis); an empty range is allowed.
func (t Tensor) Slice(axis, start, end int) (Tensor, error) {
	if axis < 0 || axis >= t.shape.rank {
		return Tensor{}, fmt.Errorf("Slice on axis %d of a rank-%d tensor %v: %w", axis, t.shape.rank, t.shape, unit00.ErrInvalid)
	}
	if start < 0 || start > end || end > t.shape.dims[axis] {
		return Tensor{}, fmt.Errorf("Slice [%d, %d) of axis %d of %v: %w", start, end, axis, t.shape, unit00.ErrInvalid)
	}
	v := t
	v.offset += start * t.strides[axis]
	v.shape.dims[axis] = end - start
	return v.keepBlocks(t, "Slice")
}

// Expand returns a view of t broadcast to shape s, NumPy style: the shapes
// are aligned at their last axis, an axis of extent 1 repeats (its stride
// becomes 0), and new leading axes repeat the whole tensor. Every other axis
// must match.
func (t Tensor) Expand(s Shape) (Tensor, error) {
	lead := s.rank - t.shape.rank
	if lead < 0 {
		return Tensor{}, fmt.Errorf("Expand %v to the smaller rank of %v: %w", t.shape, s, unit00.ErrInvalid)
	}
	v := t
	v.shape = s
	v.strides = Strides{}
	for i := 0; i < t.shape.rank; i++ {
		d, want := t.shape.dims[i], s.dims[lead+i]
		switch {
		case d == want:
			v.strides[lead+i] = t.strides[i]
		case d == 1:
			v.strides[lead+i] = 0
		default:
			return Tensor{}, fmt.Errorf("Expand %v to %v: axis %d has extent %d, want 1 or %d: %w", t.shape, s, i, d, want, unit00.ErrInvalid)
		}
	}
	return v.keepBlocks(t, "Expand")
}

// keepBlocks checks the rule for quantized types: a view must keep the last
// axis whole and unit-stride, because its elements only exist packed in
// blocks.
func (v Tensor) keepBlocks(t Tensor, op string) (Tensor, error) {
	if !t.dtype.Quantized() {
		return v, nil
	}
	r, vr := t.shape.rank, v.shape.rank
	if vr == 0 || v.shape.dims[vr-1] != t.shape.dims[r-1] || v.strides[vr-1] != 1 {
		return Tensor{}, fmt.Errorf("%s of a %v tensor %v must keep its last axis (the packed blocks) whole: %w", op, t.dtype, t.shape, unit00.ErrInvalid)
	}
	return v, nil
}

// Contiguous returns t itself when it is already contiguous, and otherwise a
// copy in a new Storage with row-major strides: the one view operation that
// copies.
func (t Tensor) Contiguous() Tensor {
	if t.IsContiguous() {
		return t
	}
	out, err := Empty(t.dtype, t.shape)
	unit00.Check(err == nil, "Contiguous: the shape of an existing tensor is invalid")
	// A scalar is always contiguous, so t has a last axis: the rows.
	rank := t.shape.rank
	rowLen, last := t.shape.dims[rank-1], t.strides[rank-1]
	rowBytes, _ := t.dtype.RowBytes(rowLen)
	elemBytes := t.dtype.BlockBytes()
	src, dst := t.storage.buf, out.storage.buf
	var idx [MaxRank]int // odometer over every axis but the last
	for d := 0; d < len(dst); d += rowBytes {
		pos := t.offset
		for i := 0; i < rank-1; i++ {
			pos += idx[i] * t.strides[i]
		}
		if t.dtype.Quantized() { // a whole row of blocks, contiguous by keepBlocks
			start := pos / t.dtype.BlockSize() * elemBytes
			copy(dst[d:d+rowBytes], src[start:])
		} else {
			for j := 0; j < rowLen; j++ {
				at := (pos + j*last) * elemBytes
				copy(dst[d+j*elemBytes:d+(j+1)*elemBytes], src[at:])
			}
		}
		t.shape.step(&idx)
	}
	return out
}

// step advances an odometer over every axis of s but the last.
func (s Shape) step(idx *[MaxRank]int) {
	for i := s.rank - 2; i >= 0; i-- {
		idx[i]++
		if idx[i] < s.dims[i] {
			return
		}
		idx[i] = 0
	}
}
