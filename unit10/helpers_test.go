package unit10

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// ggufBuilder writes GGUF fields one by one, by hand, so the tests' files
// do not depend on Write.
type ggufBuilder struct {
	bytes.Buffer
	lastOffsetAt int64 // where the offset field of the last info written starts
}

// newGGUF starts a little-endian GGUF v3 file with the given counts.
func newGGUF(nTensors, nKV uint64) *ggufBuilder {
	g := &ggufBuilder{}
	g.WriteString("GGUF")
	return g.u32(3).u64(nTensors).u64(nKV)
}

func (g *ggufBuilder) raw(b []byte) *ggufBuilder { g.Write(b); return g }
func (g *ggufBuilder) u8(x uint8) *ggufBuilder   { g.WriteByte(x); return g }
func (g *ggufBuilder) u16(x uint16) *ggufBuilder {
	return g.raw(binary.LittleEndian.AppendUint16(nil, x))
}
func (g *ggufBuilder) u32(x uint32) *ggufBuilder {
	return g.raw(binary.LittleEndian.AppendUint32(nil, x))
}
func (g *ggufBuilder) u64(x uint64) *ggufBuilder {
	return g.raw(binary.LittleEndian.AppendUint64(nil, x))
}
func (g *ggufBuilder) f32(x float32) *ggufBuilder {
	return g.u32(math.Float32bits(x))
}
func (g *ggufBuilder) f64(x float64) *ggufBuilder { return g.u64(math.Float64bits(x)) }
func (g *ggufBuilder) str(s string) *ggufBuilder  { g.u64(uint64(len(s))); g.WriteString(s); return g }

// pos is the offset of the next byte written.
func (g *ggufBuilder) pos() int64 { return int64(g.Len()) }

// pad writes zero bytes up to a multiple of align.
func (g *ggufBuilder) pad(align int) *ggufBuilder {
	for g.Len()%align != 0 {
		g.WriteByte(0)
	}
	return g
}

// info writes a tensor info and remembers where its offset field starts.
func (g *ggufBuilder) info(name string, typ unit01.DType, offset uint64, dims ...uint64) *ggufBuilder {
	g.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		g.u64(d)
	}
	g.u32(uint32(typ))
	g.lastOffsetAt = g.pos()
	return g.u64(offset)
}

// bytes returns a copy of what was written.
func (g *ggufBuilder) bytes() []byte { return bytes.Clone(g.Bytes()) }

// goodGGUF is a small well-formed file and what Parse must find in it.
type goodGGUF struct {
	data       []byte
	kvs        []KV
	infos      []TensorInfo
	tensors    [][]byte // each tensor's bytes, in info order
	alignment  int
	dataOffset int64
	// sections are the offsets where each part of the file ends, in order:
	// the header, each KV, each tensor info, the padding before the data
	// section, each tensor with its padding.
	sections []section
	alignAt  int64 // where the value of general.alignment starts
}

type section struct {
	name string
	end  int64
}

// goodFile builds a GGUF v3 file with a KV of each of the 13 value types,
// arrays of every element type, general.alignment 64 and three 2-D tensors
// (Q4_0, Q8_0, F32). It follows Write's layout: offsets are the running sum
// of the sizes rounded up to 64, padding is zero, and the last tensor's
// size is a multiple of 64, so the file ends with its last byte and every
// shorter prefix is malformed.
func goodFile() goodGGUF {
	var gf goodGGUF
	g := newGGUF(3, 0) // the KV count is set at the end
	mark := func(name string) { gf.sections = append(gf.sections, section{name, g.pos()}) }
	mark("header")
	kv := func(key string, typ ValueType, value any) {
		gf.kvs = append(gf.kvs, KV{Key: key, Type: typ, Value: value})
		mark("KV " + key)
	}
	arr := func(key string, elem ValueType, value any) {
		gf.kvs = append(gf.kvs, KV{Key: key, Type: TypeArray, Elem: elem, Value: value})
		mark("KV " + key)
	}
	g.str("general.architecture").u32(8).str("llama")
	kv("general.architecture", TypeString, "llama")
	g.str("general.name").u32(8).str("tiny ünïcode ▁model")
	kv("general.name", TypeString, "tiny ünïcode ▁model")
	g.str("test.u8").u32(0).u8(200)
	kv("test.u8", TypeUint8, uint8(200))
	g.str("test.i8").u32(1).u8(0x9c) // -100
	kv("test.i8", TypeInt8, int8(-100))
	g.str("test.u16").u32(2).u16(60000)
	kv("test.u16", TypeUint16, uint16(60000))
	g.str("test.i16").u32(3).u16(0x8ad0) // -30000
	kv("test.i16", TypeInt16, int16(-30000))
	g.str("llama.context_length").u32(4).u32(4096)
	kv("llama.context_length", TypeUint32, uint32(4096))
	g.str("test.i32").u32(5).u32(0x88ca6c00) // -2000000000
	kv("test.i32", TypeInt32, int32(-2000000000))
	g.str("llama.rope.freq_base").u32(6).f32(10000)
	kv("llama.rope.freq_base", TypeFloat32, float32(10000))
	g.str("tokenizer.ggml.add_bos_token").u32(7).u8(1)
	kv("tokenizer.ggml.add_bos_token", TypeBool, true)
	g.str("test.false").u32(7).u8(0)
	kv("test.false", TypeBool, false)
	g.str("llama.block_count").u32(10).u64(2)
	kv("llama.block_count", TypeUint64, uint64(2))
	g.str("test.i64").u32(11).u64(0xffffff0000000000) // -1<<40
	kv("test.i64", TypeInt64, int64(-1<<40))
	g.str("test.f64").u32(12).f64(-2.25)
	kv("test.f64", TypeFloat64, -2.25)
	g.str("llama.embedding_length").u32(5).u32(8)
	kv("llama.embedding_length", TypeInt32, int32(8))
	g.str("tokenizer.ggml.tokens").u32(9).u32(8).u64(4).str("<s>").str("").str("héllo").str("▁a")
	arr("tokenizer.ggml.tokens", TypeString, []string{"<s>", "", "héllo", "▁a"})
	g.str("tokenizer.ggml.scores").u32(9).u32(6).u64(4).f32(0).f32(-1.5).f32(2.25).f32(-1000)
	arr("tokenizer.ggml.scores", TypeFloat32, []float32{0, -1.5, 2.25, -1000})
	g.str("tokenizer.ggml.token_type").u32(9).u32(5).u64(4).u32(1).u32(3).u32(1).u32(0xfffffffa)
	arr("tokenizer.ggml.token_type", TypeInt32, []int32{1, 3, 1, -6})
	g.str("test.arr.u8").u32(9).u32(0).u64(3).u8(0).u8(255).u8(7)
	arr("test.arr.u8", TypeUint8, []uint8{0, 255, 7})
	g.str("test.arr.i8").u32(9).u32(1).u64(2).u8(0x80).u8(0x7f)
	arr("test.arr.i8", TypeInt8, []int8{-128, 127})
	g.str("test.arr.u16").u32(9).u32(2).u64(2).u16(1).u16(65535)
	arr("test.arr.u16", TypeUint16, []uint16{1, 65535})
	g.str("test.arr.i16").u32(9).u32(3).u64(2).u16(0xfffe).u16(300)
	arr("test.arr.i16", TypeInt16, []int16{-2, 300})
	g.str("test.arr.u32").u32(9).u32(4).u64(1).u32(4000000000)
	arr("test.arr.u32", TypeUint32, []uint32{4000000000})
	g.str("test.arr.bool").u32(9).u32(7).u64(3).u8(1).u8(0).u8(1)
	arr("test.arr.bool", TypeBool, []bool{true, false, true})
	g.str("test.arr.u64").u32(9).u32(10).u64(0)
	arr("test.arr.u64", TypeUint64, []uint64{})
	g.str("test.arr.i64").u32(9).u32(11).u64(2).u64(math.MaxUint64).u64(1 << 62)
	arr("test.arr.i64", TypeInt64, []int64{-1, 1 << 62})
	g.str("test.arr.f64").u32(9).u32(12).u64(2).f64(1e300).f64(-0.5)
	arr("test.arr.f64", TypeFloat64, []float64{1e300, -0.5})
	g.str("general.alignment").u32(4)
	gf.alignAt = g.pos()
	g.u32(64)
	kv("general.alignment", TypeUint32, uint32(64))

	gf.alignment = 64
	gf.infos = []TensorInfo{
		{Name: "blk.0.attn_q.weight", Dims: []uint64{64, 2}, Type: unit01.Q4_0, Offset: 0},     // 2·2·18 = 72 bytes
		{Name: "blk.0.ffn_down.weight", Dims: []uint64{32, 3}, Type: unit01.Q8_0, Offset: 128}, // 3·34 = 102 bytes
		{Name: "output_norm.weight", Dims: []uint64{8, 2}, Type: unit01.F32, Offset: 256},      // 64 bytes
	}
	sizes := []int{72, 102, 64}
	for _, t := range gf.infos {
		g.info(t.Name, t.Type, t.Offset, t.Dims...)
		mark("tensor info " + t.Name)
	}
	g.pad(64)
	gf.dataOffset = g.pos()
	mark("padding before the data section")
	for i, t := range gf.infos {
		data := make([]byte, sizes[i])
		for j := range data {
			data[j] = byte(31*i + 7*j + 1)
		}
		gf.tensors = append(gf.tensors, data)
		g.raw(data)
		if i < len(gf.infos)-1 {
			g.pad(64)
		}
		mark("tensor data " + t.Name)
	}
	gf.data = g.bytes()
	binary.LittleEndian.PutUint64(gf.data[16:], uint64(len(gf.kvs)))
	return gf
}

// sectionOf names the part of the good file byte off lies in.
func (gf goodGGUF) sectionOf(off int64) string {
	for _, s := range gf.sections {
		if off < s.end {
			return s.name
		}
	}
	return "after the end of the file"
}

// minimalKVs writes n entries of the smallest size there is: a 1-byte key
// and a UINT8 value, 14 bytes each.
func minimalKVs(g *ggufBuilder, n int) *ggufBuilder {
	for i := range n {
		g.str(string(rune('A' + i))).u32(uint32(TypeUint8)).u8(uint8(i))
	}
	return g
}

// minimalInfos writes n tensor infos of the smallest size there is: a
// 1-byte name and one dim, 33 bytes each (F32 of 1 element, one per
// 32-byte slot of the data section).
func minimalInfos(g *ggufBuilder, n int) *ggufBuilder {
	for i := range n {
		g.info(string(rune('A'+i)), unit01.F32, 32*uint64(i), 1)
	}
	return g
}

// malformed is a file Parse must reject.
type malformed struct {
	name string
	data []byte
	kind error // nil: ErrTruncated or ErrInvalid
	off  int64 // where the bad field starts; -1: not checked
	// field is the InputError's Field for the cases listed in
	// malformedFields; "": not checked.
	field string
}

// malformedFields gives the field an error must name, for a few cases: the
// key of an entry, a string value (the key), an element of an array of
// strings (key[i]).
var malformedFields = map[string]string{
	"array cut inside its element type":             "k: element type",
	"Q4_0 with ne[0] = 48 (not a multiple of 32)":   "tensor 0 (t): ne[0]",
	"Q6_K with ne[0] = 128 (not a multiple of 256)": "tensor 0 (t): ne[0]",
	"dims 2^62 of F32 (byte size overflows)":        "tensor 0 (t): dims",
	"key length 2^64-1":                             "metadata entry 0: key",
	"string length 2^40":                            "k",
	"string array element longer than the file":     "k[1]",
	"bool array element 255":                        "k[2]",
	"bool array element 0 is 2":                     "k[0]",
	"a value type cut short":                        "kkkkkkkkk: type",
	"the second key's length cut short":             "metadata entry 1: key",
}

// patch returns a copy of b with x written at off (uint32 or uint64).
func patch(b []byte, off int, x any) []byte {
	b = bytes.Clone(b)
	switch v := x.(type) {
	case uint32:
		binary.LittleEndian.PutUint32(b[off:], v)
	case uint64:
		binary.LittleEndian.PutUint64(b[off:], v)
	default:
		panic(fmt.Sprintf("patch: %T", x))
	}
	return b
}

// malformedFiles lists hand-built files that break one rule each, with the
// error kind and the offset where the bad field starts. An empty key is 8
// bytes long, so with "k" (9 bytes) after the 24-byte header a KV's type
// starts at 33 and its value at 37; a tensor info named "t" has n_dims at
// 33 and ne[0] at 37.
func malformedFiles() []malformed {
	good := goodFile()
	var cases []malformed
	add := func(name string, kind error, build func() ([]byte, int64)) {
		data, off := build()
		cases = append(cases, malformed{name, data, kind, off, malformedFields[name]})
	}
	inv, trunc, unsup := unit00.ErrInvalid, unit00.ErrTruncated, unit00.ErrUnsupported

	// The header.
	add("an empty file", trunc, func() ([]byte, int64) { return nil, 0 })
	add("a file of 3 bytes", trunc, func() ([]byte, int64) { return []byte("GGU"), 0 })
	add("bad magic", inv, func() ([]byte, int64) { return append([]byte("GGUX"), good.data[4:]...), 0 })
	add("version 1", unsup, func() ([]byte, int64) { return patch(good.data, 4, uint32(1)), 4 })
	add("version 4", unsup, func() ([]byte, int64) { return patch(good.data, 4, uint32(4)), 4 })
	add("big-endian version 3 (0x03000000)", unsup, func() ([]byte, int64) { return patch(good.data, 4, uint32(0x03000000)), 4 })
	add("tensor_count 2^64-1", inv, func() ([]byte, int64) { return patch(good.data, 8, uint64(math.MaxUint64)), 8 })
	add("tensor_count 2^40", inv, func() ([]byte, int64) { return patch(good.data, 8, uint64(1<<40)), 8 })
	add("metadata_kv_count 2^64-1", inv, func() ([]byte, int64) { return patch(good.data, 16, uint64(math.MaxUint64)), 16 })
	add("metadata_kv_count 2^40", inv, func() ([]byte, int64) { return patch(good.data, 16, uint64(1<<40)), 16 })

	// Metadata.
	add("key length 2^64-1", inv, func() ([]byte, int64) { return newGGUF(0, 1).u64(math.MaxUint64).raw(make([]byte, 16)).bytes(), 24 })
	add("empty key", inv, func() ([]byte, int64) { return newGGUF(0, 1).str("").u32(4).u32(1).bytes(), 24 })
	add("duplicate key", inv, func() ([]byte, int64) {
		g := newGGUF(0, 2).str("k").u32(4).u32(1)
		at := g.pos()
		return g.str("k").u32(4).u32(2).bytes(), at
	})
	add("unknown value type 13", unsup, func() ([]byte, int64) { return newGGUF(0, 1).str("k").u32(13).u32(0).bytes(), 33 })
	add("unknown value type 2^32-1", unsup, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(math.MaxUint32).u64(0).bytes(), 33
	})
	add("array of an unknown element type", unsup, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(9).u32(13).u64(0).bytes(), 37
	})
	add("array of arrays", unsup, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(9).u32(9).u64(1).u32(4).u64(0).bytes(), 37
	})
	add("string length 2^40", inv, func() ([]byte, int64) { return newGGUF(0, 1).str("k").u32(8).u64(1 << 40).bytes(), 37 })
	add("string length 2^64-1", inv, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(8).u64(math.MaxUint64).raw([]byte("abc")).bytes(), 37
	})
	add("string 1 byte longer than the file", inv, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(8).u64(4).raw([]byte("abc")).bytes(), 37
	})
	add("array count 2^61", inv, func() ([]byte, int64) { return newGGUF(0, 1).str("k").u32(9).u32(4).u64(1 << 61).bytes(), 41 })
	add("array count 2^64-1", inv, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(9).u32(12).u64(math.MaxUint64).u64(0).bytes(), 41
	})
	add("array of 3 u32 in 8 bytes", inv, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(9).u32(4).u64(3).u32(1).u32(2).bytes(), 41
	})
	// 21 bytes hold two string lengths, not three: refused at the count,
	// before any string is read (each string takes at least its 8-byte
	// length).
	add("array cut inside its element type", trunc, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(9).raw([]byte{8, 0}).bytes(), 37
	})
	add("array of 3 strings in 21 bytes", inv, func() ([]byte, int64) {
		return newGGUF(0, 1).str("k").u32(9).u32(8).u64(3).u64(0).u64(0).raw(make([]byte, 5)).bytes(), 41
	})
	add("array of 2^60 strings", inv, func() ([]byte, int64) { return newGGUF(0, 1).str("k").u32(9).u32(8).u64(1 << 60).bytes(), 41 })
	add("string array element longer than the file", inv, func() ([]byte, int64) {
		g := newGGUF(0, 1).str("k").u32(9).u32(8).u64(2).str("a")
		at := g.pos()
		return g.u64(1 << 40).bytes(), at
	})
	add("bool byte 2", inv, func() ([]byte, int64) { return newGGUF(0, 1).str("k").u32(7).u8(2).bytes(), 37 })
	// Long enough for the count check (two entries of a key, a type and one
	// byte), but the file ends 3 bytes into the second key's length.
	add("the second key's length cut short", trunc, func() ([]byte, int64) {
		g := newGGUF(0, 2).str("k").u32(8).str(strings.Repeat("v", 20))
		at := g.pos()
		return g.raw([]byte{1, 0, 0}).bytes(), at
	})
	// Long enough for the count check (a key, a type, one byte), but the
	// file ends 3 bytes into the type.
	add("a value type cut short", trunc, func() ([]byte, int64) {
		g := newGGUF(0, 1).str("kkkkkkkkk")
		at := g.pos()
		return g.raw([]byte{1, 2, 3}).bytes(), at
	})
	add("bool array element 255", inv, func() ([]byte, int64) {
		g := newGGUF(0, 1).str("k").u32(9).u32(7).u64(3).u8(1).u8(0)
		at := g.pos()
		return g.u8(255).bytes(), at
	})
	add("bool array element 0 is 2", inv, func() ([]byte, int64) { // the first element, and the smallest bad byte
		g := newGGUF(0, 1).str("k").u32(9).u32(7).u64(2)
		at := g.pos()
		return g.u8(2).u8(1).bytes(), at
	})
	add("general.alignment 48 (not a power of two)", inv, func() ([]byte, int64) {
		return patch(good.data, int(good.alignAt), uint32(48)), good.alignAt
	})
	add("general.alignment 0", inv, func() ([]byte, int64) { return patch(good.data, int(good.alignAt), uint32(0)), good.alignAt })
	add("general.alignment 2^32-1", inv, func() ([]byte, int64) {
		return patch(good.data, int(good.alignAt), uint32(math.MaxUint32)), good.alignAt
	})
	add("general.alignment stored as a UINT64", inv, func() ([]byte, int64) {
		g := newGGUF(0, 1).str("general.alignment")
		at := g.pos()
		return g.u32(uint32(TypeUint64)).u64(64).bytes(), at
	})
	add("general.alignment stored as an INT32", inv, func() ([]byte, int64) {
		g := newGGUF(0, 1).str("general.alignment")
		at := g.pos()
		return g.u32(uint32(TypeInt32)).u32(64).bytes(), at
	})

	// Tensor infos (no KVs: the alignment is 32).
	add("empty tensor name", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("", unit01.F32, 0, 8).pad(32).raw(make([]byte, 32)).bytes(), 24
	})
	add("tensor name of 64 bytes", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info(strings.Repeat("n", 64), unit01.F32, 0, 8).pad(32).raw(make([]byte, 32)).bytes(), 24
	})
	add("tensor name length 2^62", inv, func() ([]byte, int64) { return newGGUF(1, 0).u64(1 << 62).raw(make([]byte, 64)).bytes(), 24 })
	add("duplicate tensor name", inv, func() ([]byte, int64) {
		g := newGGUF(2, 0).info("t", unit01.F32, 0, 8)
		at := g.pos()
		return g.info("t", unit01.F32, 32, 8).pad(32).raw(make([]byte, 64)).bytes(), at
	})
	add("n_dims 0", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.F32, 0).pad(32).raw(make([]byte, 32)).bytes(), 33
	})
	add("n_dims 5", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.F32, 0, 1, 1, 1, 1, 1).pad(32).raw(make([]byte, 32)).bytes(), 33
	})
	add("n_dims 2^32-1", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).str("t").u32(math.MaxUint32).raw(make([]byte, 64)).bytes(), 33
	})
	add("a zero dim", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.F32, 0, 8, 0).pad(32).raw(make([]byte, 32)).bytes(), 45
	})
	add("dims 2^32 × 2^32 (element count overflows)", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.F32, 0, 1<<32, 1<<32).pad(32).bytes(), 45
	})
	add("dims 2^63 (element count beyond int64)", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.F32, 0, 1<<63).pad(32).bytes(), 37
	})
	add("dims 2^62 of F32 (byte size overflows)", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.F32, 0, 1<<62).pad(32).bytes(), 37
	})
	add("unknown ggml type 4 (removed Q4_2)", unsup, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", 4, 0, 32).pad(32).raw(make([]byte, 32)).bytes(), 45
	})
	add("unknown ggml type 39 (MXFP4)", unsup, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", 39, 0, 32).pad(32).raw(make([]byte, 32)).bytes(), 45
	})
	add("Q4_0 with ne[0] = 48 (not a multiple of 32)", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.Q4_0, 0, 48, 2).pad(32).raw(make([]byte, 64)).bytes(), 37
	})
	add("Q6_K with ne[0] = 128 (not a multiple of 256)", inv, func() ([]byte, int64) {
		return newGGUF(1, 0).info("t", unit01.Q6_K, 0, 128).pad(32).raw(make([]byte, 128)).bytes(), 37
	})
	add("offset 16 with alignment 32", inv, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.F32, 16, 8)
		return g.pad(32).raw(make([]byte, 64)).bytes(), g.lastOffsetAt
	})
	add("offset 32 with general.alignment 64", inv, func() ([]byte, int64) {
		g := newGGUF(1, 1).str("general.alignment").u32(4).u32(64).info("t", unit01.F32, 32, 8)
		return g.pad(64).raw(make([]byte, 128)).bytes(), g.lastOffsetAt
	})
	add("the good file with its last tensor at offset 288 (alignment 64)", inv, func() ([]byte, int64) {
		at := good.sections[len(good.sections)-5].end - 8 // the offset field ends the last info
		return patch(good.data, int(at), uint64(288)), at
	})
	add("tensor 8 bytes beyond the end of the file", trunc, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.F32, 0, 8)
		return g.pad(32).raw(make([]byte, 24)).bytes(), g.lastOffsetAt
	})
	add("tensor offset 2^40", trunc, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.F32, 1<<40, 8)
		return g.pad(32).raw(make([]byte, 64)).bytes(), g.lastOffsetAt
	})
	add("tensor offset 2^64-32", trunc, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.F32, math.MaxUint64-31, 8)
		return g.pad(32).raw(make([]byte, 64)).bytes(), g.lastOffsetAt
	})
	add("tensor of 2^42 bytes", trunc, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.F32, 0, 1<<20, 1<<20)
		return g.pad(32).raw(make([]byte, 64)).bytes(), g.lastOffsetAt
	})
	add("file ending before the data section", trunc, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.F32, 0, 8)
		return g.bytes(), g.pos() // the infos end at 57; the data section would start at 64
	})
	add("the file ending exactly where its data section starts", trunc, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.F32, 0, 8)
		return g.pad(32).bytes(), g.lastOffsetAt // the data section is there, empty: the tensor is what runs past the end
	})
	add("dims 2^63-1 of I8 (the largest size there is) with no data", trunc, func() ([]byte, int64) {
		g := newGGUF(1, 0).info("t", unit01.I8, 0, math.MaxInt64)
		return g.pad(32).raw(make([]byte, 32)).bytes(), g.lastOffsetAt // the dims are allowed: the tensor runs past the end
	})

	// Counts at the bound: a count is checked against the fewest bytes its
	// items could take (a KV: 8+1+4+1 bytes; a tensor info: 8+1+4+8+4+8).
	add("metadata_kv_count 21 for 20 entries of 14 bytes", inv, func() ([]byte, int64) {
		return minimalKVs(newGGUF(0, 21), 20).bytes(), 16
	})
	add("tensor_count 31 for 30 infos of 33 bytes", inv, func() ([]byte, int64) {
		return minimalInfos(newGGUF(31, 0), 30).bytes(), 8
	})
	add("tensor_count 30 for 30 infos of 33 bytes, and no data section", trunc, func() ([]byte, int64) {
		g := minimalInfos(newGGUF(30, 0), 30)
		return g.bytes(), g.pos() // the count fits; the data section is what is missing
	})
	add("two tensors at offset 0", inv, func() ([]byte, int64) {
		g := newGGUF(2, 0).info("a", unit01.F32, 0, 8).info("b", unit01.F32, 0, 8)
		return g.pad(32).raw(make([]byte, 64)).bytes(), g.lastOffsetAt
	})
	add("overlapping tensors", inv, func() ([]byte, int64) {
		g := newGGUF(2, 0).info("a", unit01.F32, 0, 16).info("b", unit01.F32, 32, 8) // a: [0, 64), b: [32, 64)
		return g.pad(32).raw(make([]byte, 64)).bytes(), g.lastOffsetAt
	})
	add("overlapping tensors listed out of offset order", inv, func() ([]byte, int64) {
		g := newGGUF(3, 0).info("a", unit01.F32, 64, 8) // [64, 96)
		at := g.lastOffsetAt
		g.info("b", unit01.F32, 128, 8).info("c", unit01.F32, 0, 24) // [128, 160), [0, 96)
		return g.pad(32).raw(make([]byte, 160)).bytes(), at
	})
	return cases
}

// oracleValue converts a KV value to the form oracle.GGUFMetadata uses:
// unsigned integers as uint64, signed as int64, floats as float64, arrays
// as []any.
func oracleValue(v any) any {
	switch x := v.(type) {
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case uint64:
		return x
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case float32:
		return float64(x)
	case float64, bool, string:
		return x
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return fmt.Sprintf("unexpected %T", v)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = oracleValue(rv.Index(i).Interface())
	}
	return out
}

// describe prints a value with its Go type, shortened.
func describe(v any) string {
	s := fmt.Sprintf("%T %v", v, v)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
