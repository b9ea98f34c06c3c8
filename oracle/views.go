package oracle

// Row-major references for tensor views: each takes flat float64 data of a
// shape and returns the data a view would show, computed by walking every
// output index and reading the input index it maps to.

// Numel returns the number of elements of shape.
func Numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Ravel turns a multi-index of shape into a flat row-major index.
func Ravel(idx, shape []int) int {
	flat := 0
	for a := range shape {
		flat = flat*shape[a] + idx[a]
	}
	return flat
}

// Permute returns data of shape with its axes reordered: output axis a is
// input axis perm[a]. It returns the new data and shape.
func Permute(data []float64, shape, perm []int) ([]float64, []int) {
	outShape := make([]int, len(shape))
	for a, p := range perm {
		outShape[a] = shape[p]
	}
	out := make([]float64, len(data))
	in := make([]int, len(shape))
	for i := range out {
		idx := Unravel(i, outShape)
		for a, p := range perm {
			in[p] = idx[a]
		}
		out[i] = data[Ravel(in, shape)]
	}
	return out, outShape
}

// SliceAxis returns the elements of data whose index along axis is in
// [start, end), and the new shape.
func SliceAxis(data []float64, shape []int, axis, start, end int) ([]float64, []int) {
	outShape := append([]int(nil), shape...)
	outShape[axis] = end - start
	out := make([]float64, Numel(outShape))
	for i := range out {
		idx := Unravel(i, outShape)
		idx[axis] += start
		out[i] = data[Ravel(idx, shape)]
	}
	return out, outShape
}

// BroadcastTo returns data of shape repeated to shape to, NumPy style: shapes
// are aligned at their last axis, and an axis of size 1 (or a missing leading
// axis) repeats. The caller guarantees the shapes are compatible.
func BroadcastTo(data []float64, shape, to []int) []float64 {
	out := make([]float64, Numel(to))
	lead := len(to) - len(shape)
	in := make([]int, len(shape))
	for i := range out {
		idx := Unravel(i, to)
		for a := range shape {
			if shape[a] == 1 {
				in[a] = 0
			} else {
				in[a] = idx[a+lead]
			}
		}
		out[i] = data[Ravel(in, shape)]
	}
	return out
}

// Iota returns 0, 1, …, n−1 as float64.
func Iota(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i)
	}
	return out
}
