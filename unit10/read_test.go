package unit10

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

func TestC10_1_ParseGood(t *testing.T) {
	gf := goodFile()
	f, err := Parse(gf.data, "good.gguf")
	if err != nil {
		t.Fatalf("Parse of a well-formed file (%d bytes, 28 KVs, 3 tensors): %v", len(gf.data), err)
	}
	if f.Version != 3 || f.Alignment != gf.alignment || f.DataOffset != gf.dataOffset {
		t.Errorf("Parse: Version %d, Alignment %d, DataOffset %d; want 3, %d (general.alignment), %d (the end of the tensor infos rounded up to the alignment)",
			f.Version, f.Alignment, f.DataOffset, gf.alignment, gf.dataOffset)
	}
	if len(f.Data) != len(gf.data) || &f.Data[0] != &gf.data[0] {
		t.Errorf("File.Data is not the slice given to Parse (len %d, want %d): Parse must not copy the file", len(f.Data), len(gf.data))
	}
	if len(f.KV) != len(gf.kvs) {
		t.Errorf("Parse found %d KVs, want %d", len(f.KV), len(gf.kvs))
	}
	for i := range min(len(f.KV), len(gf.kvs)) {
		got, want := f.KV[i], gf.kvs[i]
		if got.Key != want.Key || got.Type != want.Type || got.Elem != want.Elem || !reflect.DeepEqual(got.Value, want.Value) {
			t.Errorf("KV %d: got key %q type %d elem %d value %s\nwant key %q type %d elem %d value %s (Value must hold the Go type KV documents for its Type; an array's Elem is its element type, 0 otherwise)",
				i, got.Key, got.Type, got.Elem, describe(got.Value), want.Key, want.Type, want.Elem, describe(want.Value))
		}
	}
	if !reflect.DeepEqual(f.Tensors, gf.infos) {
		t.Errorf("tensor infos:\n got %+v\nwant %+v", f.Tensors, gf.infos)
	}
	for i, want := range gf.infos {
		info, view, err := f.Tensor(want.Name)
		if err != nil {
			t.Errorf("Tensor(%q): %v", want.Name, err)
			continue
		}
		if !reflect.DeepEqual(info, want) {
			t.Errorf("Tensor(%q) info = %+v, want %+v", want.Name, info, want)
		}
		if !bytes.Equal(view, gf.tensors[i]) {
			t.Errorf("Tensor(%q): %d bytes that differ from the tensor's %d bytes at file offset %d (DataOffset %d + Offset %d)",
				want.Name, len(view), len(gf.tensors[i]), gf.dataOffset+int64(want.Offset), gf.dataOffset, want.Offset)
			continue
		}
		if start := gf.dataOffset + int64(want.Offset); &view[0] != &gf.data[start] {
			t.Errorf("Tensor(%q) returned a copy; it must be a view of File.Data starting at byte %d (no copy)", want.Name, start)
		}
		if cap(view) != len(view) {
			t.Errorf("Tensor(%q): cap %d, len %d: cap the view at its length (data[lo:hi:hi]) so an append cannot overwrite the next tensor", want.Name, cap(view), len(view))
		}
	}
	_, _, err = f.Tensor("no.such.tensor")
	if !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), "no.such.tensor") {
		t.Errorf("Tensor of an unknown name: error %v; want one wrapping unit00.ErrInvalid that names the tensor", err)
	}

	t.Run("version 2", func(t *testing.T) {
		f, err := Parse(patch(gf.data, 4, uint32(2)), "v2.gguf")
		if err != nil || f.Version != 2 || len(f.KV) != len(gf.kvs) || len(f.Tensors) != 3 {
			t.Fatalf("Parse of the good file as version 2 (same layout, u64 counts): %v; v2 and v3 differ only in the version field", err)
		}
	})
	t.Run("bytes after the last tensor", func(t *testing.T) {
		data := append(bytes.Clone(gf.data), make([]byte, 100)...)
		if _, err := Parse(data, "padded.gguf"); err != nil {
			t.Fatalf("Parse of the good file followed by 100 zero bytes: %v; writers pad after the last tensor, so trailing bytes are allowed", err)
		}
	})
	t.Run("tensors out of offset order", func(t *testing.T) {
		g := newGGUF(2, 0).info("second", unit01.F32, 32, 8).info("first", unit01.F32, 0, 8).pad(32)
		start := g.pos()
		data := g.raw(make([]byte, 64)).bytes()
		f, err := Parse(data, "order.gguf")
		if err != nil {
			t.Fatalf("Parse of two tensors listed in reverse offset order: %v; the order of the infos need not follow the offsets", err)
		}
		if _, view, err := f.Tensor("second"); err != nil || &view[0] != &data[start+32] {
			t.Errorf("Tensor(second) at data section offset 32: err %v, or not a view at byte %d", err, start+32)
		}
	})
	t.Run("counts and lengths that fill the file exactly", func(t *testing.T) {
		// Each file ends with the last byte of its last field: a count or a
		// length that uses every byte left is allowed, and so is a read of
		// exactly the bytes left.
		for _, c := range []struct {
			name string
			data []byte
			want []KV
		}{
			{"20 entries of 14 bytes, the fewest a KV can take", minimalKVs(newGGUF(0, 20), 20).bytes(), nil},
			{"an empty STRING value ending the file", newGGUF(0, 1).str("s").u32(uint32(TypeString)).str("").bytes(),
				[]KV{{Key: "s", Type: TypeString, Value: ""}}},
			{"an ARRAY of 3 UINT32 ending the file", newGGUF(0, 1).str("a").u32(uint32(TypeArray)).u32(uint32(TypeUint32)).u64(3).u32(7).u32(8).u32(9).bytes(),
				[]KV{{Key: "a", Type: TypeArray, Elem: TypeUint32, Value: []uint32{7, 8, 9}}}},
			{"an ARRAY of 3 empty STRINGs (8 bytes each, the fewest) ending the file", newGGUF(0, 1).str("e").u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(3).str("").str("").str("").bytes(),
				[]KV{{Key: "e", Type: TypeArray, Elem: TypeString, Value: []string{"", "", ""}}}},
		} {
			f, err := Parse(c.data, "exact.gguf")
			if err != nil {
				t.Errorf("%s (%d bytes): %v; a count or length that the bytes left hold exactly is not too long", c.name, len(c.data), err)
				continue
			}
			if c.want == nil {
				for i := range 20 {
					c.want = append(c.want, KV{Key: string(rune('A' + i)), Type: TypeUint8, Value: uint8(i)})
				}
			}
			if diff := gocmp.Diff(c.want, f.KV); diff != "" {
				t.Errorf("%s: KVs differ (-want +got):\n%s", c.name, diff)
			}
		}
	})
	t.Run("a tensor name of 63 bytes", func(t *testing.T) {
		name := strings.Repeat("n", 63) // GGML_MAX_NAME is 64 with the NUL
		data := newGGUF(1, 0).info(name, unit01.F32, 0, 8).pad(32).raw(make([]byte, 32)).bytes()
		f, err := Parse(data, "name63.gguf")
		if err != nil || len(f.Tensors) != 1 || f.Tensors[0].Name != name {
			t.Fatalf("Parse of a tensor named with 63 bytes: %v; names of 1 to 63 bytes are allowed", err)
		}
	})
	t.Run("tensor infos in descending offset order", func(t *testing.T) {
		// The infos need not follow the data's order: the overlap check
		// sorts them by offset (three F32 tensors of 32 bytes, listed
		// backwards).
		g := newGGUF(3, 0).info("c", unit01.F32, 64, 8).info("b", unit01.F32, 32, 8).info("a", unit01.F32, 0, 8).pad(32)
		data := make([]byte, 96)
		for i := range data {
			data[i] = byte(i)
		}
		f, err := Parse(g.raw(data).bytes(), "backwards.gguf")
		if err != nil {
			t.Fatalf("Parse of tensors listed in descending offset order, none overlapping: %v", err)
		}
		for i, name := range []string{"a", "b", "c"} {
			if _, view, err := f.Tensor(name); err != nil || !bytes.Equal(view, data[32*i:32*(i+1)]) {
				t.Errorf("Tensor(%s) = %v, %v; want bytes %d to %d of the data", name, view, err, 32*i, 32*(i+1))
			}
		}
	})
	t.Run("no tensors and no padding", func(t *testing.T) {
		data := newGGUF(0, 1).str("general.name").u32(8).str("x").bytes() // 57 bytes: not a multiple of 32
		f, err := Parse(data, "meta.gguf")
		if err != nil || len(f.Tensors) != 0 {
			t.Fatalf("Parse of a file with no tensors that ends right after its KVs: %v; with tensor_count 0 the file may end there (vocabulary files do)", err)
		}
		if f.DataOffset != 64 {
			t.Errorf("DataOffset %d, want 64 (the end of the metadata, 57, rounded up to 32) even with no data section", f.DataOffset)
		}
	})
}

func TestC10_1_Getters(t *testing.T) {
	gf := goodFile()
	f, err := Parse(gf.data, "good.gguf")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if kv, ok := f.Lookup("llama.context_length"); !ok || !reflect.DeepEqual(kv, KV{Key: "llama.context_length", Type: TypeUint32, Value: uint32(4096)}) {
		t.Errorf("Lookup(llama.context_length) = %+v, %v", kv, ok)
	}
	if kv, ok := f.Lookup("absent"); ok {
		t.Errorf("Lookup(absent) = %+v, true; want false", kv)
	}
	// Every integer type, for Uint: a File built by hand.
	ints := &File{KV: []KV{
		{Key: "u8", Type: TypeUint8, Value: uint8(255)}, {Key: "u16", Type: TypeUint16, Value: uint16(65535)},
		{Key: "u32", Type: TypeUint32, Value: uint32(math.MaxUint32)}, {Key: "u64", Type: TypeUint64, Value: uint64(math.MaxUint64)},
		{Key: "i8", Type: TypeInt8, Value: int8(127)}, {Key: "i16", Type: TypeInt16, Value: int16(0)},
		{Key: "i32", Type: TypeInt32, Value: int32(math.MaxInt32)}, {Key: "i64", Type: TypeInt64, Value: int64(math.MaxInt64)},
		{Key: "neg8", Type: TypeInt8, Value: int8(-1)}, {Key: "neg16", Type: TypeInt16, Value: int16(-1)},
		{Key: "neg64", Type: TypeInt64, Value: int64(math.MinInt64)},
	}}

	// Value types no reader would produce: a getter says what the key
	// holds (no panic looking up the name of type 13).
	odd := &File{KV: []KV{
		{Key: "t13", Type: 13, Value: uint8(1)},
		{Key: "a13", Type: TypeArray, Elem: 13, Value: []uint8{1}},
	}}

	type getter struct {
		name string
		file *File
		key  string
		call func(f *File, key string) (any, error)
		want any // nil: an error wrapping ErrInvalid that names the key
	}
	str := func(f *File, k string) (any, error) { return f.String(k) }
	unsigned := func(f *File, k string) (any, error) { return f.Uint(k) }
	float := func(f *File, k string) (any, error) { return f.Float(k) }
	boolean := func(f *File, k string) (any, error) { return f.Bool(k) }
	strs := func(f *File, k string) (any, error) { return f.Strings(k) }
	cases := []getter{
		{"String", f, "general.architecture", str, "llama"},
		{"String", f, "general.name", str, "tiny ünïcode ▁model"},
		{"String", f, "absent.key", str, nil},
		{"String", f, "llama.context_length", str, nil},
		{"String", f, "tokenizer.ggml.tokens", str, nil},
		{"Uint", f, "llama.context_length", unsigned, uint64(4096)}, // UINT32, as real files store counts
		{"Uint", f, "llama.block_count", unsigned, uint64(2)},       // UINT64, as the spec says
		{"Uint", f, "llama.embedding_length", unsigned, uint64(8)},  // INT32 ≥ 0
		{"Uint", f, "test.u8", unsigned, uint64(200)},
		{"Uint", f, "test.u16", unsigned, uint64(60000)},
		{"Uint", f, "test.i8", unsigned, nil},  // -100
		{"Uint", f, "test.i32", unsigned, nil}, // -2e9
		{"Uint", f, "test.i64", unsigned, nil}, // -2^40
		{"Uint", f, "general.name", unsigned, nil},
		{"Uint", f, "llama.rope.freq_base", unsigned, nil},
		{"Uint", f, "tokenizer.ggml.token_type", unsigned, nil},
		{"Uint", f, "absent.key", unsigned, nil},
		{"Uint", ints, "u8", unsigned, uint64(255)},
		{"Uint", ints, "u16", unsigned, uint64(65535)},
		{"Uint", ints, "u32", unsigned, uint64(math.MaxUint32)},
		{"Uint", ints, "u64", unsigned, uint64(math.MaxUint64)},
		{"Uint", ints, "i8", unsigned, uint64(127)},
		{"Uint", ints, "i16", unsigned, uint64(0)},
		{"Uint", ints, "i32", unsigned, uint64(math.MaxInt32)},
		{"Uint", ints, "i64", unsigned, uint64(math.MaxInt64)},
		{"Uint", ints, "neg8", unsigned, nil},
		{"Uint", ints, "neg16", unsigned, nil},
		{"Uint", ints, "neg64", unsigned, nil},
		{"Float", f, "llama.rope.freq_base", float, 10000.0},
		{"Float", f, "test.f64", float, -2.25},
		{"Float", f, "llama.context_length", float, nil},
		{"Float", f, "tokenizer.ggml.scores", float, nil},
		{"Float", f, "absent.key", float, nil},
		{"Bool", f, "tokenizer.ggml.add_bos_token", boolean, true},
		{"Bool", f, "test.false", boolean, false},
		{"Bool", f, "test.u8", boolean, nil},
		{"Bool", f, "absent.key", boolean, nil},
		{"Strings", f, "tokenizer.ggml.tokens", strs, []string{"<s>", "", "héllo", "▁a"}},
		{"Strings", f, "tokenizer.ggml.scores", strs, nil},
		{"Strings", f, "general.name", strs, nil},
		{"Strings", f, "absent.key", strs, nil},
		{"String", odd, "t13", str, nil},
		{"Strings", odd, "a13", strs, nil},
	}
	for _, c := range cases {
		got, err := c.call(c.file, c.key)
		switch {
		case c.want == nil && err == nil:
			t.Errorf("%s(%q) = %v, no error; want an error: the key is absent or holds a value of the wrong type or sign", c.name, c.key, got)
		case c.want == nil && (!errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), c.key)):
			t.Errorf("%s(%q): error %q; want one wrapping unit00.ErrInvalid that names the key", c.name, c.key, err)
		case c.want == nil && !reflect.ValueOf(got).IsZero():
			t.Errorf("%s(%q) = %#v beside its error; want the zero value (0, \"\", false, nil): a caller that logs the value must not see a half-read one", c.name, c.key, got)
		case c.want != nil && err != nil:
			t.Errorf("%s(%q): %v; want %v", c.name, c.key, err, c.want)
		case c.want != nil && !reflect.DeepEqual(got, c.want):
			t.Errorf("%s(%q) = %v, want %v", c.name, c.key, got, c.want)
		}
	}
}

func TestC10_1_TensorBytes(t *testing.T) {
	cases := []struct {
		typ  unit01.DType
		dims []uint64
		want uint64 // 0: an error
		kind error
	}{
		{unit01.F32, []uint64{4, 3}, 48, nil},
		{unit01.F32, []uint64{1}, 4, nil},
		{unit01.F16, []uint64{8}, 16, nil},
		{unit01.BF16, []uint64{3, 5, 7}, 210, nil},
		{unit01.Q4_0, []uint64{64, 2}, 72, nil},
		{unit01.Q8_0, []uint64{32, 3}, 102, nil},
		{unit01.Q4_1, []uint64{96}, 60, nil},
		{unit01.Q4_K, []uint64{256, 2}, 288, nil},
		{unit01.Q6_K, []uint64{512, 1, 1, 3}, 1260, nil},
		{unit01.Q8_0, []uint64{4096, 32000}, 4096 / 32 * 34 * 32000, nil},
		{unit01.F32, []uint64{1 << 30, 1 << 30}, 1 << 62, nil},
		{unit01.I8, []uint64{math.MaxInt64}, math.MaxInt64, nil},       // the largest element count and size allowed
		{unit01.I8, []uint64{1 << 62, 2}, 0, unit00.ErrInvalid},        // one more than that
		{unit01.Q4_0, []uint64{33}, 0, unit00.ErrInvalid},              // ne[0] not a multiple of the block size
		{unit01.Q4_K, []uint64{32, 8}, 0, unit00.ErrInvalid},           // 32 < 256
		{unit01.F32, []uint64{}, 0, unit00.ErrInvalid},                 // no dims
		{unit01.F32, []uint64{1, 1, 1, 1, 1}, 0, unit00.ErrInvalid},    // 5 dims
		{unit01.F32, []uint64{8, 0}, 0, unit00.ErrInvalid},             // a zero dim
		{unit01.F32, []uint64{1 << 62}, 0, unit00.ErrInvalid},          // 2^64 bytes
		{unit01.F64, []uint64{1 << 61}, 0, unit00.ErrInvalid},          // 2^64 bytes
		{unit01.F32, []uint64{1 << 32, 1 << 32}, 0, unit00.ErrInvalid}, // 2^64 elements
		{unit01.Q8_0, []uint64{1 << 40, 1 << 20, 1 << 10}, 0, unit00.ErrInvalid},
		{unit01.Q4_0, []uint64{1 << 61, 5}, 0, unit00.ErrInvalid}, // 5·2^61 elements overflow int64, though their 6.5e18 bytes would not
		{unit01.DType(4), []uint64{32}, 0, unit00.ErrUnsupported}, // unknown type
		{unit01.DType(39), []uint64{32}, 0, unit00.ErrUnsupported},
	}
	for _, c := range cases {
		got, err := TensorInfo{Name: "t", Dims: c.dims, Type: c.typ}.Bytes()
		switch {
		case c.kind == nil && (err != nil || got != c.want):
			t.Errorf("TensorInfo{Dims: %v, Type: %v}.Bytes() = %d, %v; want %d ((ne0/block size)·block bytes·ne1·ne2·ne3)", c.dims, c.typ, got, err, c.want)
		case c.kind != nil && (!errors.Is(err, c.kind) || got != 0):
			t.Errorf("TensorInfo{Dims: %v, Type: %v}.Bytes() = %d, %v; want 0 and an error wrapping %v (overflow, bad dims or an unknown type)", c.dims, c.typ, got, err, c.kind)
		}
	}
}

func TestC10_1_Malformed(t *testing.T) {
	check := func(t *testing.T, name string, data []byte, kind error, off int64, field string) {
		t.Helper()
		f, err := Parse(data, "bad.gguf")
		if err == nil {
			t.Errorf("%s: Parse returned no error", name)
			return
		}
		if f != nil {
			t.Errorf("%s: Parse returned a File with the error %q; return nil on error", name, err)
		}
		if kind == nil && !errors.Is(err, unit00.ErrTruncated) && !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("%s: error %q wraps neither unit00.ErrTruncated nor unit00.ErrInvalid", name, err)
		}
		if kind != nil && !errors.Is(err, kind) {
			t.Errorf("%s: error %q does not wrap %v", name, err, kind)
		}
		var ie *unit00.InputError
		switch {
		case !errors.As(err, &ie):
			t.Errorf("%s: error %q is not a *unit00.InputError naming the field and its byte offset (use unit00.InputErrorf)", name, err)
		case ie.Source != "bad.gguf" || ie.Field == "":
			t.Errorf("%s: error %q: Source %q, Field %q; want the source given to Parse and the field being read", name, err, ie.Source, ie.Field)
		case field != "" && ie.Field != field:
			t.Errorf("%s: error %q names the field %q; want %q (an entry's key, a string value by its key, an array element as key[i])", name, err, ie.Field, field)
		case off >= 0 && ie.Offset != off:
			t.Errorf("%s: error %q gives byte %d; the bad field starts at byte %d", name, err, ie.Offset, off)
		case ie.Offset < 0 || ie.Offset > int64(len(data)):
			t.Errorf("%s: error %q gives byte %d, outside the %d-byte file", name, err, ie.Offset, len(data))
		}
	}
	for _, c := range malformedFiles() {
		check(t, c.name, c.data, c.kind, c.off, c.field)
	}
	// The version's message says which problem it is: a version this reader
	// does not know, or a known one written big-endian.
	for _, c := range []struct {
		version   uint32
		says, not string
	}{{4, "version 4", "big-endian"}, {0x01000000, "version 16777216", "big-endian"}, {0x03000000, "big-endian", ""}, {0x02000000, "big-endian", ""},
		{1, "32-bit", "big-endian"}, {0, "version 0", "32-bit"}} {
		_, err := Parse(patch(goodFile().data, 4, c.version), "bad.gguf")
		if msg := fmt.Sprint(err); !strings.Contains(msg, c.says) || c.not != "" && strings.Contains(msg, c.not) {
			t.Errorf("Parse of a file with version %#08x: error %q; want one that says %q%s", c.version, msg, c.says, map[bool]string{true: " and not " + strconv.Quote(c.not)}[c.not != ""])
		}
	}
	// An overlap names both byte ranges: b's [32, 64) inside a's [0, 64).
	_, err := Parse(newGGUF(2, 0).info("a", unit01.F32, 0, 16).info("b", unit01.F32, 32, 8).pad(32).raw(make([]byte, 64)).bytes(), "overlap.gguf")
	if msg := fmt.Sprint(err); !strings.Contains(msg, "[32, 64)") || !strings.Contains(msg, "[0, 64)") {
		t.Errorf("Parse of tensor b at [32, 64) inside a at [0, 64): error %q; want one that gives both ranges", msg)
	}
	// An element count that overflows names the dims that made it.
	_, err = Parse(newGGUF(1, 0).info("t", unit01.F32, 0, 1<<32, 1<<32).pad(32).bytes(), "big.gguf")
	if msg := fmt.Sprint(err); !strings.Contains(msg, "[4294967296 4294967296]") {
		t.Errorf("Parse of a tensor of 2^32 × 2^32: error %q; want one that shows the dims, [4294967296 4294967296]", msg)
	}
	// A wrong magic is quoted as it is: its four bytes, no more, no less.
	_, err = Parse(append([]byte("GGML"), goodFile().data[4:]...), "ggml.bin")
	if msg := fmt.Sprint(err); !strings.Contains(msg, `"GGML"`) {
		t.Errorf("Parse of a file that starts with GGML: error %q; want one that quotes its first four bytes, \"GGML\"", msg)
	}
	// Truncation at every byte of the good file: the bytes run out
	// (ErrTruncated) or a count, length or tensor no longer fits (ErrInvalid
	// or ErrTruncated). The file ends with its last tensor, so no prefix is
	// a well-formed file.
	// Inside the tensor infos the counts of the header still fit and every
	// field has a fixed width (a name's bytes, its length read): the bytes
	// run out, ErrTruncated, at the start of the field that is cut.
	gf := goodFile()
	infoFields := tensorInfoFields(t, gf)
	for n := range len(gf.data) {
		sec := gf.sectionOf(int64(n))
		name := fmt.Sprintf("the good file cut to %d bytes (in %s)", n, sec)
		if f, ok := infoFields[int64(n)]; ok {
			check(t, name, gf.data[:n], unit00.ErrTruncated, f.off, f.field)
			continue
		}
		check(t, name, gf.data[:n], nil, -1, "")
	}
}

// cutField is the field a cut falls in and where that field starts.
type cutField struct {
	off   int64
	field string
}

// tensorInfoFields maps every byte offset inside the good file's tensor
// infos to the field that starts at or before it: a file cut there ends
// inside (or right at the start of) that field.
func tensorInfoFields(t *testing.T, gf goodGGUF) map[int64]cutField {
	t.Helper()
	out := map[int64]cutField{}
	var start int64
	for _, s := range gf.sections {
		if s.name == "tensor info "+gf.infos[0].Name {
			break
		}
		start = s.end
	}
	at := start
	add := func(width int64, field string) {
		for b := at; b < at+width; b++ {
			out[b] = cutField{at, field}
		}
		at += width
	}
	for i, info := range gf.infos {
		add(8, fmt.Sprintf("tensor %d: name", i))
		add(int64(len(info.Name)), fmt.Sprintf("tensor %d: name", i))
		prefix := fmt.Sprintf("tensor %d (%s)", i, info.Name)
		add(4, prefix+": n_dims")
		for j := range info.Dims {
			add(8, fmt.Sprintf("%s: ne[%d]", prefix, j))
		}
		add(4, prefix+": type")
		add(8, prefix+": offset")
		if end := gf.sections[slices.IndexFunc(gf.sections, func(s section) bool { return s.name == "tensor info "+info.Name })].end; at != end {
			t.Fatalf("the test's layout of tensor info %d ends at byte %d, the good file's at %d", i, at, end)
		}
	}
	return out
}

func TestC10_1_VocabFiles(t *testing.T) {
	for _, name := range []string{"gpt-2", "phi-3"} {
		path := "../unit04/testdata/ggml-vocab-" + name + ".gguf"
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(data, path)
		if err != nil {
			t.Fatalf("Parse(%s), a real vocabulary file written by llama.cpp's tools: %v", path, err)
		}
		if len(f.Tensors) != 0 || f.Alignment != 32 {
			t.Errorf("%s: %d tensors, alignment %d; want 0 (a vocabulary-only file) and 32 (the default)", path, len(f.Tensors), f.Alignment)
		}
		want := oracle.GGUFMetadata(path)
		if len(f.KV) != len(want) {
			t.Errorf("%s: %d KVs, want %d", path, len(f.KV), len(want))
		}
		for _, kv := range f.KV {
			w, ok := want[kv.Key]
			if !ok {
				t.Errorf("%s: KV %q is not in the file", path, kv.Key)
				continue
			}
			if got := oracleValue(kv.Value); !reflect.DeepEqual(got, w) {
				t.Errorf("%s: KV %q = %s, want %s (type %d, elem %d)", path, kv.Key, describe(kv.Value), describe(w), kv.Type, kv.Elem)
			}
		}
		model, err := f.String("tokenizer.ggml.model")
		if err != nil || model != want["tokenizer.ggml.model"] {
			t.Errorf("%s: String(tokenizer.ggml.model) = %q, %v; want %q", path, model, err, want["tokenizer.ggml.model"])
		}
		tokens, err := f.Strings("tokenizer.ggml.tokens")
		if err != nil || len(tokens) != len(want["tokenizer.ggml.tokens"].([]any)) {
			t.Errorf("%s: Strings(tokenizer.ggml.tokens): %d tokens, %v; want %d", path, len(tokens), err, len(want["tokenizer.ggml.tokens"].([]any)))
		}
		if bos, err := f.Uint("tokenizer.ggml.bos_token_id"); err != nil || bos != want["tokenizer.ggml.bos_token_id"] {
			t.Errorf("%s: Uint(tokenizer.ggml.bos_token_id) = %d, %v; want %v", path, bos, err, want["tokenizer.ggml.bos_token_id"])
		}
	}
}

// FuzzParse checks that no input makes Parse panic, that every error says
// what and where, and that a file Parse accepts has every tensor inside
// the file and no two overlapping (go test -fuzz FuzzParse ./unit10).
func FuzzParse(f *testing.F) {
	gf := goodFile()
	f.Add(gf.data)
	for _, s := range gf.sections {
		f.Add(gf.data[:s.end-1])
		if s.end < int64(len(gf.data)) {
			f.Add(gf.data[:s.end])
		}
	}
	f.Add(patch(gf.data, 4, uint32(2)))
	for _, c := range malformedFiles() {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "fuzz.gguf")
		if err != nil {
			var ie *unit00.InputError
			switch {
			case file != nil:
				t.Fatalf("Parse returned a File and the error %q", err)
			case !errors.As(err, &ie):
				t.Fatalf("error %q is not a *unit00.InputError", err)
			case !errors.Is(err, unit00.ErrTruncated) && !errors.Is(err, unit00.ErrInvalid) && !errors.Is(err, unit00.ErrUnsupported):
				t.Fatalf("error %q wraps none of unit00.ErrTruncated, ErrInvalid, ErrUnsupported", err)
			case ie.Offset < 0 || ie.Offset > int64(len(data)):
				t.Fatalf("error %q points at byte %d of a %d-byte file", err, ie.Offset, len(data))
			}
			return
		}
		a := file.Alignment
		if a <= 0 || a&(a-1) != 0 || file.DataOffset%int64(a) != 0 {
			t.Fatalf("accepted with alignment %d, data offset %d", a, file.DataOffset)
		}
		type span struct{ lo, hi int64 }
		var spans []span
		for _, info := range file.Tensors {
			n, err := info.Bytes()
			if err != nil {
				t.Fatalf("accepted tensor %q whose Bytes fails: %v", info.Name, err)
			}
			_, view, err := file.Tensor(info.Name)
			if err != nil {
				t.Fatalf("accepted tensor %q, but Tensor fails: %v", info.Name, err)
			}
			start := file.DataOffset + int64(info.Offset)
			if uint64(len(view)) != n || start < file.DataOffset || start+int64(n) > int64(len(data)) || &view[0] != &data[start] {
				t.Fatalf("tensor %q: a view of %d bytes for %d at byte %d of a %d-byte file; it must be data[%d:%d]",
					info.Name, len(view), n, start, len(data), start, start+int64(n))
			}
			spans = append(spans, span{start, start + int64(n)})
		}
		slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.lo, y.lo) })
		for i := 1; i < len(spans); i++ {
			if spans[i].lo < spans[i-1].hi {
				t.Fatalf("accepted overlapping tensors at bytes [%d, %d) and [%d, %d)", spans[i-1].lo, spans[i-1].hi, spans[i].lo, spans[i].hi)
			}
		}
	})
}

// TestC10_1_TensorViews: Tensor on Files built by hand, as a program may
// build or edit one after Parse: a view wherever the bytes lie inside Data
// (a data section at byte 0 included), an error wrapping unit00.ErrInvalid
// that names the tensor, never a panic, wherever they do not.
func TestC10_1_TensorViews(t *testing.T) {
	data := []byte("0123456789abcdef")
	info := TensorInfo{Name: "t", Dims: []uint64{2}, Type: unit01.F32, Offset: 8} // 8 bytes
	for _, c := range []struct {
		name       string
		file       File
		want       string // "": an error
		whyNoError string
		offset     uint64 // the tensor's Offset, if not 8
		says       string // what the error must say, if anything
	}{
		{"a data section at byte 0", File{Data: data, DataOffset: 0}, "89abcdef", "", 0, ""},
		{"a data section at byte 4", File{Data: data, DataOffset: 4}, "", "bytes [12, 20) of a 16-byte file", 0, ""},
		{"a negative DataOffset", File{Data: data, DataOffset: -8}, "", "a data section before the file's first byte", 0, ""},
		{"a DataOffset past the end", File{Data: data, DataOffset: 17}, "", "a data section after the file's last byte", 0, ""},
		{"a closed file", File{Data: nil, DataOffset: 0}, "", "no data: the file is closed", 0, "closed"},
		{"a tensor that starts past the end", File{Data: data, DataOffset: 4}, "", "bytes [18, 26) of a 16-byte file", 14, ""},
	} {
		f := c.file
		ti := info
		if c.offset != 0 {
			ti.Offset = c.offset
		}
		f.Tensors = []TensorInfo{ti}
		got, view, err := f.Tensor("t")
		switch {
		case c.want != "" && err != nil:
			t.Errorf("%s: Tensor(t) at Offset 8: %v; want the view %q", c.name, err, c.want)
		case c.want != "" && string(view) != c.want:
			t.Errorf("%s: Tensor(t) at Offset 8 = %q, want %q (data[DataOffset+Offset:][:8])", c.name, view, c.want)
		case c.want != "" && !reflect.DeepEqual(got, ti):
			t.Errorf("%s: Tensor(t) info = %+v, want %+v", c.name, got, ti)
		case c.want == "" && (!errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), `"t"`)):
			t.Errorf("%s: Tensor(t) = %q, %v; want an error wrapping unit00.ErrInvalid that names the tensor (%s)", c.name, view, err, c.whyNoError)
		case c.says != "" && !strings.Contains(fmt.Sprint(err), c.says):
			t.Errorf("%s: Tensor(t): %v; want an error that says %q", c.name, err, c.says)
		}
	}
	// A File is a struct with exported fields: a tensor info edited after
	// Parse into one whose size cannot be computed is an error too, not an
	// empty view.
	for _, bad := range []TensorInfo{
		{Name: "t", Dims: []uint64{32}, Type: unit01.DType(4), Offset: 0}, // an unknown type
		{Name: "t", Dims: []uint64{33}, Type: unit01.Q4_0, Offset: 0},     // not whole blocks
		{Name: "t", Dims: []uint64{}, Type: unit01.F32, Offset: 0},        // no dims
	} {
		f := File{Data: data, Tensors: []TensorInfo{bad}}
		if _, view, err := f.Tensor("t"); err == nil || !strings.Contains(fmt.Sprint(err), `"t"`) {
			t.Errorf("Tensor(t) of a tensor info with dims %v of type %v (edited after Parse): %d bytes, %v; want an error naming the tensor, since its size cannot be computed", bad.Dims, bad.Type, len(view), err)
		}
	}
}
