package unit01

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
)

// Tensor is a typed, strided view of a Storage: the element at index
// (i0, i1, …) lives offset + i0·strides[0] + i1·strides[1] + … elements into
// the storage. Tensors are small values; views copy the header, never the
// data.
type Tensor struct {
	storage *Storage
	offset  int // in elements, from the start of the storage to element (0, 0, …)
	shape   Shape
	strides Strides
	dtype   DType
}

// Empty returns a contiguous tensor of type dt and shape s in a new Storage.
// Its contents are unspecified (Go happens to zero them). For a quantized
// type the last axis must hold whole blocks. Errors wrap unit00.ErrInvalid.
func Empty(dt DType, s Shape) (Tensor, error) {
	n, err := byteSize(dt, s)
	if err != nil {
		return Tensor{}, err
	}
	return Tensor{storage: NewStorage(n), shape: s, strides: s.ContiguousStrides(), dtype: dt}, nil
}

// byteSize is the size of a contiguous tensor of type dt and shape s.
func byteSize(dt DType, s Shape) (int, error) {
	if s.rank == 0 {
		return dt.RowBytes(1)
	}
	row, err := dt.RowBytes(s.dims[s.rank-1])
	if err != nil {
		return 0, fmt.Errorf("tensor %v of %v: %w", s, dt, err)
	}
	rows := s.Numel() / max(s.dims[s.rank-1], 1)
	if row > 0 && rows > math.MaxInt/row {
		return 0, fmt.Errorf("tensor %v of %v: the size in bytes overflows int: %w", s, dt, unit00.ErrInvalid)
	}
	return row * rows, nil
}

// Zeros returns a contiguous tensor of type dt and shape s, filled with zeros.
func Zeros(dt DType, s Shape) (Tensor, error) {
	return Empty(dt, s) // a new Storage is always zeroed
}

// FromSlice returns a contiguous F32 tensor of shape s holding a copy of
// data. len(data) must equal s.Numel(), or the error wraps unit00.ErrInvalid.
func FromSlice(data []float32, s Shape) (Tensor, error) {
	if len(data) != s.Numel() {
		return Tensor{}, fmt.Errorf("FromSlice: %d values for shape %v of %d elements: %w", len(data), s, s.Numel(), unit00.ErrInvalid)
	}
	t, err := Empty(F32, s)
	if err != nil {
		return Tensor{}, err
	}
	copy(t.F32(), data)
	return t, nil
}

// DType is the element type.
func (t Tensor) DType() DType { return t.dtype }

// Shape is the extent of each axis.
func (t Tensor) Shape() Shape { return t.shape }

// Strides are the element strides of each axis.
func (t Tensor) Strides() Strides { return t.strides }

// Offset is the position, in elements, of element (0, 0, …) in the storage.
func (t Tensor) Offset() int { return t.offset }

// Storage is the buffer the tensor views.
func (t Tensor) Storage() *Storage { return t.storage }

// Numel is the number of elements.
func (t Tensor) Numel() int { return t.shape.Numel() }

// IsContiguous reports whether the elements lie in row-major order with no
// gaps, so the tensor's data is one run of memory. Axes of extent 1 are
// skipped: their stride never moves to another element. A tensor with no
// elements is contiguous.
func (t Tensor) IsContiguous() bool {
	if t.Numel() == 0 {
		return true
	}
	want := 1
	for i := t.shape.rank - 1; i >= 0; i-- {
		d := t.shape.dims[i]
		if d == 1 {
			continue
		}
		if t.strides[i] != want {
			return false
		}
		want *= d
	}
	return true
}

// elem returns the storage position, in elements, of the element at idx. It
// panics (unit00.Check) if idx does not name an element of t.
func (t Tensor) elem(idx []int) int {
	if len(idx) != t.shape.rank {
		unit00.Checkf(false, "index %v into a rank-%d tensor", idx, t.shape.rank)
	}
	pos := t.offset
	for i, x := range idx {
		if x < 0 || x >= t.shape.dims[i] {
			unit00.Checkf(false, "index %v out of range for shape %v", idx, t.shape)
		}
		pos += x * t.strides[i]
	}
	return pos
}

// At returns the element at idx as a float32. It reads F32, F16, BF16, I8 and
// I32 tensors and is meant for tests and debugging, not hot loops. It panics
// (unit00.Check) on a bad index or another type.
func (t Tensor) At(idx ...int) float32 {
	pos := t.elem(idx)
	b := t.storage.buf
	switch t.dtype {
	case F32:
		return math.Float32frombits(binary.LittleEndian.Uint32(b[4*pos:]))
	case F16:
		return F16ToF32(binary.LittleEndian.Uint16(b[2*pos:]))
	case BF16:
		return BF16ToF32(binary.LittleEndian.Uint16(b[2*pos:]))
	case I8:
		return float32(int8(b[pos]))
	case I32:
		return float32(int32(binary.LittleEndian.Uint32(b[4*pos:])))
	}
	unit00.Checkf(false, "At on a %v tensor", t.dtype)
	return 0
}

// Set stores v at idx, rounding it to the tensor's type. It writes F32, F16
// and BF16 tensors and panics (unit00.Check) on a bad index or another type.
func (t Tensor) Set(v float32, idx ...int) {
	pos := t.elem(idx)
	b := t.storage.buf
	switch t.dtype {
	case F32:
		binary.LittleEndian.PutUint32(b[4*pos:], math.Float32bits(v))
	case F16:
		binary.LittleEndian.PutUint16(b[2*pos:], F32ToF16(v))
	case BF16:
		binary.LittleEndian.PutUint16(b[2*pos:], F32ToBF16(v))
	default:
		unit00.Checkf(false, "Set on a %v tensor", t.dtype)
	}
}

// F32 returns the data of a contiguous F32 tensor as a slice of Numel()
// float32s sharing the storage: the fast path for kernels. It panics
// (unit00.Check) for another type or a non-contiguous view.
func (t Tensor) F32() []float32 {
	if t.dtype != F32 || !t.IsContiguous() {
		unit00.Checkf(false, "F32() of a %v tensor (contiguous: %v); call Contiguous first", t.dtype, t.IsContiguous())
	}
	return t.storage.Float32s()[t.offset : t.offset+t.Numel()]
}

// ByteOffset is the position in bytes of element (0, 0, …) in the storage.
func (t Tensor) ByteOffset() int {
	return t.offset / t.dtype.BlockSize() * t.dtype.BlockBytes()
}

// ByteStrides returns the strides in bytes, ggml's nb[] in our axis order:
// the last axis steps one block (one element for scalar types), every other
// axis its element stride converted to bytes. For a quantized type a row of
// 32 Q4_0 elements is 18 bytes, so a [4, 64] Q4_0 tensor has byte strides
// [36, 18].
func (t Tensor) ByteStrides() Strides {
	var nb Strides
	bs, bb := t.dtype.BlockSize(), t.dtype.BlockBytes()
	for i := 0; i < t.shape.rank; i++ {
		nb[i] = t.strides[i] / bs * bb
	}
	if t.shape.rank > 0 {
		nb[t.shape.rank-1] = t.strides[t.shape.rank-1] * bb
	}
	return nb
}

// Data returns the bytes of a contiguous tensor, sharing its storage. It
// panics (unit00.Check) for a non-contiguous view.
func (t Tensor) Data() []byte {
	unit00.Check(t.IsContiguous(), "Data() of a non-contiguous view; call Contiguous first")
	n, err := byteSize(t.dtype, t.shape)
	unit00.Check(err == nil, "Data() of a tensor with a malformed shape")
	start := t.ByteOffset()
	return t.storage.buf[start : start+n]
}
