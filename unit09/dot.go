package unit09

import (
	"github.com/llmforge/forge/unit01"
)

// VecDotType is the type a row of activations is quantized to, once, before
// its dot products with weights of type dt, as ggml does: Q8_0 for Q4_0,
// Q4_1, Q5_0 and Q8_0 (one activation block per weight block); Q8_K for
// the K-quants (whose super-blocks of 256 it matches, with the sums of
// each 16 quants that the mins need); the weights' own type for F16 and
// BF16 (activations rounded to half precision, as llama.cpp's CPU code
// does); F32 for F32.
func VecDotType(dt unit01.DType) unit01.DType {
	panic("TODO(9.3): write VecDotType, see docs/unit09.md")
}

// Dot returns Σ w[i]·a[i] over n elements: w is a row of weights of type
// dt, a the activations quantized to VecDotType(dt). The quantized types
// multiply their integer quants in integers, block by block, and apply the
// scales once per block; the weights are never dequantized. It panics
// (unit00.Check) if w or a is not n elements long, or dt is not Supported.
func Dot(dt unit01.DType, w, a []byte, n int) float32 {
	panic("TODO(9.3): write Dot, see docs/unit09.md")
}
