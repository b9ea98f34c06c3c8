// Package unit01 is the tensor: a typed, strided view of a shared, aligned
// buffer. It builds shapes and storage (1.1), an arena for scratch memory
// (1.2), views that never copy (1.3), and half-precision conversions (1.4).
//
// Read docs/unit01.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to fill in.
package unit01

import "fmt"

// DType is an element type. Its values are ggml's type ids, the numbers a GGUF
// file stores, so a tensor type read from a file needs no translation.
//
// Scalar types hold one element per "block". Block-quantized types (Q4_0,
// Q8_0, the K-quants, ...) pack a fixed number of elements into a block of
// bytes; unit09 implements them. Everything in this unit that deals in bytes
// goes through BlockSize and BlockBytes, so those types fit in from the start.
type DType uint32

// The element types, with ggml's ids (ggml.h). Ids 4, 5, 16–23, 29 and up
// are types this course does not use.
const (
	F32  DType = 0
	F16  DType = 1
	Q4_0 DType = 2
	Q4_1 DType = 3
	Q5_0 DType = 6
	Q5_1 DType = 7
	Q8_0 DType = 8
	Q8_1 DType = 9
	Q2_K DType = 10
	Q3_K DType = 11
	Q4_K DType = 12
	Q5_K DType = 13
	Q6_K DType = 14
	Q8_K DType = 15
	I8   DType = 24
	I16  DType = 25
	I32  DType = 26
	I64  DType = 27
	F64  DType = 28
	BF16 DType = 30
)

// dtypeInfo is a type's name and block geometry.
type dtypeInfo struct {
	name       string
	blockSize  int // elements per block
	blockBytes int // bytes per block
}

// info returns the facts about d; ok is false for ids this course does not know.
func (d DType) info() (dtypeInfo, bool) {
	switch d {
	case F32:
		return dtypeInfo{"F32", 1, 4}, true
	case F16:
		return dtypeInfo{"F16", 1, 2}, true
	case BF16:
		return dtypeInfo{"BF16", 1, 2}, true
	case F64:
		return dtypeInfo{"F64", 1, 8}, true
	case I8:
		return dtypeInfo{"I8", 1, 1}, true
	case I16:
		return dtypeInfo{"I16", 1, 2}, true
	case I32:
		return dtypeInfo{"I32", 1, 4}, true
	case I64:
		return dtypeInfo{"I64", 1, 8}, true
	case Q4_0:
		return dtypeInfo{"Q4_0", 32, 18}, true
	case Q4_1:
		return dtypeInfo{"Q4_1", 32, 20}, true
	case Q5_0:
		return dtypeInfo{"Q5_0", 32, 22}, true
	case Q5_1:
		return dtypeInfo{"Q5_1", 32, 24}, true
	case Q8_0:
		return dtypeInfo{"Q8_0", 32, 34}, true
	case Q8_1:
		return dtypeInfo{"Q8_1", 32, 36}, true
	case Q2_K:
		return dtypeInfo{"Q2_K", 256, 84}, true
	case Q3_K:
		return dtypeInfo{"Q3_K", 256, 110}, true
	case Q4_K:
		return dtypeInfo{"Q4_K", 256, 144}, true
	case Q5_K:
		return dtypeInfo{"Q5_K", 256, 176}, true
	case Q6_K:
		return dtypeInfo{"Q6_K", 256, 210}, true
	case Q8_K:
		return dtypeInfo{"Q8_K", 256, 292}, true
	}
	return dtypeInfo{}, false
}

// Valid reports whether d is a type this course knows.
func (d DType) Valid() bool {
	_, ok := d.info()
	return ok
}

// String returns the type's name as ggml spells it ("F32", "Q4_K"), or
// "DType(n)" for an unknown id.
func (d DType) String() string {
	if i, ok := d.info(); ok {
		return i.name
	}
	return fmt.Sprintf("DType(%d)", uint32(d))
}

// BlockSize is the number of elements in one block: 1 for scalar types, 32
// or 256 for quantized ones, 0 for an unknown id.
func (d DType) BlockSize() int {
	i, _ := d.info()
	return i.blockSize
}

// BlockBytes is the size of one block in bytes; for a scalar type, the size
// of one element. 0 for an unknown id.
func (d DType) BlockBytes() int {
	i, _ := d.info()
	return i.blockBytes
}

// Quantized reports whether d packs several elements into a block.
func (d DType) Quantized() bool { return d.BlockSize() > 1 }
