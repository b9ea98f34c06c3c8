package unit01

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
// type the last axis must hold whole blocks. A size in bytes that overflows
// int is an error too (a shape's element count fits in an int, its bytes
// may not). Errors wrap unit00.ErrInvalid.
func Empty(dt DType, s Shape) (Tensor, error) {
	panic("TODO(1.1): write Empty, see docs/unit01.md")
}

// Zeros returns a contiguous tensor of type dt and shape s, filled with zeros.
func Zeros(dt DType, s Shape) (Tensor, error) {
	panic("TODO(1.1): write Zeros, see docs/unit01.md")
}

// FromSlice returns a contiguous F32 tensor of shape s holding a copy of
// data. len(data) must equal s.Numel(), or the error wraps unit00.ErrInvalid.
func FromSlice(data []float32, s Shape) (Tensor, error) {
	panic("TODO(1.1): write FromSlice, see docs/unit01.md")
}

// DType is the element type.
func (t Tensor) DType() DType {
	panic("TODO(1.1): write Tensor.DType, see docs/unit01.md")
}

// Shape is the extent of each axis.
func (t Tensor) Shape() Shape {
	panic("TODO(1.1): write Tensor.Shape, see docs/unit01.md")
}

// Strides are the element strides of each axis.
func (t Tensor) Strides() Strides {
	panic("TODO(1.1): write Tensor.Strides, see docs/unit01.md")
}

// Offset is the position, in elements, of element (0, 0, …) in the storage.
func (t Tensor) Offset() int {
	panic("TODO(1.1): write Tensor.Offset, see docs/unit01.md")
}

// Storage is the buffer the tensor views.
func (t Tensor) Storage() *Storage {
	panic("TODO(1.1): write Tensor.Storage, see docs/unit01.md")
}

// Numel is the number of elements.
func (t Tensor) Numel() int {
	panic("TODO(1.1): write Tensor.Numel, see docs/unit01.md")
}

// IsContiguous reports whether the elements lie in row-major order with no
// gaps, so the tensor's data is one run of memory. Axes of extent 1 are
// skipped: their stride never moves to another element. A tensor with no
// elements is contiguous.
func (t Tensor) IsContiguous() bool {
	panic("TODO(1.1): write Tensor.IsContiguous, see docs/unit01.md")
}

// At returns the element at idx as a float32. It reads F32, F16, BF16, I8 and
// I32 tensors and is meant for tests and debugging, not hot loops. It panics
// (unit00.Check) on a bad index or another type.
func (t Tensor) At(idx ...int) float32 {
	panic("TODO(1.1): write Tensor.At, see docs/unit01.md")
}

// Set stores v at idx, rounding it to the tensor's type. It writes F32, F16
// and BF16 tensors and panics (unit00.Check) on a bad index or another type.
func (t Tensor) Set(v float32, idx ...int) {
	panic("TODO(1.1): write Tensor.Set, see docs/unit01.md")
}

// F32 returns the data of a contiguous F32 tensor as a slice of Numel()
// float32s sharing the storage: the fast path for kernels. It panics
// (unit00.Check) for another type or a non-contiguous view.
func (t Tensor) F32() []float32 {
	panic("TODO(1.1): write Tensor.F32, see docs/unit01.md")
}

// ByteOffset is the position in bytes of element (0, 0, …) in the storage.
func (t Tensor) ByteOffset() int {
	panic("TODO(1.1): write Tensor.ByteOffset, see docs/unit01.md")
}

// ByteStrides returns the strides in bytes, ggml's nb[] in our axis order:
// the last axis steps one block (one element for scalar types), every other
// axis its element stride converted to bytes. For a quantized type a row of
// 32 Q4_0 elements is 18 bytes, so a [4, 64] Q4_0 tensor has byte strides
// [36, 18].
func (t Tensor) ByteStrides() Strides {
	panic("TODO(1.1): write Tensor.ByteStrides, see docs/unit01.md")
}

// Data returns the bytes of a contiguous tensor, sharing its storage. It
// panics (unit00.Check) for a non-contiguous view.
func (t Tensor) Data() []byte {
	panic("TODO(1.1): write Tensor.Data, see docs/unit01.md")
}
