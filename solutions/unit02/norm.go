package unit02

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// RMSNormRow sets dst = x / sqrt(mean(x²) + eps) · weight, Llama's
// normalisation of one row. eps goes inside the square root; it keeps a row
// of zeros finite. dst may be x. It panics (unit00.Check) if the lengths
// differ or x is empty.
func RMSNormRow(dst, x, weight []float32, eps float32) {
	unit00.Check(len(x) > 0 && len(dst) == len(x) && len(weight) == len(x), "RMSNormRow: lengths differ or are zero")
	scaleMul(dst, x, weight, x, dst, rmsScale(sumSquares(x), len(x), eps))
}

// rmsScale is 1/sqrt(mean + eps) for a row of n elements whose squares sum
// to ss, computed in float64.
func rmsScale(ss float64, n int, eps float32) float32 {
	return float32(1 / math.Sqrt(ss/float64(n)+float64(eps)))
}

// LayerNormRow sets dst = (x − mean) / sqrt(var + eps) · weight + bias with
// the population variance; bias may be nil. dst may be x. It panics
// (unit00.Check) if the lengths differ or x is empty.
func LayerNormRow(dst, x, weight, bias []float32, eps float32) {
	unit00.Check(len(x) > 0 && len(dst) == len(x) && len(weight) == len(x) && (bias == nil || len(bias) == len(x)),
		"LayerNormRow: lengths differ or are zero")
	// Two passes: the mean first, then the variance around it. The one-pass
	// E[x²] − E[x]² cancels catastrophically when the mean is large.
	mean := sum64(x) / float64(len(x))
	variance := 0.0
	for _, v := range x {
		d := float64(v) - mean
		variance += d * d
	}
	inv := 1 / math.Sqrt(variance/float64(len(x))+float64(eps))
	for i, v := range x {
		y := (float64(v) - mean) * inv * float64(weight[i])
		if bias != nil {
			y += float64(bias[i])
		}
		dst[i] = float32(y)
	}
}

// RMSNorm normalises every row (the last axis) of the contiguous F32 tensor
// x into dst, which must have x's shape: the tensor form of RMSNormRow.
// While it writes one row it prefetches the next (see scaleMul), so memory
// and arithmetic overlap.
func RMSNorm(dst, x unit01.Tensor, weight []float32, eps float32) error {
	rows, dim, err := rowsOf("RMSNorm", dst, x)
	if err != nil {
		return err
	}
	if len(weight) != dim {
		return fmt.Errorf("RMSNorm: %d weights for rows of %d: %w", len(weight), dim, unit00.ErrInvalid)
	}
	d, s := dst.F32(), x.F32()
	for r := 0; r < rows; r++ {
		in, out := s[r*dim:(r+1)*dim], d[r*dim:(r+1)*dim]
		next := min(r+1, rows-1) // the last row prefetches itself
		scaleMul(out, in, weight, s[next*dim:(next+1)*dim], d[next*dim:(next+1)*dim], rmsScale(sumSquares(in), dim, eps))
	}
	return nil
}

// rowsOf checks that dst and x are contiguous F32 tensors of one shape with
// at least one axis, and returns the number of rows and their length.
func rowsOf(op string, dst, x unit01.Tensor) (rows, dim int, err error) {
	switch {
	case x.DType() != unit01.F32 || dst.DType() != unit01.F32:
		return 0, 0, fmt.Errorf("%s: %v into %v, only F32 is supported: %w", op, x.DType(), dst.DType(), unit00.ErrUnsupported)
	case !dst.Shape().Equal(x.Shape()) || x.Shape().Rank() == 0:
		return 0, 0, fmt.Errorf("%s: destination %v for input %v, want the same shape with at least one axis: %w", op, dst.Shape(), x.Shape(), unit00.ErrInvalid)
	case !x.IsContiguous() || !dst.IsContiguous():
		return 0, 0, fmt.Errorf("%s: rows must be contiguous (call Contiguous first): %w", op, unit00.ErrInvalid)
	}
	dim = x.Shape().Dim(x.Shape().Rank() - 1)
	if dim == 0 {
		return 0, 0, nil
	}
	return x.Numel() / dim, dim, nil
}
