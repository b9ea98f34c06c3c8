//go:build linux

package cuda

import (
	"fmt"
	"unsafe"
)

// Size is b's size in bytes.
func (b Buffer) Size() int { return b.size }

// Slice is the n bytes of b from byte off on: a view, which shares b's
// memory and must not be freed. It panics if they do not lie in b.
func (b Buffer) Slice(off, n int) Buffer {
	if off < 0 || n < 0 || off+n > b.size {
		panic(fmt.Sprintf("cuda: Slice(%d, %d) of a buffer of %d bytes", off, n, b.size))
	}
	return Buffer{ptr: b.ptr + uint64(off), size: n}
}

// CopyInBytes copies src to the start of b: weights as a file holds them.
func (c *Context) CopyInBytes(b Buffer, src []byte) error {
	if len(src) > b.size {
		return fmt.Errorf("cuda: CopyInBytes of %d bytes into a buffer of %d", len(src), b.size)
	}
	if len(src) == 0 {
		return nil
	}
	return c.do("cuMemcpyHtoD", func() Result { return cuMemcpyHtoD(b.ptr, unsafe.Pointer(&src[0]), uintptr(len(src))) })
}

// CopyOutBytes copies the start of b into dst.
func (c *Context) CopyOutBytes(dst []byte, b Buffer) error {
	if len(dst) > b.size {
		return fmt.Errorf("cuda: CopyOutBytes of %d bytes from a buffer of %d", len(dst), b.size)
	}
	if len(dst) == 0 {
		return nil
	}
	return c.do("cuMemcpyDtoH", func() Result { return cuMemcpyDtoH(unsafe.Pointer(&dst[0]), b.ptr, uintptr(len(dst))) })
}
