package unit10

import (
	"io"
)

// Write writes a GGUF version 3 file holding the metadata entries kvs and
// the tensors, both in the order given, to w.
//
// The layout is the one llama.cpp's and gguf-py's writers produce and
// llama.cpp's loader expects:
//   - the magic "GGUF", the version 3 (u32), the tensor count and the
//     metadata count (u64 each);
//   - each entry: its key (a u64 length and the bytes), its Type (u32) and
//     its Value encoded by Type (an array: Elem as a u32, the element count
//     as a u64, then the elements; a bool as one byte, 0 or 1);
//   - each tensor info: name, n_dims (u32), the dims ne[0] first (u64
//     each), the type (u32) and the offset (u64), which is the sum of the
//     sizes of the tensors before it, each rounded up to the alignment;
//   - zero bytes up to the next multiple of the alignment, where the data
//     section starts; then each tensor's Data followed by zero bytes up to
//     the next multiple of the alignment, the last tensor included, so the
//     file's size is a multiple of the alignment.
//
// With no tensors nothing follows the metadata (no padding and no data
// section), as in the vocabulary files llama.cpp ships (written by
// gguf-py), so those round-trip too; llama.cpp's C writer pads even then,
// and Parse accepts both forms.
// The alignment is the value of the general.alignment entry of kvs if there
// is one, else 32. Together with Tensors these rules make round trips exact:
// Write(Parse(x).KV, Tensors(Parse(x))) writes x back byte for byte for any
// file Write wrote.
//
// Everything is checked before the first byte is written, so a bad argument
// leaves w untouched. Errors wrapping unit00.ErrInvalid: an empty or
// duplicate key; an unknown Type or Elem; a Value whose Go type is not the
// one KV documents for its Type (and Elem), named in the error with the
// Type as the spec names it (UINT32, ARRAY of INT32) and the Go type it
// needs; a general.alignment that is not
// a UINT32 power of two; a tensor name that is empty, longer than 63 bytes
// or used twice; dims or a type TensorInfo.Bytes rejects (with the kind it
// gives: an unknown type wraps unit00.ErrUnsupported, as does an array of
// arrays); len(Data) other than that size. An error from w is returned as
// is, and writing stops at the first one.
//
// Output goes through a bufio.Writer, and tensor data are written straight
// from their slices: the file is never assembled in memory, whatever the
// size of the tensors.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	panic("TODO(10.3): write Write, see docs/unit10.md")
}

// Tensors returns f's tensors in file order, ready for Write: each
// Tensor's Name, Dims and Type are those of its TensorInfo (Dims is shared,
// not copied) and Data is the view File.Tensor returns, pointing into
// f.Data (nil for a closed file, which Write then rejects). f must come
// from Parse or Open.
//
// Write(w, f.KV, Tensors(f)) reproduces f.Data byte for byte when the file
// is laid out the way Write lays files out (version 3, offsets the running
// sum of the aligned sizes, zero padding, nothing after the last tensor's
// padding, and no padding at all when there are no tensors). Every file
// Write wrote is, and so are the model files of llama.cpp and gguf-py and
// gguf-py's vocabulary files. Other files come out in that layout.
func Tensors(f *File) []Tensor {
	panic("TODO(10.3): write Tensors, see docs/unit10.md")
}
