package unit01

import (
	"sync/atomic"
	"unsafe"

	"github.com/llmforge/forge/unit00"
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
	unit00.Check(nbytes >= 0, "NewStorage with a negative size")
	storageAllocs.Add(1)
	raw := make([]byte, nbytes+Alignment-1)
	// Skip ahead to the first aligned byte. The slice keeps the whole
	// allocation alive, so the garbage collector never frees it early.
	skip := 0
	if len(raw) > 0 {
		skip = int(-uintptr(unsafe.Pointer(&raw[0])) & (Alignment - 1))
	}
	return &Storage{buf: raw[skip : skip+nbytes : skip+nbytes]}
}

// WrapStorage makes a Storage of b itself, with no copy: for memory that
// already exists, such as a memory-mapped file. It is not counted in
// StorageAllocations, and b's alignment is whatever it is.
func WrapStorage(b []byte) *Storage {
	return &Storage{buf: b}
}

// StorageAllocations returns how many buffers NewStorage has created since
// the program started.
func StorageAllocations() int64 { return storageAllocs.Load() }

// Bytes returns the whole buffer.
func (s *Storage) Bytes() []byte { return s.buf }

// Len is the buffer's size in bytes.
func (s *Storage) Len() int { return len(s.buf) }

// Float32s returns the buffer as float32s (Len()/4 of them), sharing its
// memory. It panics (unit00.Check) if the buffer is not 4-byte aligned.
func (s *Storage) Float32s() []float32 {
	if len(s.buf) < 4 {
		return nil
	}
	p := unsafe.Pointer(&s.buf[0])
	unit00.Check(uintptr(p)%4 == 0, "Float32s of a buffer that is not 4-byte aligned")
	return unsafe.Slice((*float32)(p), len(s.buf)/4)
}
