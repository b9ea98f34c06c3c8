package unit10

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// The format's constants (docs/unit10.md, 10.1, draws the layout).
const (
	ggufMagic            = 0x46554747 // "GGUF" read as a little-endian u32
	ggufDefaultAlignment = 32
	ggufMaxDims          = 4  // ggml's GGML_MAX_DIMS
	ggufMaxName          = 63 // ggml's GGML_MAX_NAME is 64 bytes with the NUL
	ggufAlignmentKey     = "general.alignment"
	ggufVersion          = 3 // the version Write writes
)

// Lower bounds on encoded sizes, used to reject a count the bytes left
// cannot hold before anything proportional to it is allocated.
const (
	minKVBytes         = 8 + 1 + 4 + 1         // key length, a 1-byte key, type, a 1-byte value
	minTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8 // name length, a 1-byte name, n_dims, one dim, type, offset
)

// Parse parses a whole GGUF file held in data. source names the input in
// errors (a path, or "" for none).
//
// The file must be little-endian GGUF version 2 or 3; version 1, other
// versions and big-endian files (whose version reads byte-swapped, e.g.
// 0x03000000) are errors wrapping unit00.ErrUnsupported. Parse reads and
// checks, in file order:
//   - the header: the magic "GGUF", the version, tensor_count and
//     metadata_kv_count, each count no larger than the bytes left could hold;
//   - every metadata entry: a key (non-empty, not seen before), a value type
//     (one of the 13 of ValueType) and a value of that type. Strings are a
//     u64 length and that many bytes; bools are one byte, 0 or 1; arrays
//     are an element type (any type but an array), a u64 element count and
//     the elements. Each KV.Value is a Go value of the type KV documents;
//     an empty array is an empty, non-nil slice;
//   - general.alignment, if present: it must be a UINT32 and a power of two
//     (1 included, as llama.cpp accepts it); File.Alignment is it, or 32
//     when absent;
//   - every tensor info: a name (1 to 63 bytes, unique), n_dims (1 to 4),
//     the dims with ne[0] first (each at least 1, their product at most
//     math.MaxInt64), a ggml type that unit01.DType.Valid accepts, ne[0] a
//     multiple of the type's block size, the size from TensorInfo.Bytes at
//     most math.MaxInt64, and an offset that is a multiple of the alignment;
//   - the data section: File.DataOffset is the end of the tensor infos
//     rounded up to the alignment. With tensors, every tensor's bytes
//     [DataOffset+Offset, DataOffset+Offset+Bytes) must lie inside data and
//     no two tensors may share a byte; with no tensors the file may end right
//     after the metadata, before DataOffset (vocabulary files do).
//
// Bytes after the last tensor are allowed (writers pad the last tensor to
// the alignment); the padding between the infos and the data section is
// not checked to be zero. Tensors need not be in offset order.
//
// Every count and length is checked against the bytes left before anything
// proportional to it is allocated, so a corrupt or hostile file gets an
// error, never a panic or an allocation much larger than data. Errors found
// while decoding are *unit00.InputError values naming the field and the
// byte offset where it starts (for a bad value, the start of that value;
// for an unknown type, the type; for a tensor outside the file or
// overlapping another, its offset field; for a product of dims that
// overflows, the dim that makes it overflow; for ne[0] not divisible by the
// block size, ne[0]), wrapping unit00.ErrTruncated (the data ran out before
// a field, or a tensor's bytes run past the end of the file),
// unit00.ErrInvalid (a value that is not allowed, including a length or
// count longer than the bytes left) or unit00.ErrUnsupported (a version,
// byte order, value type, array of arrays or ggml type this reader does not
// handle).
//
// On error Parse returns a nil *File. Nothing is copied from the tensor
// data: File.Data is data itself and Tensor returns views into it, so data
// must not change while the File is in use. Keys, strings and array values
// are copied, so they stay valid after Close.
func Parse(data []byte, source string) (*File, error) {
	p := &parser{data: data, source: source}
	magic, err := p.u32("magic")
	if err != nil {
		return nil, err
	}
	if magic != ggufMagic {
		return nil, p.failAt(0, "magic", unit00.ErrInvalid, "not a GGUF file (the first 4 bytes are %q, want \"GGUF\")", data[:4])
	}
	version, err := p.u32("version")
	if err != nil {
		return nil, err
	}
	switch swapped := bits.ReverseBytes32(version); {
	case version == 2 || version == 3:
	case version == 1:
		return nil, p.failAt(4, "version", unit00.ErrUnsupported, "GGUF version 1 (32-bit counts) is not supported, only 2 and 3")
	case swapped == 2 || swapped == 3:
		return nil, p.failAt(4, "version", unit00.ErrUnsupported, "big-endian GGUF (version %#08x is %d byte-swapped): only little-endian files are supported", version, swapped)
	default:
		return nil, p.failAt(4, "version", unit00.ErrUnsupported, "GGUF version %d (this reader knows 2 and 3)", version)
	}
	nTensors, err := p.count("tensor_count", minTensorInfoBytes)
	if err != nil {
		return nil, err
	}
	nKV, err := p.count("metadata_kv_count", minKVBytes)
	if err != nil {
		return nil, err
	}
	f := &File{Version: version, Alignment: ggufDefaultAlignment, Data: data, source: source}
	if err := p.kvs(f, nKV); err != nil {
		return nil, err
	}
	offsetAt, err := p.tensorInfos(f, nTensors)
	if err != nil {
		return nil, err
	}
	end := p.off
	align := int64(f.Alignment)
	f.DataOffset = (int64(end) + align - 1) / align * align
	if nTensors > 0 {
		if err := p.checkData(f, end, offsetAt); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// kvs reads the n metadata entries into f.KV and sets f.Alignment.
func (p *parser) kvs(f *File, n uint64) error {
	f.KV = make([]KV, 0, min(n, 1024))
	seen := make(map[string]int, min(n, 1024))
	for i := range n {
		at := p.off
		key, err := p.str(fmt.Sprintf("metadata entry %d: key", i), -1)
		if err != nil {
			return err
		}
		if key == "" {
			return p.failAt(at, fmt.Sprintf("metadata entry %d: key", i), unit00.ErrInvalid, "empty key")
		}
		if j, dup := seen[key]; dup {
			return p.failAt(at, fmt.Sprintf("metadata entry %d: key", i), unit00.ErrInvalid, "duplicate key %q (already metadata entry %d)", key, j)
		}
		seen[key] = int(i)
		typeAt := p.off
		typ, err := p.u32(key + ": type")
		if err != nil {
			return err
		}
		valueAt := p.off
		kv, err := p.value(key, ValueType(typ), typeAt)
		if err != nil {
			return err
		}
		if key == ggufAlignmentKey {
			if kv.Type != TypeUint32 {
				return p.failAt(typeAt, key+": type", unit00.ErrInvalid, "type %s, but general.alignment must be a UINT32", valueTypeName(kv.Type))
			}
			a := kv.Value.(uint32)
			if a == 0 || a&(a-1) != 0 {
				return p.failAt(valueAt, key, unit00.ErrInvalid, "alignment %d is not a power of two", a)
			}
			if int(a) <= 0 { // 2^31 on a 32-bit platform
				return p.failAt(valueAt, key, unit00.ErrUnsupported, "alignment %d is too large for this platform", a)
			}
			f.Alignment = int(a)
		}
		f.KV = append(f.KV, kv)
	}
	return nil
}

// tensorInfos reads the n tensor infos into f.Tensors. It returns, for
// each, the byte offset of its offset field, where errors about its place
// in the data section point.
func (p *parser) tensorInfos(f *File, n uint64) ([]int, error) {
	f.Tensors = make([]TensorInfo, 0, min(n, 1024))
	offsetAt := make([]int, 0, min(n, 1024))
	names := make(map[string]int, min(n, 1024))
	for i := range n {
		field := fmt.Sprintf("tensor %d: name", i)
		nameAt := p.off
		length, err := p.u64(field)
		if err != nil {
			return nil, err
		}
		if length == 0 || length > ggufMaxName {
			return nil, p.failAt(nameAt, field, unit00.ErrInvalid, "name of %d bytes (want 1 to %d)", length, ggufMaxName)
		}
		b, err := p.take(int(length), field)
		if err != nil {
			return nil, err
		}
		name := string(b)
		if j, dup := names[name]; dup {
			return nil, p.failAt(nameAt, field, unit00.ErrInvalid, "duplicate tensor name %q (already tensor %d)", name, j)
		}
		names[name] = int(i)
		prefix := fmt.Sprintf("tensor %d (%s)", i, name)

		nDimsAt := p.off
		nDims, err := p.u32(prefix + ": n_dims")
		if err != nil {
			return nil, err
		}
		if nDims < 1 || nDims > ggufMaxDims {
			return nil, p.failAt(nDimsAt, prefix+": n_dims", unit00.ErrInvalid, "%d dimensions (want 1 to %d)", nDims, ggufMaxDims)
		}
		dims := make([]uint64, nDims)
		dimsAt := p.off
		numel := uint64(1)
		for j := range dims {
			at := p.off
			dimField := fmt.Sprintf("%s: ne[%d]", prefix, j)
			d, err := p.u64(dimField)
			if err != nil {
				return nil, err
			}
			if d == 0 {
				return nil, p.failAt(at, dimField, unit00.ErrInvalid, "dimension 0 (every dimension is at least 1)")
			}
			dims[j] = d
			hi, lo := bits.Mul64(numel, d)
			if hi != 0 || lo > math.MaxInt64 {
				return nil, p.failAt(at, dimField, unit00.ErrInvalid, "dims %v: the element count overflows int64", dims[:j+1])
			}
			numel = lo
		}

		typeAt := p.off
		typ, err := p.u32(prefix + ": type")
		if err != nil {
			return nil, err
		}
		dt := unit01.DType(typ)
		if !dt.Valid() {
			return nil, p.failAt(typeAt, prefix+": type", unit00.ErrUnsupported, "unknown ggml type %d", typ)
		}
		if blck := uint64(dt.BlockSize()); dims[0]%blck != 0 {
			return nil, p.failAt(dimsAt, prefix+": ne[0]", unit00.ErrInvalid, "ne[0] = %d is not a multiple of %v's block size %d", dims[0], dt, blck)
		}
		if _, err := tensorBytes(dims, dt); err != nil { // what is left to fail: the size overflows
			return nil, p.failAt(dimsAt, prefix+": dims", unit00.ErrInvalid, "%v %v: the size in bytes overflows int64", dt, dims)
		}

		at := p.off
		off, err := p.u64(prefix + ": offset")
		if err != nil {
			return nil, err
		}
		if off%uint64(f.Alignment) != 0 {
			return nil, p.failAt(at, prefix+": offset", unit00.ErrInvalid, "offset %d is not a multiple of the alignment %d", off, f.Alignment)
		}
		f.Tensors = append(f.Tensors, TensorInfo{Name: name, Dims: dims, Type: dt, Offset: off})
		offsetAt = append(offsetAt, at)
	}
	return offsetAt, nil
}

// checkData checks that the data section starts inside the file and that
// every tensor's bytes lie inside it, with no two tensors overlapping.
// infoEnd is where the tensor infos end.
func (p *parser) checkData(f *File, infoEnd int, offsetAt []int) error {
	size := int64(len(p.data))
	if f.DataOffset > size {
		return p.failAt(infoEnd, "padding before the data section", unit00.ErrTruncated,
			"the file ends at byte %d, before its data section, which starts at byte %d", size, f.DataOffset)
	}
	avail := uint64(size - f.DataOffset)
	sizes := make([]uint64, len(f.Tensors))
	for i, t := range f.Tensors {
		n, _ := tensorBytes(t.Dims, t.Type) // checked by tensorInfos
		if t.Offset > avail || n > avail-t.Offset {
			return p.failAt(offsetAt[i], fmt.Sprintf("tensor %d (%s): offset", i, t.Name), unit00.ErrTruncated,
				"its %d bytes at offset %d run past the end of the data section, which holds %d bytes (the file is %d bytes, the data section starts at byte %d)",
				n, t.Offset, avail, size, f.DataOffset)
		}
		sizes[i] = n
	}
	order := make([]int, len(f.Tensors))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch oa, ob := f.Tensors[a].Offset, f.Tensors[b].Offset; {
		case oa < ob:
			return -1
		case oa > ob:
			return 1
		}
		return 0
	})
	for k := 1; k < len(order); k++ {
		prev, cur := order[k-1], order[k]
		pt, ct := f.Tensors[prev], f.Tensors[cur]
		if ct.Offset < pt.Offset+sizes[prev] {
			return p.failAt(offsetAt[cur], fmt.Sprintf("tensor %d (%s): offset", cur, ct.Name), unit00.ErrInvalid,
				"its bytes [%d, %d) of the data section overlap those of tensor %d (%s), [%d, %d)",
				ct.Offset, ct.Offset+sizes[cur], prev, pt.Name, pt.Offset, pt.Offset+sizes[prev])
		}
	}
	return nil
}

// Lookup returns the metadata entry with the given key, and false if the
// file has none.
func (f *File) Lookup(key string) (KV, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv, true
		}
	}
	return KV{}, false
}

// String returns the value of the STRING entry key. An absent key or a
// value of another type is an error wrapping unit00.ErrInvalid that names
// the key. With an error the value is the zero value.
func (f *File) String(key string) (string, error) {
	kv, err := f.get(key)
	if err != nil {
		return "", err
	}
	if s, ok := kv.Value.(string); ok {
		return s, nil
	}
	return "", f.wrongType(kv, "a string")
}

// Uint returns the value of the integer entry key as a uint64. Any of the
// eight integer types is accepted as long as the value is not negative:
// the spec says counts are u64, but real files store most of them as u32,
// and some writers use signed types. An absent key, a value of another type
// or a negative value is an error wrapping unit00.ErrInvalid that names the
// key. With an error the value is the zero value.
func (f *File) Uint(key string) (uint64, error) {
	kv, err := f.get(key)
	if err != nil {
		return 0, err
	}
	var signed int64
	switch x := kv.Value.(type) {
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	case uint64:
		return x, nil
	case int8:
		signed = int64(x)
	case int16:
		signed = int64(x)
	case int32:
		signed = int64(x)
	case int64:
		signed = x
	default:
		return 0, f.wrongType(kv, "an integer")
	}
	if signed < 0 {
		return 0, f.errorf(unit00.ErrInvalid, "metadata key %q holds %d, want a value ≥ 0", key, signed)
	}
	return uint64(signed), nil
}

// Float returns the value of the FLOAT32 or FLOAT64 entry key as a
// float64. An absent key or a value of another type (integers included) is
// an error wrapping unit00.ErrInvalid that names the key.
// With an error the value is the zero value.
func (f *File) Float(key string) (float64, error) {
	kv, err := f.get(key)
	if err != nil {
		return 0, err
	}
	switch x := kv.Value.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, f.wrongType(kv, "a float")
}

// Bool returns the value of the BOOL entry key. An absent key or a value
// of another type is an error wrapping unit00.ErrInvalid that names the
// key. With an error the value is the zero value.
func (f *File) Bool(key string) (bool, error) {
	kv, err := f.get(key)
	if err != nil {
		return false, err
	}
	if b, ok := kv.Value.(bool); ok {
		return b, nil
	}
	return false, f.wrongType(kv, "a bool")
}

// Strings returns the value of the entry key, an array of strings. The
// slice is the File's own: do not modify it. An absent key or a value of
// another type is an error wrapping unit00.ErrInvalid that names the key.
// With an error the value is the zero value.
func (f *File) Strings(key string) ([]string, error) {
	kv, err := f.get(key)
	if err != nil {
		return nil, err
	}
	if s, ok := kv.Value.([]string); ok {
		return s, nil
	}
	return nil, f.wrongType(kv, "an array of strings")
}

// Bytes returns the size in bytes of the tensor's data:
// (ne[0]/block size)·block bytes·ne[1]·ne[2]·ne[3], with the block geometry
// of its type from unit01. It is an error wrapping unit00.ErrUnsupported
// if the type is one unit01.DType.Valid rejects, and an error wrapping
// unit00.ErrInvalid if the info is one Parse would reject: no dims or more
// than 4, a dim of 0, ne[0] not a multiple of the block size, an element
// count above math.MaxInt64, or a size above math.MaxInt64 (all products
// are overflow-checked).
func (t TensorInfo) Bytes() (uint64, error) {
	n, err := tensorBytes(t.Dims, t.Type)
	if err != nil {
		return 0, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	return n, nil
}

// tensorBytes is the size of a tensor of the given dims and type.
func tensorBytes(dims []uint64, dt unit01.DType) (uint64, error) {
	if !dt.Valid() {
		return 0, fmt.Errorf("unknown ggml type %d: %w", uint32(dt), unit00.ErrUnsupported)
	}
	if len(dims) < 1 || len(dims) > ggufMaxDims {
		return 0, fmt.Errorf("%d dimensions (want 1 to %d): %w", len(dims), ggufMaxDims, unit00.ErrInvalid)
	}
	numel := uint64(1)
	for j, d := range dims {
		if d == 0 {
			return 0, fmt.Errorf("dims %v: ne[%d] is 0: %w", dims, j, unit00.ErrInvalid)
		}
		hi, lo := bits.Mul64(numel, d)
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("dims %v: the element count overflows int64: %w", dims, unit00.ErrInvalid)
		}
		numel = lo
	}
	blck := uint64(dt.BlockSize())
	if dims[0]%blck != 0 {
		return 0, fmt.Errorf("ne[0] = %d is not a multiple of %v's block size %d: %w", dims[0], dt, blck, unit00.ErrInvalid)
	}
	// size = (ne[0]/blck)·blockBytes·ne[1]·ne[2]·ne[3], each product checked.
	factors := [ggufMaxDims]uint64{uint64(dt.BlockBytes())}
	n := 1 + copy(factors[1:], dims[1:])
	size := dims[0] / blck
	for _, d := range factors[:n] {
		hi, lo := bits.Mul64(size, d)
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("dims %v of %v: the size in bytes overflows int64: %w", dims, dt, unit00.ErrInvalid)
		}
		size = lo
	}
	return size, nil
}

// Tensor returns the info of the tensor called name and a view of its
// bytes in f.Data: no copy, with its capacity capped at its length, so an
// append to it never writes into the file's memory. An unknown name is an
// error wrapping unit00.ErrInvalid that names it; so is a closed file
// (Data nil) and an info whose bytes do not lie inside Data (possible only
// if the File was modified after Parse).
func (f *File) Tensor(name string) (TensorInfo, []byte, error) {
	for _, t := range f.Tensors {
		if t.Name == name {
			view, err := f.view(t)
			if err != nil {
				return TensorInfo{}, nil, err
			}
			return t, view, nil
		}
	}
	return TensorInfo{}, nil, f.errorf(unit00.ErrInvalid, "no tensor named %q", name)
}

// view returns the bytes of t in f.Data.
func (f *File) view(t TensorInfo) ([]byte, error) {
	if f.Data == nil {
		return nil, f.errorf(unit00.ErrInvalid, "tensor %q: the file is closed", t.Name)
	}
	size, err := t.Bytes()
	if err != nil {
		return nil, f.errorf(unit00.ErrInvalid, "%v", err)
	}
	n := uint64(len(f.Data))
	if f.DataOffset < 0 || uint64(f.DataOffset) > n || t.Offset > n-uint64(f.DataOffset) || size > n-uint64(f.DataOffset)-t.Offset {
		return nil, f.errorf(unit00.ErrInvalid, "tensor %q: %d bytes at offset %d of a data section at byte %d do not lie inside the %d bytes of the file",
			t.Name, size, t.Offset, f.DataOffset, n)
	}
	start := int(f.DataOffset) + int(t.Offset)
	end := start + int(size)
	return f.Data[start:end:end], nil
}

// Close releases the file's memory mapping, if Open made one, and sets
// f.Data to nil, so no tensor can be read through f afterwards (Tensor
// returns an error). The metadata, f.KV and f.Tensors, stay valid; views
// returned by Tensor before Close must not be used after it (their memory
// is gone: reading it crashes the program). Close is idempotent: a second
// call does nothing and returns nil. It must not run concurrently with
// other uses of f.
func (f *File) Close() error {
	unmap := f.unmap
	f.unmap = nil
	f.Data = nil
	if unmap == nil {
		return nil
	}
	return unmap()
}

func (f *File) get(key string) (KV, error) {
	kv, ok := f.Lookup(key)
	if !ok {
		return KV{}, f.errorf(unit00.ErrInvalid, "no metadata key %q", key)
	}
	return kv, nil
}

func (f *File) wrongType(kv KV, want string) error {
	typ := valueTypeName(kv.Type)
	if kv.Type == TypeArray {
		typ = "ARRAY of " + valueTypeName(kv.Elem)
	}
	return f.errorf(unit00.ErrInvalid, "metadata key %q holds a %s, want %s", kv.Key, typ, want)
}

// errorf formats an error about f that wraps kind, prefixed with its source.
func (f *File) errorf(kind error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if f.source != "" {
		msg = f.source + ": " + msg
	}
	return fmt.Errorf("%s: %w", msg, kind)
}

// valueTypeName is a value type's name in the spec ("UINT32"), or
// "type N" for an unknown one.
func valueTypeName(t ValueType) string {
	names := [...]string{"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type %d", uint32(t))
}

// scalarSize is the encoded size of a value type other than STRING and
// ARRAY, and false for those and unknown types.
func scalarSize(t ValueType) (int, bool) {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1, true
	case TypeUint16, TypeInt16:
		return 2, true
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4, true
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8, true
	}
	return 0, false
}

// parser decodes little-endian GGUF fields from data, tracking the offset.
type parser struct {
	data   []byte
	off    int
	source string
}

func (p *parser) failAt(off int, field string, kind error, format string, args ...any) error {
	return unit00.InputErrorf(p.source, int64(off), field, kind, format, args...)
}

// take returns the next n bytes, or an ErrTruncated error naming field.
func (p *parser) take(n int, field string) ([]byte, error) {
	if left := len(p.data) - p.off; n > left {
		return nil, p.failAt(p.off, field, unit00.ErrTruncated, "need %d bytes, %d left", n, left)
	}
	b := p.data[p.off : p.off+n]
	p.off += n
	return b, nil
}

func (p *parser) u32(field string) (uint32, error) {
	b, err := p.take(4, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (p *parser) u64(field string) (uint64, error) {
	b, err := p.take(8, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a u64 count of items of at least minSize bytes each and
// rejects one the bytes left could not hold.
func (p *parser) count(field string, minSize int) (uint64, error) {
	at := p.off
	n, err := p.u64(field)
	if err != nil {
		return 0, err
	}
	if left := len(p.data) - p.off; n > uint64(left/minSize) {
		return 0, p.failAt(at, field, unit00.ErrInvalid, "count %d cannot fit in the %d bytes left", n, left)
	}
	return n, nil
}

// str reads a string, copied out of the file. Its field is name, or
// name[idx] when idx ≥ 0 (built only on error: arrays of strings are long).
func (p *parser) str(name string, idx int) (string, error) {
	lo, hi, err := p.strBounds(name, idx)
	if err != nil {
		return "", err
	}
	return string(p.data[lo:hi]), nil
}

// strBounds reads a string's length and returns where its bytes are,
// checked to lie inside the file.
func (p *parser) strBounds(name string, idx int) (lo, hi int, err error) {
	at := p.off
	if left := len(p.data) - at; left < 8 {
		return 0, 0, p.failAt(at, elemField(name, idx), unit00.ErrTruncated, "need 8 bytes for the string length, %d left", left)
	}
	n := binary.LittleEndian.Uint64(p.data[at:])
	p.off += 8
	if left := len(p.data) - p.off; n > uint64(left) {
		return 0, 0, p.failAt(at, elemField(name, idx), unit00.ErrInvalid, "string length %d but only %d bytes left", n, left)
	}
	lo, hi = p.off, p.off+int(n)
	p.off = hi
	return lo, hi, nil
}

func elemField(name string, idx int) string {
	if idx < 0 {
		return name
	}
	return fmt.Sprintf("%s[%d]", name, idx)
}

// value reads the value of the entry key, of type typ (read at typeAt).
func (p *parser) value(key string, typ ValueType, typeAt int) (KV, error) {
	kv := KV{Key: key, Type: typ}
	switch typ {
	case TypeString:
		s, err := p.str(key, -1)
		kv.Value = s
		return kv, err
	case TypeArray:
		elemAt := p.off
		elem, err := p.u32(key + ": element type")
		if err != nil {
			return kv, err
		}
		kv.Elem = ValueType(elem)
		size := 8 // a string's length
		switch kv.Elem {
		case TypeArray:
			return kv, p.failAt(elemAt, key+": element type", unit00.ErrUnsupported, "arrays of arrays are not supported")
		case TypeString:
		default:
			var ok bool
			if size, ok = scalarSize(kv.Elem); !ok {
				return kv, p.failAt(elemAt, key+": element type", unit00.ErrUnsupported, "unknown value type %d", elem)
			}
		}
		n, err := p.count(key+": element count", size)
		if err != nil {
			return kv, err
		}
		kv.Value, err = p.array(key, kv.Elem, int(n), size)
		return kv, err
	}
	size, ok := scalarSize(typ)
	if !ok {
		return kv, p.failAt(typeAt, key+": type", unit00.ErrUnsupported, "unknown value type %d", uint32(typ))
	}
	at := p.off
	b, err := p.take(size, key)
	if err != nil {
		return kv, err
	}
	if typ == TypeBool && b[0] > 1 {
		return kv, p.failAt(at, key, unit00.ErrInvalid, "bool byte %d (want 0 or 1)", b[0])
	}
	kv.Value = decodeScalar(typ, b)
	return kv, nil
}

// array reads n elements of type elem, each size bytes (8 for strings,
// their minimum); n has been checked against the bytes left.
func (p *parser) array(key string, elem ValueType, n, size int) (any, error) {
	if elem == TypeString {
		// A vocabulary is hundreds of thousands of strings: rather than one
		// allocation each, check every length, copy the whole run of them
		// out of the file at once, and slice that copy.
		start := p.off
		bounds := make([]int, 2*n)
		for i := range n {
			lo, hi, err := p.strBounds(key, i)
			if err != nil {
				return nil, err
			}
			bounds[2*i], bounds[2*i+1] = lo-start, hi-start
		}
		run := string(p.data[start:p.off])
		out := make([]string, n)
		for i := range out {
			out[i] = run[bounds[2*i]:bounds[2*i+1]]
		}
		return out, nil
	}
	at := p.off
	b, err := p.take(n*size, key)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	switch elem {
	case TypeUint8:
		return slices.Clone(b), nil
	case TypeInt8:
		return decodeAll(b, 1, func(b []byte) int8 { return int8(b[0]) }), nil
	case TypeBool:
		for i, x := range b {
			if x > 1 {
				return nil, p.failAt(at+i, elemField(key, i), unit00.ErrInvalid, "bool byte %d (want 0 or 1)", x)
			}
		}
		return decodeAll(b, 1, func(b []byte) bool { return b[0] == 1 }), nil
	case TypeUint16:
		return decodeAll(b, 2, le.Uint16), nil
	case TypeInt16:
		return decodeAll(b, 2, func(b []byte) int16 { return int16(le.Uint16(b)) }), nil
	case TypeUint32:
		return decodeAll(b, 4, le.Uint32), nil
	case TypeInt32:
		return decodeAll(b, 4, func(b []byte) int32 { return int32(le.Uint32(b)) }), nil
	case TypeFloat32:
		return decodeAll(b, 4, func(b []byte) float32 { return math.Float32frombits(le.Uint32(b)) }), nil
	case TypeUint64:
		return decodeAll(b, 8, le.Uint64), nil
	case TypeInt64:
		return decodeAll(b, 8, func(b []byte) int64 { return int64(le.Uint64(b)) }), nil
	}
	return decodeAll(b, 8, func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) }), nil
}

// decodeAll decodes b as consecutive size-byte elements.
func decodeAll[T any](b []byte, size int, decode func([]byte) T) []T {
	out := make([]T, len(b)/size)
	for i := range out {
		out[i] = decode(b[i*size : i*size+size])
	}
	return out
}

// decodeScalar decodes one value of a fixed-size type.
func decodeScalar(t ValueType, b []byte) any {
	le := binary.LittleEndian
	switch t {
	case TypeUint8:
		return b[0]
	case TypeInt8:
		return int8(b[0])
	case TypeBool:
		return b[0] == 1
	case TypeUint16:
		return le.Uint16(b)
	case TypeInt16:
		return int16(le.Uint16(b))
	case TypeUint32:
		return le.Uint32(b)
	case TypeInt32:
		return int32(le.Uint32(b))
	case TypeFloat32:
		return math.Float32frombits(le.Uint32(b))
	case TypeUint64:
		return le.Uint64(b)
	case TypeInt64:
		return int64(le.Uint64(b))
	}
	return math.Float64frombits(le.Uint64(b))
}
