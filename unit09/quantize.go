package unit09

import (
	"github.com/llmforge/forge/unit01"
)

// QuantizeRow sets dst to src quantized to type dt, in ggml's layout:
// len(src) elements, a whole number of blocks, into exactly
// RowBytes(len(src)) bytes. The 32-element types use ggml's reference
// algorithms (Q8_0: d = max|x|/127, rounded half away from zero; Q4_0 and
// Q5_0: d = max/−8 and max/−16 from the signed largest value; Q4_1: the
// block's min and range). The K-quants use a min–max rule whose error has a
// simple bound (see docs/unit09.md) rather than ggml's iterative search:
// their blocks are valid ggml and dequantize the same everywhere, but may
// hold other quants than llama-quantize would choose. Errors as
// DequantizeRow's.
func QuantizeRow(dt unit01.DType, dst []byte, src []float32) error {
	panic("TODO(9.2): write QuantizeRow, see docs/unit09.md")
}
