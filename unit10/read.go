package unit10

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
// handle). The Field of an error about an entry's key is "metadata entry
// i: key"; about a value, the entry's key ("general.name"); about an element
// of an array, key[i] ("tokenizer.ggml.tokens[17]").
//
// On error Parse returns a nil *File. Nothing is copied from the tensor
// data: File.Data is data itself and Tensor returns views into it, so data
// must not change while the File is in use. Keys, strings and array values
// are copied, so they stay valid after Close.
func Parse(data []byte, source string) (*File, error) {
	panic("TODO(10.1): write Parse, see docs/unit10.md")
}

// Lookup returns the metadata entry with the given key, and false if the
// file has none.
func (f *File) Lookup(key string) (KV, bool) {
	panic("TODO(10.1): write File.Lookup, see docs/unit10.md")
}

// String returns the value of the STRING entry key. An absent key or a
// value of another type is an error wrapping unit00.ErrInvalid that names
// the key. With an error the value is the zero value.
func (f *File) String(key string) (string, error) {
	panic("TODO(10.1): write File.String, see docs/unit10.md")
}

// Uint returns the value of the integer entry key as a uint64. Any of the
// eight integer types is accepted as long as the value is not negative:
// the spec says counts are u64, but real files store most of them as u32,
// and some writers use signed types. An absent key, a value of another type
// or a negative value is an error wrapping unit00.ErrInvalid that names the
// key. With an error the value is the zero value.
func (f *File) Uint(key string) (uint64, error) {
	panic("TODO(10.1): write File.Uint, see docs/unit10.md")
}

// Float returns the value of the FLOAT32 or FLOAT64 entry key as a
// float64. An absent key or a value of another type (integers included) is
// an error wrapping unit00.ErrInvalid that names the key.
// With an error the value is the zero value.
func (f *File) Float(key string) (float64, error) {
	panic("TODO(10.1): write File.Float, see docs/unit10.md")
}

// Bool returns the value of the BOOL entry key. An absent key or a value
// of another type is an error wrapping unit00.ErrInvalid that names the
// key. With an error the value is the zero value.
func (f *File) Bool(key string) (bool, error) {
	panic("TODO(10.1): write File.Bool, see docs/unit10.md")
}

// Strings returns the value of the entry key, an array of strings. The
// slice is the File's own: do not modify it. An absent key or a value of
// another type is an error wrapping unit00.ErrInvalid that names the key.
// With an error the value is the zero value.
func (f *File) Strings(key string) ([]string, error) {
	panic("TODO(10.1): write File.Strings, see docs/unit10.md")
}

// Bytes returns the size in bytes of the tensor's data:
// (ne[0]/block size)·block bytes·ne[1]·ne[2]·ne[3], with the block geometry
// of its type from unit01. It is an error wrapping unit00.ErrUnsupported
// if the type is one unit01.DType.Valid rejects, and an error wrapping
// unit00.ErrInvalid if the info is one Parse would reject: no dims or more
// than 4, a dim of 0, ne[0] not a multiple of the block size, an element
// count above math.MaxInt64, or a size above math.MaxInt64 (all products
// are overflow-checked). With an error the size returned is 0.
func (t TensorInfo) Bytes() (uint64, error) {
	panic("TODO(10.1): write TensorInfo.Bytes, see docs/unit10.md")
}

// Tensor returns the info of the tensor called name and a view of its
// bytes in f.Data: no copy, with its capacity capped at its length, so an
// append to it never writes into the file's memory. An unknown name is an
// error wrapping unit00.ErrInvalid that names it; so is a closed file
// (Data nil) and an info whose bytes do not lie inside Data (possible only
// if the File was modified after Parse).
func (f *File) Tensor(name string) (TensorInfo, []byte, error) {
	panic("TODO(10.1): write File.Tensor, see docs/unit10.md")
}

// Close releases the file's memory mapping, if Open made one, and sets
// f.Data to nil, so no tensor can be read through f afterwards (Tensor
// returns an error). The metadata, f.KV and f.Tensors, stay valid; views
// returned by Tensor before Close must not be used after it (their memory
// is gone: reading it crashes the program). Close is idempotent: a second
// call does nothing and returns nil. It must not run concurrently with
// other uses of f.
func (f *File) Close() error {
	panic("TODO(10.2): write File.Close, see docs/unit10.md")
}
