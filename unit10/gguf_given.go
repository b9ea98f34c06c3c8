// Package unit10 is GGUF, the file format of llama.cpp models: a reader
// that trusts nothing in the file (10.1), memory mapping with zero-copy
// tensor views (10.2), a writer whose files read back byte for byte
// (10.3), binding a file's tensors and hyper-parameters to unit05's model
// and unit04's tokenizer (10.4), and conformance with llama.cpp on models
// this package generates (10.5).
//
// Read docs/unit10.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit10

import "github.com/llmforge/forge/unit01"

// ValueType is the type of a metadata value, GGUF's enum.
type ValueType uint32

const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// KV is one metadata entry. Value holds the Go value of Type: uint8, int8,
// uint16, int16, uint32, int32, float32, bool, string, uint64, int64 or
// float64; for TypeArray, a slice of the element type Elem ([]uint8 …
// []float64, []bool, []string). Arrays of arrays are not supported (nor
// does llama.cpp read them).
type KV struct {
	Key   string
	Type  ValueType
	Elem  ValueType // an array's element type; unused otherwise
	Value any
}

// TensorInfo describes one tensor of a file.
type TensorInfo struct {
	Name string
	// Dims lists the dimensions with ne[0] first: ne[0] is the contiguous
	// one, so a weight matrix [out, in] is stored with Dims {in, out}.
	Dims []uint64
	Type unit01.DType
	// Offset is where the tensor's data starts, counted from the start of
	// the data section; a multiple of the file's alignment.
	Offset uint64
}

// Tensor is a tensor to write: its info and its bytes, already in the
// layout of its type.
type Tensor struct {
	Name string
	Dims []uint64 // ne[0] first
	Type unit01.DType
	Data []byte
}

// File is a parsed GGUF file. Data holds the whole file (memory-mapped by
// Open), and tensor data are views into it: nothing is copied.
type File struct {
	Version    uint32
	KV         []KV
	Tensors    []TensorInfo
	Alignment  int   // general.alignment, 32 when absent
	DataOffset int64 // where the data section starts in the file
	Data       []byte

	source string       // the file's name, for errors
	unmap  func() error // releases the mapping, nil when there is none
}
