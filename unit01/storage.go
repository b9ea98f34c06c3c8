package unit01

import (
	"sync/atomic"
)

// Alignment is the byte alignment of every buffer NewStorage and an Arena
// hand out: a cache line, and the width of an AVX-512 register, so SIMD
// loads never straddle two lines.
const Alignment = 64

// Storage is a byte buffer that tensors view. Many tensors may share one.
type Storage struct {
	buf []byte
}

// storageAllocs counts the buffers NewStorage has created. It is the one
// piece of package state: a diagnostic counter, like runtime.MemStats, that
// lets tests prove a view did not copy.
var storageAllocs atomic.Int64

// NewStorage allocates a zeroed buffer of nbytes bytes whose first byte is
// Alignment-aligned, and counts it in StorageAllocations. It panics
// (unit00.Check) if nbytes is negative.
func NewStorage(nbytes int) *Storage {
	panic("TODO(1.1): write NewStorage, see docs/unit01.md")
}

// WrapStorage makes a Storage of b itself, with no copy: for memory that
// already exists, such as a memory-mapped file. It is not counted in
// StorageAllocations, and b's alignment is whatever it is.
func WrapStorage(b []byte) *Storage {
	panic("TODO(1.1): write WrapStorage, see docs/unit01.md")
}

// StorageAllocations returns how many buffers NewStorage has created since
// the program started.
func StorageAllocations() int64 {
	panic("TODO(1.1): write StorageAllocations, see docs/unit01.md")
}

// Bytes returns the whole buffer.
func (s *Storage) Bytes() []byte {
	panic("TODO(1.1): write Storage.Bytes, see docs/unit01.md")
}

// Len is the buffer's size in bytes.
func (s *Storage) Len() int {
	panic("TODO(1.1): write Storage.Len, see docs/unit01.md")
}

// Float32s returns the buffer as float32s (Len()/4 of them: none for a
// buffer of fewer than 4 bytes), sharing its memory. It panics
// (unit00.Check) if the buffer is not 4-byte aligned.
func (s *Storage) Float32s() []float32 {
	panic("TODO(1.1): write Storage.Float32s, see docs/unit01.md")
}
