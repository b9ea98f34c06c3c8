package unit10

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// sameBytes fails with the first byte where got and want differ, and the
// part of the file it is in when name is given a section finder.
func sameBytes(t *testing.T, what string, got, want []byte, section func(int64) string) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	where := ""
	if section != nil {
		where = " (in " + section(int64(i)) + ")"
	}
	show := func(b []byte) string { return fmt.Sprintf("% x", b[i:min(len(b), i+16)]) }
	t.Errorf("%s: %d bytes, want %d; they first differ at byte %d%s: got [%s], want [%s]", what, len(got), len(want), i, where, show(got), show(want))
}

func TestC10_3_RoundTripGood(t *testing.T) {
	gf := goodFile()
	f, err := Parse(gf.data, "good.gguf")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	ts := Tensors(f)
	if len(ts) != len(gf.infos) {
		t.Fatalf("Tensors: %d tensors, want %d", len(ts), len(gf.infos))
	}
	for i, tt := range ts {
		info := gf.infos[i]
		if tt.Name != info.Name || tt.Type != info.Type || !reflect.DeepEqual(tt.Dims, info.Dims) {
			t.Errorf("Tensors()[%d] = %q %v %v, want %q %v %v (file order)", i, tt.Name, tt.Type, tt.Dims, info.Name, info.Type, info.Dims)
		}
		start := gf.dataOffset + int64(info.Offset)
		if !bytes.Equal(tt.Data, gf.tensors[i]) || &tt.Data[0] != &gf.data[start] {
			t.Errorf("Tensors()[%d].Data is not the view data[%d:%d] (no copy)", i, start, start+int64(len(gf.tensors[i])))
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, f.KV, ts); err != nil {
		t.Fatalf("Write(Parse(good file)): %v", err)
	}
	sameBytes(t, "Write(Parse(good file))", buf.Bytes(), gf.data, gf.sectionOf)
}

// writeCase is a set of KVs and tensors to write and read back.
type writeCase struct {
	name    string
	kvs     []KV
	tensors []Tensor
	align   int
}

func filled(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*13)
	}
	return b
}

func writeCases() []writeCase {
	every := []KV{
		{Key: "general.architecture", Type: TypeString, Value: "llama"},
		{Key: "a.u8", Type: TypeUint8, Value: uint8(1)},
		{Key: "a.i8", Type: TypeInt8, Value: int8(-2)},
		{Key: "a.u16", Type: TypeUint16, Value: uint16(3)},
		{Key: "a.i16", Type: TypeInt16, Value: int16(-4)},
		{Key: "a.u32", Type: TypeUint32, Value: uint32(5)},
		{Key: "a.i32", Type: TypeInt32, Value: int32(-6)},
		{Key: "a.f32", Type: TypeFloat32, Value: float32(0.75)},
		{Key: "a.bool", Type: TypeBool, Value: true},
		{Key: "a.u64", Type: TypeUint64, Value: uint64(1 << 50)},
		{Key: "a.i64", Type: TypeInt64, Value: int64(-1 << 50)},
		{Key: "a.f64", Type: TypeFloat64, Value: 1e-300},
		{Key: "a.empty", Type: TypeString, Value: ""},
		{Key: "b.u8", Type: TypeArray, Elem: TypeUint8, Value: []uint8{9, 8}},
		{Key: "b.i8", Type: TypeArray, Elem: TypeInt8, Value: []int8{-9}},
		{Key: "b.u16", Type: TypeArray, Elem: TypeUint16, Value: []uint16{7, 6, 5}},
		{Key: "b.i16", Type: TypeArray, Elem: TypeInt16, Value: []int16{-7}},
		{Key: "b.u32", Type: TypeArray, Elem: TypeUint32, Value: []uint32{1, 2}},
		{Key: "b.i32", Type: TypeArray, Elem: TypeInt32, Value: []int32{-1, -2}},
		{Key: "b.f32", Type: TypeArray, Elem: TypeFloat32, Value: []float32{0.5, -0.25}},
		{Key: "b.bool", Type: TypeArray, Elem: TypeBool, Value: []bool{false, true}},
		{Key: "b.string", Type: TypeArray, Elem: TypeString, Value: []string{"x", "", "ÿ"}},
		{Key: "b.u64", Type: TypeArray, Elem: TypeUint64, Value: []uint64{1 << 60}},
		{Key: "b.i64", Type: TypeArray, Elem: TypeInt64, Value: []int64{-1 << 60}},
		{Key: "b.f64", Type: TypeArray, Elem: TypeFloat64, Value: []float64{}},
	}
	mixed := []Tensor{
		{Name: "f16", Dims: []uint64{5}, Type: unit01.F16, Data: filled(10, 1)},
		{Name: "q4_k", Dims: []uint64{256, 3}, Type: unit01.Q4_K, Data: filled(432, 2)},
		{Name: "q8_0.3d", Dims: []uint64{32, 2, 3}, Type: unit01.Q8_0, Data: filled(204, 3)},
		{Name: "f32.4d", Dims: []uint64{2, 1, 3, 2}, Type: unit01.F32, Data: filled(48, 4)},
		{Name: "bf16.last", Dims: []uint64{7}, Type: unit01.BF16, Data: filled(14, 5)},
	}
	withAlign := func(a uint32) []KV {
		return append([]KV{{Key: "general.alignment", Type: TypeUint32, Value: a}}, every[:3]...)
	}
	return []writeCase{
		{"every value type, default alignment", every, mixed, 32},
		{"general.alignment 1 (no padding)", withAlign(1), mixed, 1},
		{"general.alignment 256", withAlign(256), mixed, 256},
		{"one tensor", every[:1], mixed[1:2], 32},
		{"no tensors", every, nil, 32},
		{"nothing", nil, nil, 32},
	}
}

func TestC10_3_WriteParse(t *testing.T) {
	for _, c := range writeCases() {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, c.kvs, c.tensors); err != nil {
				t.Fatalf("Write: %v", err)
			}
			out := buf.Bytes()
			f, err := Parse(out, "written.gguf")
			if err != nil {
				t.Fatalf("Parse of what Write wrote: %v", err)
			}
			if f.Version != 3 || f.Alignment != c.align {
				t.Errorf("read back version %d, alignment %d; want 3, %d", f.Version, f.Alignment, c.align)
			}
			if len(f.KV) != len(c.kvs) {
				t.Errorf("read back %d KVs, wrote %d", len(f.KV), len(c.kvs))
			}
			for i := range min(len(f.KV), len(c.kvs)) {
				got, want := f.KV[i], c.kvs[i]
				if got.Key != want.Key || got.Type != want.Type || (want.Type == TypeArray && got.Elem != want.Elem) || !reflect.DeepEqual(got.Value, want.Value) {
					t.Errorf("KV %d read back as %q type %d elem %d %s; wrote %q type %d elem %d %s",
						i, got.Key, got.Type, got.Elem, describe(got.Value), want.Key, want.Type, want.Elem, describe(want.Value))
				}
			}
			if len(f.Tensors) != len(c.tensors) {
				t.Fatalf("read back %d tensors, wrote %d", len(f.Tensors), len(c.tensors))
			}
			var next uint64 // the running sum of the padded sizes
			for i, want := range c.tensors {
				info, data, err := f.Tensor(want.Name)
				if err != nil {
					t.Fatalf("Tensor(%q): %v", want.Name, err)
				}
				if !reflect.DeepEqual(info, f.Tensors[i]) || info.Type != want.Type || !reflect.DeepEqual(info.Dims, want.Dims) || !bytes.Equal(data, want.Data) {
					t.Errorf("tensor %d read back as %q %v %v with %d bytes; wrote %q %v %v with %d bytes (in this order)",
						i, info.Name, info.Type, info.Dims, len(data), want.Name, want.Type, want.Dims, len(want.Data))
				}
				if info.Offset != next {
					t.Errorf("tensor %d (%s) at offset %d, want %d: the sum of the earlier tensors' sizes, each rounded up to the alignment %d",
						i, want.Name, info.Offset, next, c.align)
				}
				end := f.DataOffset + int64(next) + int64(len(want.Data))
				next += (uint64(len(want.Data)) + uint64(c.align) - 1) / uint64(c.align) * uint64(c.align)
				for j := end; j < f.DataOffset+int64(next) && j < int64(len(out)); j++ {
					if out[j] != 0 {
						t.Fatalf("byte %d, in the padding after tensor %s, is %#x; padding is zero bytes", j, want.Name, out[j])
					}
				}
			}
			if len(c.tensors) > 0 && int64(len(out)) != f.DataOffset+int64(next) {
				t.Errorf("the file has %d bytes; want %d: the data section starts at byte %d, and each tensor, the last included, is padded to the alignment %d",
					len(out), f.DataOffset+int64(next), f.DataOffset, c.align)
			}
			if len(c.tensors) == 0 && len(c.kvs) == 0 && len(out) != 24 {
				t.Errorf("a file with no KVs and no tensors has %d bytes; want the 24-byte header and nothing else", len(out))
			}
			var again bytes.Buffer
			if err := Write(&again, f.KV, Tensors(f)); err != nil {
				t.Fatalf("Write(Parse(Write(x))): %v", err)
			}
			sameBytes(t, "Write(Parse(Write(x))) against Write(x)", again.Bytes(), out, nil)
		})
	}
}

func TestC10_3_NoTensorsNoPadding(t *testing.T) {
	// A hand-built file: header, two KVs, nothing after.
	want := newGGUF(0, 2).str("general.name").u32(8).str("x").str("b").u32(7).u8(1).bytes()
	var buf bytes.Buffer
	kvs := []KV{{Key: "general.name", Type: TypeString, Value: "x"}, {Key: "b", Type: TypeBool, Value: true}}
	if err := Write(&buf, kvs, nil); err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "Write of two KVs and no tensors (the file ends with the last KV: no padding, no data section)", buf.Bytes(), want, nil)

	// llama.cpp's vocabulary files are such files: they round-trip.
	for _, name := range []string{"gpt-2", "phi-3"} {
		path := "../unit04/testdata/ggml-vocab-" + name + ".gguf"
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(data, path)
		if err != nil {
			t.Fatalf("Parse(%s): %v", path, err)
		}
		buf.Reset()
		if err := Write(&buf, f.KV, Tensors(f)); err != nil {
			t.Fatalf("Write(Parse(%s)): %v", path, err)
		}
		sameBytes(t, "Write(Parse("+path+"))", buf.Bytes(), data, nil)
	}
}

func TestC10_3_WriteErrors(t *testing.T) {
	okKV := []KV{{Key: "general.name", Type: TypeString, Value: "x"}}
	okT := Tensor{Name: "t", Dims: []uint64{8}, Type: unit01.F32, Data: make([]byte, 32)}
	kv := func(kvs ...KV) []KV { return kvs }
	tensor := func(name string, typ unit01.DType, n int, dims ...uint64) []Tensor {
		return []Tensor{okT, {Name: name, Dims: dims, Type: typ, Data: make([]byte, n)}}
	}
	cases := []struct {
		name    string
		kvs     []KV
		tensors []Tensor
		kind    error
		mention string // the error names the key or tensor
	}{
		{"UINT32 holding an int", kv(KV{Key: "n", Type: TypeUint32, Value: 5}), nil, unit00.ErrInvalid, `"n"`},
		{"UINT32 holding a uint64", kv(KV{Key: "n", Type: TypeUint32, Value: uint64(5)}), nil, unit00.ErrInvalid, `"n"`},
		{"INT8 holding a uint8", kv(KV{Key: "n", Type: TypeInt8, Value: uint8(5)}), nil, unit00.ErrInvalid, `"n"`},
		{"FLOAT64 holding a float32", kv(KV{Key: "n", Type: TypeFloat64, Value: float32(1)}), nil, unit00.ErrInvalid, `"n"`},
		{"STRING holding []byte", kv(KV{Key: "s", Type: TypeString, Value: []byte("x")}), nil, unit00.ErrInvalid, `"s"`},
		{"BOOL holding nil", kv(KV{Key: "b", Type: TypeBool}), nil, unit00.ErrInvalid, `"b"`},
		{"ARRAY of STRING holding []any", kv(KV{Key: "a", Type: TypeArray, Elem: TypeString, Value: []any{"x"}}), nil, unit00.ErrInvalid, `"a"`},
		{"ARRAY of INT32 holding []uint32", kv(KV{Key: "a", Type: TypeArray, Elem: TypeInt32, Value: []uint32{1}}), nil, unit00.ErrInvalid, `"a"`},
		{"ARRAY of FLOAT32 holding a float32", kv(KV{Key: "a", Type: TypeArray, Elem: TypeFloat32, Value: float32(1)}), nil, unit00.ErrInvalid, `"a"`},
		{"UINT8 holding []uint8", kv(KV{Key: "a", Type: TypeUint8, Value: []uint8{1}}), nil, unit00.ErrInvalid, `"a"`},
		{"unknown value type 13", kv(KV{Key: "u", Type: 13, Value: uint8(1)}), nil, unit00.ErrInvalid, `("u"): unknown value type`},
		{"array of unknown element type", kv(KV{Key: "u", Type: TypeArray, Elem: 13, Value: []uint8{1}}), nil, unit00.ErrInvalid, `("u"): unknown value type`},
		{"array of arrays", kv(KV{Key: "aa", Type: TypeArray, Elem: TypeArray, Value: []any{}}), nil, unit00.ErrUnsupported, `"aa"`},
		{"empty key", kv(KV{Key: "", Type: TypeUint8, Value: uint8(1)}), nil, unit00.ErrInvalid, "empty"},
		{"duplicate key", append(kv(okKV...), okKV...), nil, unit00.ErrInvalid, `"general.name"`},
		{"general.alignment 48", kv(KV{Key: "general.alignment", Type: TypeUint32, Value: uint32(48)}), nil, unit00.ErrInvalid, "alignment"},
		{"general.alignment 0", kv(KV{Key: "general.alignment", Type: TypeUint32, Value: uint32(0)}), nil, unit00.ErrInvalid, "alignment"},
		{"general.alignment as a UINT64", kv(KV{Key: "general.alignment", Type: TypeUint64, Value: uint64(64)}), nil, unit00.ErrInvalid, "must be a UINT32"},
		{"tensor data 1 byte short", okKV, tensor("short", unit01.F32, 31, 8), unit00.ErrInvalid, `"short"`},
		{"tensor data 1 byte long", okKV, tensor("long", unit01.Q8_0, 35, 32), unit00.ErrInvalid, `"long"`},
		{"tensor with no dims", okKV, tensor("nodims", unit01.F32, 4), unit00.ErrInvalid, `"nodims"`},
		{"tensor with 5 dims", okKV, tensor("five", unit01.F32, 4, 1, 1, 1, 1, 1), unit00.ErrInvalid, `"five"`},
		{"tensor with a zero dim", okKV, tensor("zero", unit01.F32, 0, 8, 0), unit00.ErrInvalid, `"zero"`},
		{"Q4_0 tensor with ne[0] = 48", okKV, tensor("q4", unit01.Q4_0, 27, 48), unit00.ErrInvalid, `"q4"`},
		{"tensor of unknown type 4", okKV, tensor("t4", unit01.DType(4), 18, 32), unit00.ErrUnsupported, `"t4"`},
		{"tensor with an empty name", okKV, tensor("", unit01.F32, 32, 8), unit00.ErrInvalid, "tensor 1"},
		{"tensor name of 64 bytes", okKV, tensor(strings.Repeat("n", 64), unit01.F32, 32, 8), unit00.ErrInvalid, "nnnn"},
		{"duplicate tensor name", okKV, tensor("t", unit01.F32, 32, 8), unit00.ErrInvalid, `"t"`},
	}
	// A Value of the wrong Go type: the error says which Type the entry
	// has, as the spec names it, and which Go type that needs.
	for _, c := range []struct {
		kv   KV
		says []string
	}{
		{KV{Key: "n", Type: TypeUint32, Value: 5}, []string{"UINT32", "uint32", "int"}},
		{KV{Key: "a", Type: TypeArray, Elem: TypeInt32, Value: []uint32{1}}, []string{"ARRAY of INT32", "[]int32", "[]uint32"}},
	} {
		err := Write(io.Discard, kv(c.kv), nil)
		for _, want := range c.says {
			if !strings.Contains(fmt.Sprint(err), want) {
				t.Errorf("Write of %q (Type %d, Elem %d) holding a %T: error %v; want it to say %q (the entry's Type as the spec names it, the Go type it needs, the one it got)", c.kv.Key, c.kv.Type, c.kv.Elem, c.kv.Value, err, want)
			}
		}
	}
	// The bounds themselves are allowed: a name of 63 bytes, the most
	// GGML_MAX_NAME leaves room for.
	if err := Write(io.Discard, okKV, tensor(strings.Repeat("n", 63), unit01.F32, 32, 8)); err != nil {
		t.Errorf("Write of a tensor named with 63 bytes: %v; names of 1 to 63 bytes are allowed", err)
	}
	for _, c := range cases {
		var buf bytes.Buffer
		err := Write(&buf, c.kvs, c.tensors)
		switch {
		case err == nil:
			t.Errorf("%s: Write returned no error", c.name)
		case !errors.Is(err, c.kind):
			t.Errorf("%s: error %q does not wrap %v", c.name, err, c.kind)
		case !strings.Contains(err.Error(), c.mention):
			t.Errorf("%s: error %q does not say which entry is wrong (want it to contain %s)", c.name, err, c.mention)
		case buf.Len() != 0:
			t.Errorf("%s: Write wrote %d bytes before failing; check every KV and tensor before writing anything", c.name, buf.Len())
		}
	}
}

// failingWriter accepts n bytes, then fails.
type failingWriter struct {
	n, written   int
	callsAfter   int // Write calls after the failure
	failed       bool
	acceptedData bytes.Buffer
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.callsAfter++
		return 0, errDiskFull
	}
	k := min(len(p), w.n-w.written)
	w.written += k
	w.acceptedData.Write(p[:k])
	if k < len(p) {
		w.failed = true
		return k, errDiskFull
	}
	return k, nil
}

func TestC10_3_WriterFails(t *testing.T) {
	gf := goodFile()
	f, err := Parse(gf.data, "good.gguf")
	if err != nil {
		t.Fatal(err)
	}
	// A bigger file, so the failure can come after several flushes.
	big := []Tensor{
		{Name: "a", Dims: []uint64{1 << 16}, Type: unit01.F32, Data: filled(1<<18, 1)},
		{Name: "b", Dims: []uint64{1 << 16}, Type: unit01.F32, Data: filled(1<<18, 2)},
	}
	var bigOut bytes.Buffer
	if err := Write(&bigOut, f.KV, big); err != nil {
		t.Fatal(err)
	}
	n := len(gf.data)
	for _, c := range []struct {
		tensors []Tensor
		want    []byte
		fail    []int
	}{
		{Tensors(f), gf.data, []int{0, 1, 23, 24, 100, int(gf.dataOffset) - 1, int(gf.dataOffset), int(gf.dataOffset) + 100, n - 1}},
		{big, bigOut.Bytes(), []int{0, 1000, 70000, 300000, bigOut.Len() - 1}},
	} {
		for _, at := range c.fail {
			w := &failingWriter{n: at}
			err := Write(w, f.KV, c.tensors)
			switch {
			case !errors.Is(err, errDiskFull):
				t.Errorf("Write to a writer that fails after %d of %d bytes returned %v; want the writer's error", at, len(c.want), err)
			case w.callsAfter > 0:
				t.Errorf("Write to a writer that fails after %d of %d bytes called it %d more times after the error; stop at the first error", at, len(c.want), w.callsAfter)
			case !bytes.Equal(w.acceptedData.Bytes(), c.want[:at]):
				t.Errorf("the %d bytes written before the failure are not the start of the file", at)
			}
		}
		w := &failingWriter{n: len(c.want)}
		if err := Write(w, f.KV, c.tensors); err != nil || !bytes.Equal(w.acceptedData.Bytes(), c.want) {
			t.Errorf("Write to a writer that accepts exactly the file's %d bytes: %v", len(c.want), err)
		}
	}
}

// countingWriter counts the calls and bytes written to it.
type countingWriter struct{ calls, n int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.calls++
	w.n += len(p)
	return len(p), nil
}

func TestC10_3_WriteBuffers(t *testing.T) {
	var kvs []KV
	for i := range 3000 {
		kvs = append(kvs, KV{Key: fmt.Sprintf("k.%04d", i), Type: TypeUint32, Value: uint32(i)})
	}
	w := &countingWriter{}
	if err := Write(w, kvs, nil); err != nil {
		t.Fatal(err)
	}
	if limit := 2 + w.n/4096; w.calls > limit {
		t.Errorf("Write of %d bytes of metadata made %d Write calls on the io.Writer; buffer the output (bufio.Writer): at most %d", w.n, w.calls, limit)
	}

	// 32 MiB of tensor data must not be copied into one buffer.
	data := make([]byte, 32<<20)
	tensors := []Tensor{{Name: "big", Dims: []uint64{8 << 20}, Type: unit01.F32, Data: data}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := Write(io.Discard, kvs[:10], tensors); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("Write of a 32 MiB tensor allocated %d bytes; write the tensors' bytes straight to the writer, never the whole file into memory", alloc)
	}
}
