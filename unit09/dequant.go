package unit09

import (
	"github.com/llmforge/forge/unit01"
)

// DequantizeRow sets dst to the values of src, a row of len(dst) elements
// of type dt laid out exactly as ggml stores them (and a GGUF file holds
// them): for a block type, len(dst)/BlockSize blocks of BlockBytes each.
// It knows F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K and
// Q8_K. An unknown type is an error wrapping unit00.ErrUnsupported; a
// length that is not a whole number of blocks, or a src of the wrong size,
// one wrapping unit00.ErrInvalid.
func DequantizeRow(dt unit01.DType, dst []float32, src []byte) error {
	panic("TODO(9.1): write DequantizeRow, see docs/unit09.md")
}

// Supported reports whether this package reads and writes type dt.
func Supported(dt unit01.DType) bool {
	panic("TODO(9.1): write Supported, see docs/unit09.md")
}
