package unit10

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/llmforge/forge/unit00"
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
// one KV documents for its Type (and Elem); a general.alignment that is not
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
	align, err := checkKVs(kvs)
	if err != nil {
		return err
	}
	offsets, err := layoutTensors(tensors, align)
	if err != nil {
		return err
	}
	e := &encoder{w: bufio.NewWriterSize(w, 1<<16)}
	e.write([]byte("GGUF"))
	e.u32(ggufVersion)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		e.u32(uint32(kv.Type))
		if kv.Type == TypeArray {
			e.u32(uint32(kv.Elem))
		}
		e.value(kv.Value)
	}
	for i, t := range tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offsets[i])
	}
	if len(tensors) > 0 {
		e.zeros = make([]byte, min(align, 4096))
		e.pad(align)
		for _, t := range tensors {
			e.write(t.Data)
			e.pad(align)
		}
	}
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
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
	out := make([]Tensor, len(f.Tensors))
	for i, t := range f.Tensors {
		data, _ := f.view(t)
		out[i] = Tensor{Name: t.Name, Dims: t.Dims, Type: t.Type, Data: data}
	}
	return out
}

// checkKVs checks every entry and returns the alignment they ask for.
func checkKVs(kvs []KV) (int, error) {
	align := ggufDefaultAlignment
	seen := make(map[string]int, len(kvs))
	for i, kv := range kvs {
		bad := func(kind error, format string, args ...any) error {
			return fmt.Errorf("Write: metadata entry %d (%q): %s: %w", i, kv.Key, fmt.Sprintf(format, args...), kind)
		}
		if kv.Key == "" {
			return 0, bad(unit00.ErrInvalid, "empty key")
		}
		if j, dup := seen[kv.Key]; dup {
			return 0, bad(unit00.ErrInvalid, "duplicate key (already entry %d)", j)
		}
		seen[kv.Key] = i
		if kv.Type == TypeArray && kv.Elem == TypeArray {
			return 0, bad(unit00.ErrUnsupported, "arrays of arrays are not supported")
		}
		want, ok := goTypeName(kv.Type, kv.Elem)
		if !ok {
			return 0, bad(unit00.ErrInvalid, "unknown value type (Type %d, Elem %d)", uint32(kv.Type), uint32(kv.Elem))
		}
		if got := fmt.Sprintf("%T", kv.Value); got != want {
			return 0, bad(unit00.ErrInvalid, "Type %s needs a Value of Go type %s, not %s", kvTypeName(kv), want, got)
		}
		if kv.Key == ggufAlignmentKey {
			a, ok := kv.Value.(uint32)
			if !ok {
				return 0, bad(unit00.ErrInvalid, "general.alignment must be a UINT32, not a %s", kvTypeName(kv))
			}
			if a == 0 || a&(a-1) != 0 || int(a) <= 0 {
				return 0, bad(unit00.ErrInvalid, "alignment %d is not a power of two", a)
			}
			align = int(a)
		}
	}
	return align, nil
}

// layoutTensors checks the tensors and returns their offsets in the data
// section.
func layoutTensors(tensors []Tensor, align int) ([]uint64, error) {
	offsets := make([]uint64, len(tensors))
	names := make(map[string]int, len(tensors))
	var next uint64
	for i, t := range tensors {
		bad := func(kind error, format string, args ...any) error {
			return fmt.Errorf("Write: tensor %d (%q): %s: %w", i, t.Name, fmt.Sprintf(format, args...), kind)
		}
		if len(t.Name) == 0 || len(t.Name) > ggufMaxName {
			return nil, bad(unit00.ErrInvalid, "name of %d bytes (want 1 to %d)", len(t.Name), ggufMaxName)
		}
		if j, dup := names[t.Name]; dup {
			return nil, bad(unit00.ErrInvalid, "duplicate name (already tensor %d)", j)
		}
		names[t.Name] = i
		size, err := tensorBytes(t.Dims, t.Type)
		if err != nil {
			return nil, fmt.Errorf("Write: tensor %d (%q): %w", i, t.Name, err)
		}
		if uint64(len(t.Data)) != size {
			return nil, bad(unit00.ErrInvalid, "%d bytes of data, but %v %v takes %d", len(t.Data), t.Type, t.Dims, size)
		}
		offsets[i] = next
		padded := size + (uint64(align)-size%uint64(align))%uint64(align)
		if next > math.MaxInt64-padded {
			return nil, bad(unit00.ErrInvalid, "the data section would exceed math.MaxInt64 bytes")
		}
		next += padded
	}
	return offsets, nil
}

// goTypeName is the name of the Go type KV documents for a Value of type t
// (and element type elem, for arrays), as %T prints it; false for an
// unknown type.
func goTypeName(t, elem ValueType) (string, bool) {
	names := [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "", "uint64", "int64", "float64"}
	if t == TypeArray {
		if int(elem) >= len(names) || elem == TypeArray {
			return "", false
		}
		return "[]" + names[elem], true
	}
	if int(t) >= len(names) {
		return "", false
	}
	return names[t], true
}

// kvTypeName names an entry's type: "UINT32", "ARRAY of STRING".
func kvTypeName(kv KV) string {
	if kv.Type == TypeArray {
		return "ARRAY of " + valueTypeName(kv.Elem)
	}
	return valueTypeName(kv.Type)
}

// encoder writes little-endian GGUF fields, keeping the first error and
// the number of bytes written.
type encoder struct {
	w     *bufio.Writer
	n     uint64
	err   error
	buf   [8]byte
	zeros []byte
}

func (e *encoder) write(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += uint64(n)
	e.err = err
}

func (e *encoder) u8(x uint8) {
	e.buf[0] = x
	e.write(e.buf[:1])
}

func (e *encoder) u16(x uint16) {
	binary.LittleEndian.PutUint16(e.buf[:2], x)
	e.write(e.buf[:2])
}

func (e *encoder) u32(x uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], x)
	e.write(e.buf[:4])
}

func (e *encoder) u64(x uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], x)
	e.write(e.buf[:8])
}

func (e *encoder) boolean(b bool) {
	if b {
		e.u8(1)
	} else {
		e.u8(0)
	}
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	if e.err == nil {
		n, err := e.w.WriteString(s)
		e.n += uint64(n)
		e.err = err
	}
}

// pad writes zero bytes up to the next multiple of align.
func (e *encoder) pad(align int) {
	for n := (uint64(align) - e.n%uint64(align)) % uint64(align); n > 0 && e.err == nil; {
		k := min(n, uint64(len(e.zeros)))
		e.write(e.zeros[:k])
		n -= k
	}
}

// value writes a Value checked by checkKVs; an array's element type has
// been written.
func (e *encoder) value(v any) {
	switch x := v.(type) {
	case uint8:
		e.u8(x)
	case int8:
		e.u8(uint8(x))
	case uint16:
		e.u16(x)
	case int16:
		e.u16(uint16(x))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case bool:
		e.boolean(x)
	case string:
		e.str(x)
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	case []uint8:
		e.u64(uint64(len(x)))
		e.write(x)
	case []int8:
		encodeAll(e, x, func(v int8) { e.u8(uint8(v)) })
	case []uint16:
		encodeAll(e, x, e.u16)
	case []int16:
		encodeAll(e, x, func(v int16) { e.u16(uint16(v)) })
	case []uint32:
		encodeAll(e, x, e.u32)
	case []int32:
		encodeAll(e, x, func(v int32) { e.u32(uint32(v)) })
	case []float32:
		encodeAll(e, x, func(v float32) { e.u32(math.Float32bits(v)) })
	case []bool:
		encodeAll(e, x, e.boolean)
	case []string:
		encodeAll(e, x, e.str)
	case []uint64:
		encodeAll(e, x, e.u64)
	case []int64:
		encodeAll(e, x, func(v int64) { e.u64(uint64(v)) })
	case []float64:
		encodeAll(e, x, func(v float64) { e.u64(math.Float64bits(v)) })
	default:
		panic(fmt.Sprintf("unit10: encoder.value: unchecked value of type %T", v)) // checkKVs lets none through
	}
}

// encodeAll writes an array's element count and its elements.
func encodeAll[T any](e *encoder, xs []T, put func(T)) {
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		if e.err != nil {
			return
		}
		put(x)
	}
}
