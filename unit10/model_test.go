package unit10

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
)

// tinyVocab is a byte-level BPE vocabulary of 300 tokens: the 256 byte
// tokens and 44 merges of common pairs, enough for a model to be loadable
// and its tokenizer to work, small enough for fast tests.
func tinyVocab() *unit04.Vocab {
	v := &unit04.Vocab{Model: "gpt2", Pre: "gpt-2", BOS: 256, EOS: 256, UNK: -1}
	for b := range 256 {
		v.Tokens = append(v.Tokens, unit04.ToByteLevel([]byte{byte(b)}))
	}
	v.Tokens = append(v.Tokens, "<|endoftext|>")
	for _, m := range []string{"t h", "Ġ t", "e r", "i n", "Ġ a", "o n", "r e", "a t", "e n", "o r"} {
		v.Merges = append(v.Merges, m)
		v.Tokens = append(v.Tokens, strings.Replace(m, " ", "", 1))
	}
	for len(v.Tokens) < 300 {
		v.Tokens = append(v.Tokens, fmt.Sprintf("<unused%d>", len(v.Tokens)))
	}
	v.Types = make([]int32, len(v.Tokens))
	for i := range v.Types {
		v.Types[i] = unit04.TypeNormal
	}
	v.Types[256] = unit04.TypeControl
	return v
}

// tinySpec is a small model of arch with matrices of type dt.
func tinySpec(arch string, dt unit01.DType, tied bool) ModelSpec {
	c := unit05.Config{Dim: 256, Layers: 2, Heads: 8, KVHeads: 2, HeadDim: 32, FFN: 512, MaxSeq: 64,
		RopeBase: 500000, RMSEps: 1e-6, TiedEmbeddings: tied}
	return ModelSpec{Name: "tiny-" + arch, Arch: arch, Config: c, Vocab: tinyVocab(), Matrix: dt, Embed: dt, Output: unit01.Q6_K, Seed: 9}
}

// writeModel generates spec into a file in t's temporary folder.
func writeModel(t testing.TB, spec ModelSpec) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Generate(&buf, spec); err != nil {
		t.Fatalf("Generate(%s): %v", spec.Name, err)
	}
	path := filepath.Join(t.TempDir(), spec.Name+".gguf")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func openModel(t testing.TB, spec ModelSpec) *File {
	t.Helper()
	f, err := Open(writeModel(t, spec))
	if err != nil {
		t.Fatalf("Open of a generated %s model: %v", spec.Arch, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestC10_4_LoadConfig(t *testing.T) {
	for _, c := range []struct {
		arch string
		tied bool
		rope unit05.RopeStyle
	}{{"llama", false, unit05.RopeNorm}, {"qwen2", true, unit05.RopeNeox}} {
		spec := tinySpec(c.arch, unit01.Q8_0, c.tied)
		f := openModel(t, spec)
		got, err := LoadConfig(f, 0)
		if err != nil {
			t.Fatalf("LoadConfig of a generated %s model: %v", c.arch, err)
		}
		want := spec.Config
		want.Vocab, want.Rope, want.QKVBias = len(spec.Vocab.Tokens), c.rope, c.arch == "qwen2"
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("LoadConfig of a generated %s model (-want +got):\n%s(%s uses RoPE %v; qwen2 has q/k/v biases; tied when there is no output.weight)", c.arch, diff, c.arch, c.rope)
		}
		if got, _ := LoadConfig(f, 16); got.MaxSeq != 16 {
			t.Errorf("LoadConfig(f, 16): MaxSeq %d, want 16", got.MaxSeq)
		}
	}
	// Metadata a loader must refuse, each edit of the llama model's KVs.
	spec := tinySpec("llama", unit01.Q8_0, false)
	base := openModel(t, spec)
	bad := []struct {
		name string
		edit func(kvs []KV) []KV
		kind error
		says string
	}{
		{"no architecture", dropKey("general.architecture"), unit00.ErrInvalid, "general.architecture"},
		{"another architecture", setKV("general.architecture", TypeString, "gpt2"), unit00.ErrUnsupported, "gpt2"},
		{"no embedding_length", dropKey("llama.embedding_length"), unit00.ErrInvalid, "llama.embedding_length"},
		{"no block_count", dropKey("llama.block_count"), unit00.ErrInvalid, "llama.block_count"},
		{"no rms epsilon", dropKey("llama.attention.layer_norm_rms_epsilon"), unit00.ErrInvalid, "layer_norm_rms_epsilon"},
		{"partial rotary", setKV("llama.rope.dimension_count", TypeUint32, uint32(16)), unit00.ErrUnsupported, "rope.dimension_count"},
		{"head count not dividing by kv heads", setKV("llama.attention.head_count_kv", TypeUint32, uint32(3)), unit00.ErrInvalid, "head_count_kv"},
	}
	for _, b := range bad {
		f := reparse(t, base, b.edit(append([]KV(nil), base.KV...)))
		_, err := LoadConfig(f, 0)
		if !errors.Is(err, b.kind) || !strings.Contains(fmt.Sprint(err), b.says) {
			t.Errorf("LoadConfig of a file with %s: error %v, want one wrapping %v that mentions %q", b.name, err, b.kind, b.says)
		}
	}
	// Optional keys take llama.cpp's defaults.
	f := reparse(t, base, setKV("llama.rope.freq_base", TypeFloat32, nil)(dropKey("llama.attention.head_count_kv")(append([]KV(nil), base.KV...))))
	if got, err := LoadConfig(f, 0); err != nil || got.KVHeads != got.Heads || got.RopeBase != 10000 {
		t.Errorf("LoadConfig without head_count_kv and rope.freq_base: %+v, %v; want KVHeads = Heads and RopeBase 10000", got, err)
	}
}

// TestC10_4_LoadConfigEdges: values at the edge of what a loader accepts
// are accepted: an expert_count of 0 (a dense model that says so), a
// context_length of 2^31-1 (capped by maxSeq), and a model of one block.
func TestC10_4_LoadConfigEdges(t *testing.T) {
	spec := tinySpec("llama", unit01.Q8_0, false)
	base := openModel(t, spec)
	for _, c := range []struct {
		name string
		edit func([]KV) []KV
		want func(*unit05.Config)
	}{
		{"expert_count 0", setKV("llama.expert_count", TypeUint32, uint32(0)), func(*unit05.Config) {}},
		{"context_length 2^31-1", setKV("llama.context_length", TypeUint32, uint32(math.MaxInt32)), func(*unit05.Config) {}},
	} {
		f := reparse(t, base, c.edit(append([]KV(nil), base.KV...)))
		got, err := LoadConfig(f, 16)
		want := spec.Config
		want.Vocab, want.Rope, want.MaxSeq = len(spec.Vocab.Tokens), unit05.RopeNorm, 16
		if err != nil {
			t.Errorf("LoadConfig(f, 16) of the llama model with %s: %v; that describes a model (0 experts is a dense one; counts up to 2^31-1 are allowed)", c.name, err)
		} else if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("LoadConfig(f, 16) of the llama model with %s (-want +got):\n%s", c.name, diff)
		}
	}
	// maxSeq 1 is a context of one position, not "use the file's".
	if got, err := LoadConfig(base, 1); err != nil || got.MaxSeq != 1 {
		t.Errorf("LoadConfig(f, 1): MaxSeq %d, %v; want 1 (only maxSeq ≤ 0 means the file's context_length)", got.MaxSeq, err)
	}
	one := tinySpec("llama", unit01.Q8_0, false)
	one.Config.Layers = 1
	got, err := LoadConfig(openModel(t, one), 0)
	if err != nil || got.Layers != 1 {
		t.Errorf("LoadConfig of a model of one block (blk.0.* only): Layers %d, %v; want 1 (the file's blocks are one more than the highest N of blk.N)", got.Layers, err)
	}
}

// dropKey and setKV edit a KV list; setKV with a nil value drops the key.
func dropKey(key string) func([]KV) []KV {
	return func(kvs []KV) []KV {
		out := kvs[:0]
		for _, kv := range kvs {
			if kv.Key != key {
				out = append(out, kv)
			}
		}
		return out
	}
}

func setKV(key string, typ ValueType, v any) func([]KV) []KV {
	return func(kvs []KV) []KV {
		kvs = dropKey(key)(kvs)
		if v == nil {
			return kvs
		}
		return append(kvs, KV{Key: key, Type: typ, Value: v})
	}
}

// reparse writes f's tensors with other metadata and parses the result.
func reparse(t *testing.T, f *File, kvs []KV) *File {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, kvs, Tensors(f)); err != nil {
		t.Fatal(err)
	}
	g, err := Parse(buf.Bytes(), "edited.gguf")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestC10_4_LoadWeights binds a generated file and checks every matrix
// against the file's own bytes: its shape, its rows (dequantized by the
// oracle), and, for the quantized ones, that it reads the file in place.
func TestC10_4_LoadWeights(t *testing.T) {
	for _, spec := range []ModelSpec{tinySpec("llama", unit01.Q4_0, false), tinySpec("qwen2", unit01.Q4_K, true), tinySpec("llama", unit01.F32, false)} {
		f := openModel(t, spec)
		c, err := LoadConfig(f, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := LoadWeights(f, c)
		if err != nil {
			t.Fatalf("LoadWeights of a generated %s %v model: %v", spec.Arch, spec.Matrix, err)
		}
		check := func(name string, m unit05.Matrix) {
			info, data, err := f.Tensor(name)
			if err != nil {
				t.Fatal(err)
			}
			out, in := m.Dims()
			if uint64(in) != info.Dims[0] || uint64(out) != info.Dims[1] {
				t.Fatalf("%s: bound as %d×%d, but the file's dims are %v (ne[0] = in, the contiguous one, first)", name, out, in, info.Dims)
			}
			want := oracle.DequantRow(int(info.Type), data)
			row := make([]float32, in)
			for _, r := range []int{0, out / 2, out - 1} {
				m.Row(row, r)
				oracle.AssertBound(t, fmt.Sprintf("%s row %d", name, r), row, want[r*in:(r+1)*in], absBound(want[r*in:(r+1)*in]), nil)
			}
			if info.Type.Quantized() || info.Type == unit01.F16 {
				if !inside(f.Data, data) {
					t.Fatalf("%s: tensor view not inside the file's bytes", name)
				}
			}
		}
		check("token_embd.weight", w.Embed)
		if !c.TiedEmbeddings {
			check("output.weight", w.Output)
		} else if w.Output != w.Embed {
			t.Errorf("a tied model's Output must be its Embed")
		}
		for i := range c.Layers {
			p := fmt.Sprintf("blk.%d.", i)
			l := w.Layers[i]
			for _, m := range []struct {
				n string
				m unit05.Matrix
			}{{"attn_q", l.Wq}, {"attn_k", l.Wk}, {"attn_v", l.Wv}, {"attn_output", l.Wo}, {"ffn_gate", l.Gate}, {"ffn_up", l.Up}, {"ffn_down", l.Down}} {
				check(p+m.n+".weight", m.m)
			}
		}
	}
	// A missing tensor and a mis-shaped one are errors naming them.
	spec := tinySpec("llama", unit01.Q8_0, false)
	f := openModel(t, spec)
	c, _ := LoadConfig(f, 0)
	tensors := Tensors(f)
	var kept []Tensor
	for _, tn := range tensors {
		if tn.Name != "blk.1.ffn_up.weight" {
			kept = append(kept, tn)
		}
	}
	if _, err := LoadWeights(rewrite(t, f, kept), c); !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), "blk.1.ffn_up.weight") {
		t.Errorf("LoadWeights without blk.1.ffn_up.weight: error %v, want one naming the tensor", err)
	}
	swapped := append([]Tensor(nil), tensors...)
	for i, tn := range swapped {
		if tn.Name == "blk.0.attn_k.weight" { // {256, 64} written as {64, 256}: same bytes, dims reversed
			tn.Dims = []uint64{tn.Dims[1], tn.Dims[0]}
			tn.Type, tn.Data = unit01.F32, make([]byte, 4*tn.Dims[0]*tn.Dims[1])
			swapped[i] = tn
		}
	}
	if _, err := LoadWeights(rewrite(t, f, swapped), c); !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), "blk.0.attn_k.weight") {
		t.Errorf("LoadWeights with attn_k's dims reversed: error %v, want one naming the tensor", err)
	}
}

func absBound(want []float64) []float64 {
	b := make([]float64, len(want))
	for i, w := range want {
		b[i] = 4*0x1p-24*abs(w) + 1e-30
	}
	return b
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// inside reports whether view lies within data's memory.
func inside(data, view []byte) bool {
	if len(view) == 0 || len(data) == 0 {
		return false
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	p := uintptr(unsafe.Pointer(&view[0]))
	return p >= lo && p+uintptr(len(view))-1 <= hi
}

func rewrite(t *testing.T, f *File, tensors []Tensor) *File {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f.KV, tensors); err != nil {
		t.Fatal(err)
	}
	g, err := Parse(buf.Bytes(), "edited.gguf")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestC10_4_LoadVocab reads the two real vocabularies of unit04 through
// this package's reader and compares with unit04's own.
func TestC10_4_LoadVocab(t *testing.T) {
	for _, name := range []string{"ggml-vocab-gpt-2.gguf", "ggml-vocab-phi-3.gguf"} {
		path := filepath.Join("..", "unit04", "testdata", name)
		want, err := unit04.LoadVocab(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatalf("Open(%s): %v", name, err)
		}
		got, err := LoadVocab(f)
		f.Close()
		if err != nil {
			t.Fatalf("LoadVocab(%s): %v", name, err)
		}
		if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *want) {
			t.Errorf("LoadVocab(%s) differs from unit04.LoadVocab's reading of the same file", name)
		}
		// The vocabulary outlives the file: nothing may point into the mapping.
		if len(got.Tokens) < 1000 || got.Tokens[999] != want.Tokens[999] {
			t.Errorf("LoadVocab(%s): token 999 is %q after Close, want %q: copy the strings out of the mapping", name, got.Tokens[999], want.Tokens[999])
		}
	}
}

// TestC10_4_LoadVocabMistyped: an optional tokenizer key stored with the
// wrong type is an error naming it, as unit04.ReadVocab says, not a key
// to ignore.
func TestC10_4_LoadVocabMistyped(t *testing.T) {
	base := []KV{
		{Key: "tokenizer.ggml.model", Type: TypeString, Value: "gpt2"},
		{Key: "tokenizer.ggml.tokens", Type: TypeArray, Elem: TypeString, Value: []string{"a", "b", "ab"}},
	}
	for _, bad := range []KV{
		{Key: "tokenizer.ggml.pre", Type: TypeUint32, Value: uint32(1)},
		{Key: "tokenizer.ggml.merges", Type: TypeString, Value: "a b"},
		{Key: "tokenizer.ggml.bos_token_id", Type: TypeString, Value: "1"},
		{Key: "tokenizer.ggml.eos_token_id", Type: TypeInt32, Value: int32(-1)},
		{Key: "tokenizer.ggml.add_bos_token", Type: TypeUint32, Value: uint32(1)},
		{Key: "tokenizer.ggml.add_space_prefix", Type: TypeString, Value: "true"},
		{Key: "tokenizer.ggml.scores", Type: TypeArray, Elem: TypeInt32, Value: []int32{0, 0, 0}},
		{Key: "tokenizer.ggml.token_type", Type: TypeArray, Elem: TypeUint32, Value: []uint32{1, 1, 1}},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, append(append([]KV(nil), base...), bad), nil); err != nil {
			t.Fatal(err)
		}
		f, err := Parse(buf.Bytes(), "mistyped.gguf")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadVocab(f); !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), bad.Key) {
			t.Errorf("LoadVocab with %s stored as %v: %v; want an error wrapping unit00.ErrInvalid that names the key", bad.Key, bad.Value, err)
		}
	}
}

// TestC10_4_VocabLengthsOneSided: in a vocabulary-only file (no
// token_embd), the scores and token types set the length only when both
// are present and equal; otherwise the token list sets it, and the array
// that differs from it is the one named.
func TestC10_4_VocabLengthsOneSided(t *testing.T) {
	tokens := KV{Key: "tokenizer.ggml.tokens", Type: TypeArray, Elem: TypeString, Value: []string{"a", "b", "ab"}}
	scores := func(n int) KV {
		return KV{Key: "tokenizer.ggml.scores", Type: TypeArray, Elem: TypeFloat32, Value: make([]float32, n)}
	}
	types := func(n int) KV {
		return KV{Key: "tokenizer.ggml.token_type", Type: TypeArray, Elem: TypeInt32, Value: slices.Repeat([]int32{1}, n)}
	}
	for _, c := range []struct {
		what  string
		kvs   []KV
		names string // the array the error names, with its length
	}{
		{"3 tokens, 4 scores, no token types", []KV{tokens, scores(4)}, "tokenizer.ggml.scores has 4"},
		{"3 tokens, 4 scores, 5 token types", []KV{tokens, scores(4), types(5)}, "tokenizer.ggml.scores has 4"},
		{"3 tokens, no scores, 4 token types", []KV{tokens, types(4)}, "tokenizer.ggml.token_type has 4"},
		{"3 tokens, 4 scores, 4 token types", []KV{tokens, scores(4), types(4)}, "tokenizer.ggml.tokens has 3"},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, append([]KV{{Key: "tokenizer.ggml.model", Type: TypeString, Value: "llama"}}, c.kvs...), nil); err != nil {
			t.Fatal(err)
		}
		f, err := Parse(buf.Bytes(), "lengths.gguf")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadVocab(f); !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), c.names) {
			t.Errorf("LoadVocab with %s: %v; want an error wrapping unit00.ErrInvalid that says %q", c.what, err, c.names)
		}
	}
}

// TestC10_4_VocabIDs: a special token id must name one of the tokens; the
// last token is one, the count of tokens is not.
func TestC10_4_VocabIDs(t *testing.T) {
	tokens := KV{Key: "tokenizer.ggml.tokens", Type: TypeArray, Elem: TypeString, Value: []string{"a", "b", "ab"}}
	for _, key := range []string{"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.unknown_token_id"} {
		for _, id := range []uint32{2, 3} {
			var buf bytes.Buffer
			kvs := []KV{{Key: "tokenizer.ggml.model", Type: TypeString, Value: "gpt2"}, tokens, {Key: key, Type: TypeUint32, Value: id}}
			if err := Write(&buf, kvs, nil); err != nil {
				t.Fatal(err)
			}
			f, err := Parse(buf.Bytes(), "ids.gguf")
			if err != nil {
				t.Fatal(err)
			}
			v, err := LoadVocab(f)
			ids := func() map[string]int {
				return map[string]int{"tokenizer.ggml.bos_token_id": v.BOS, "tokenizer.ggml.eos_token_id": v.EOS, "tokenizer.ggml.unknown_token_id": v.UNK}
			}
			want := map[string]int{"tokenizer.ggml.bos_token_id": -1, "tokenizer.ggml.eos_token_id": -1, "tokenizer.ggml.unknown_token_id": -1}
			want[key] = 2
			switch {
			case id == 2 && err != nil:
				t.Errorf("LoadVocab with %s = 2 of 3 tokens: %v; the last token is a token", key, err)
			case id == 2 && gocmp.Diff(want, ids()) != "":
				t.Errorf("LoadVocab with %s = 2: BOS %d, EOS %d, UNK %d; want 2 for that id and -1 for the absent ones", key, v.BOS, v.EOS, v.UNK)
			case id == 3 && (!errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), key)):
				t.Errorf("LoadVocab with %s = 3 of 3 tokens (ids 0 to 2): error %v; want one wrapping unit00.ErrInvalid that names the key", key, err)
			}
		}
	}
}

// TestC10_4_Load loads a generated model end to end and runs it.
func TestC10_4_Load(t *testing.T) {
	path := writeModel(t, tinySpec("qwen2", unit01.Q4_0, true))
	m, err := Load(path, 32, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	defer m.Close()
	ids := m.Tokenizer.Encode("the rat ate", unit04.EncodeOptions{})
	if len(ids) == 0 {
		t.Fatalf("the loaded tokenizer encodes %q as nothing", "the rat ate")
	}
	logits := unit03.NewMat(len(ids), m.Model.Config.Vocab)
	if err := m.Model.Forward(logits, ids); err != nil {
		t.Fatalf("Forward on the loaded model: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.gguf"), 32, nil); err == nil {
		t.Errorf("Load of a missing file returned no error")
	}
}

// TestC10_4_RopeFactors: a Llama 3 file's rope_freqs tensor, and linear
// RoPE scaling, become Config.RopeFactors as llama.cpp applies them.
func TestC10_4_RopeFactors(t *testing.T) {
	// The given Llama3RopeFactors, by hand: a head of 8 at base 10⁴ has
	// wavelengths 2π·10^i (6.3, 62.8, 628, 6283); with a context of 64 and
	// frequency factors 1 and 4 the first is short (< 16: 1), the last two
	// long (> 64: the factor 8), and 62.8 is interpolated with smooth =
	// (64/62.83 − 1)/3 = 0.0062, 1/((1 − smooth)/8 + smooth) = 7.6674.
	if got := Llama3RopeFactors(8, 10000, 8, 1, 4, 64); len(got) != 4 || got[0] != 1 || math.Abs(float64(got[1])-7.6674) > 1e-3 || got[2] != 8 || got[3] != 8 {
		t.Errorf("Llama3RopeFactors(8, 10000, 8, 1, 4, 64) = %v; want [1 7.6674 8 8]", got)
	}
	spec := tinySpec("llama", unit01.Q8_0, false)
	half := spec.Config.HeadDim / 2
	spec.Config.RopeFactors = make([]float32, half)
	for i := range half { // 1 … 32, as Llama 3.2's
		spec.Config.RopeFactors[i] = 1 + 31*float32(i*i)/float32((half-1)*(half-1))
	}
	withFactors := openModel(t, spec)
	plain := openModel(t, tinySpec("llama", unit01.Q8_0, false))
	times := func(f []float32, s float32) []float32 {
		out := make([]float32, half)
		for i := range out {
			out[i] = s
			if f != nil {
				out[i] *= f[i]
			}
		}
		return out
	}
	str := func(k, v string) func([]KV) []KV { return setKV(k, TypeString, v) }
	f32 := func(k string, v float32) func([]KV) []KV { return setKV(k, TypeFloat32, v) }
	for _, c := range []struct {
		name string
		file *File
		edit func([]KV) []KV
		want []float32
	}{
		{"no rope_freqs, no scaling", plain, nil, nil},
		{"rope_freqs", withFactors, nil, spec.Config.RopeFactors},
		{"rope.scaling.type linear, factor 4", plain, func(kvs []KV) []KV {
			return f32("llama.rope.scaling.factor", 4)(str("llama.rope.scaling.type", "linear")(kvs))
		}, times(nil, 4)},
		{"rope.scaling.factor 4 (linear when no type is given)", plain, f32("llama.rope.scaling.factor", 4), times(nil, 4)},
		{"rope.scale_linear 2 (the older key)", plain, f32("llama.rope.scale_linear", 2), times(nil, 2)},
		{"rope.scale_linear 0 and rope.scaling.factor 3", plain, func(kvs []KV) []KV {
			return f32("llama.rope.scale_linear", 0)(f32("llama.rope.scaling.factor", 3)(kvs))
		}, times(nil, 3)},
		{"rope.scaling.factor 0 (none)", plain, f32("llama.rope.scaling.factor", 0), nil},
		{"rope.scaling.factor 1", plain, f32("llama.rope.scaling.factor", 1), nil},
		{"rope.scaling.type none, factor 4", plain, func(kvs []KV) []KV {
			return f32("llama.rope.scaling.factor", 4)(str("llama.rope.scaling.type", "none")(kvs))
		}, nil},
		{"rope_freqs and rope.scaling.factor 2", withFactors, f32("llama.rope.scaling.factor", 2), times(spec.Config.RopeFactors, 2)},
		{"rope.scale_linear 2 and rope.scaling.factor 3 (the older key first)", plain, func(kvs []KV) []KV {
			return f32("llama.rope.scale_linear", 2)(f32("llama.rope.scaling.factor", 3)(kvs))
		}, times(nil, 2)},
	} {
		f := c.file
		if c.edit != nil {
			f = reparse(t, f, c.edit(append([]KV(nil), f.KV...)))
		}
		got, err := LoadConfig(f, 0)
		if err != nil {
			t.Errorf("LoadConfig of a llama file with %s: %v", c.name, err)
			continue
		}
		if diff := gocmp.Diff(c.want, got.RopeFactors); diff != "" {
			t.Errorf("LoadConfig of a llama file with %s: RopeFactors (-want +got):\n%s(rope_freqs.weight holds one factor per pair; a linear scaling factor multiplies every pair's, type \"none\" ignores it)", c.name, diff)
		}
	}
	// A rope_freqs tensor that is not one positive factor per pair.
	tensor := func(dims []uint64, dt unit01.DType, values []float32) []Tensor {
		ts := Tensors(plain)
		var data []byte
		for _, v := range values {
			switch dt {
			case unit01.F16:
				data = binary.LittleEndian.AppendUint16(data, unit01.F32ToF16(v))
			default:
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
			}
		}
		return append(ts, Tensor{Name: "rope_freqs.weight", Dims: dims, Type: dt, Data: data})
	}
	ones := times(nil, 1)
	withZero, withNaN, withInf := times(nil, 1), times(nil, 1), times(nil, 1)
	withZero[half-1], withNaN[0], withInf[3] = 0, float32(math.NaN()), float32(math.Inf(1))
	negative := times(nil, -2)
	h := uint64(half)
	for _, b := range []struct {
		name    string
		tensors []Tensor
	}{
		{"one factor too few", tensor([]uint64{h - 1}, unit01.F32, ones[1:])},
		{"one factor too many", tensor([]uint64{h + 1}, unit01.F32, append(ones, 1))},
		{"two dimensions", tensor([]uint64{h, 1}, unit01.F32, ones)},
		{"a zero factor", tensor([]uint64{h}, unit01.F32, withZero)},
		{"a NaN factor", tensor([]uint64{h}, unit01.F32, withNaN)},
		{"an infinite factor", tensor([]uint64{h}, unit01.F32, withInf)},
		{"negative factors", tensor([]uint64{h}, unit01.F32, negative)},
		{"F16 factors (ggml's RoPE takes F32 only)", tensor([]uint64{h}, unit01.F16, ones)},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, plain.KV, b.tensors); err != nil {
			t.Fatal(err)
		}
		f, err := Parse(buf.Bytes(), "rope.gguf")
		if err != nil {
			t.Fatal(err)
		}
		_, err = LoadConfig(f, 0)
		if !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), "rope_freqs") {
			t.Errorf("LoadConfig of a file whose rope_freqs.weight has %s: error %v, want one wrapping unit00.ErrInvalid that names rope_freqs.weight", b.name, err)
		}
	}
	// Factors of 0.25 scaled by 1e-45 underflow to 0: no factor at all.
	var buf bytes.Buffer
	if err := Write(&buf, f32("llama.rope.scaling.factor", 1e-45)(append([]KV(nil), plain.KV...)), tensor([]uint64{h}, unit01.F32, times(nil, 0.25))); err != nil {
		t.Fatal(err)
	}
	if f, err := Parse(buf.Bytes(), "tiny-scale.gguf"); err != nil {
		t.Fatal(err)
	} else if _, err := LoadConfig(f, 0); !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), "rope.scaling.factor") {
		t.Errorf("LoadConfig of a file whose rope_freqs of 0.25 are scaled by rope.scaling.factor 1e-45: error %v, want one wrapping unit00.ErrInvalid that names rope.scaling.factor (the product underflows to 0)", err)
	}
	// Scaling keys a loader must refuse, or whose value is not a scale.
	for _, b := range []struct {
		name string
		edit func([]KV) []KV
		kind error
		says string
	}{
		{"rope.scaling.type dynamic", str("llama.rope.scaling.type", "dynamic"), unit00.ErrUnsupported, "dynamic"},
		{"rope.scaling.type longrope", str("llama.rope.scaling.type", "longrope"), unit00.ErrUnsupported, "longrope"},
		{"rope.scaling.type as a number", setKV("llama.rope.scaling.type", TypeUint32, uint32(1)), unit00.ErrInvalid, "rope.scaling.type"},
		{"rope.scaling.factor −2", f32("llama.rope.scaling.factor", -2), unit00.ErrInvalid, "rope.scaling.factor"},
		{"rope.scaling.factor −0.5", f32("llama.rope.scaling.factor", -0.5), unit00.ErrInvalid, "rope.scaling.factor"},
		{"rope.scaling.factor NaN", f32("llama.rope.scaling.factor", float32(math.NaN())), unit00.ErrInvalid, "rope.scaling.factor"},
		{"rope.scaling.factor +Inf", f32("llama.rope.scaling.factor", float32(math.Inf(1))), unit00.ErrInvalid, "rope.scaling.factor"},
		{"rope.scale_linear as a string", str("llama.rope.scale_linear", "2"), unit00.ErrInvalid, "rope.scale_linear"},
		{"rope.scaling.factor 1e38 on top of rope_freqs up to 32", nil, unit00.ErrInvalid, "rope.scaling.factor"},
	} {
		base := plain
		edit := b.edit
		if edit == nil {
			base, edit = withFactors, f32("llama.rope.scaling.factor", 1e38)
		}
		f := reparse(t, base, edit(append([]KV(nil), base.KV...)))
		_, err := LoadConfig(f, 0)
		if !errors.Is(err, b.kind) || !strings.Contains(fmt.Sprint(err), b.says) {
			t.Errorf("LoadConfig of a llama file with %s: error %v, want one wrapping %v that mentions %q", b.name, err, b.kind, b.says)
		}
	}
}

// TestC10_4_Yarn: rope.scaling.type "yarn" becomes Config.Yarn as llama.cpp
// reads it for these architectures: the factor, the original context
// (context_length when absent or 0), attn_factor, and ggml's betas.
func TestC10_4_Yarn(t *testing.T) {
	spec := tinySpec("qwen2", unit01.Q8_0, true)
	spec.Config.Yarn = unit05.NewYarn(4, 16)
	spec.Config.Yarn.AttnFactor = 0.75
	got, err := LoadConfig(openModel(t, spec), 32)
	if err != nil {
		t.Fatalf("LoadConfig of a generated qwen2 file with YaRN: %v", err)
	}
	if diff := gocmp.Diff(spec.Config.Yarn, got.Yarn); diff != "" || got.RopeFactors != nil || got.MaxSeq != 32 {
		t.Errorf("LoadConfig of a qwen2 file with YaRN factor 4 over 16, attn_factor 0.75: Yarn (-want +got):\n%sRopeFactors %v (want nil: a YaRN factor is not a linear one), MaxSeq %d (want 32)", diff, got.RopeFactors, got.MaxSeq)
	}
	spec.Config.Yarn.BetaFast = 16
	if err := Generate(io.Discard, spec); err == nil {
		t.Errorf("Generate of a YaRN with BetaFast 16 returned no error; llama.cpp reads no beta key for qwen2, so the file could not say it")
	}

	str := func(k, v string) func([]KV) []KV { return setKV(k, TypeString, v) }
	f32 := func(k string, v float32) func([]KV) []KV { return setKV(k, TypeFloat32, v) }
	u32 := func(k string, v uint32) func([]KV) []KV { return setKV(k, TypeUint32, v) }
	both := func(a, b func([]KV) []KV) func([]KV) []KV { return func(kvs []KV) []KV { return b(a(kvs)) } }
	yarnType := str("llama.rope.scaling.type", "yarn")
	plain := openModel(t, tinySpec("llama", unit01.Q8_0, false)) // context_length 64
	factorsSpec := tinySpec("llama", unit01.Q8_0, false)
	factorsSpec.Config.RopeFactors = []float32{1, 1, 2, 2, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}
	withFactors := openModel(t, factorsSpec)
	yarn := func(s float64, orig int, attn float64) *unit05.Yarn {
		y := unit05.NewYarn(s, orig)
		y.AttnFactor = attn
		return y
	}
	for _, c := range []struct {
		name    string
		file    *File
		edit    func([]KV) []KV
		want    *unit05.Yarn
		factors []float32
	}{
		{"type yarn, factor 4, original_context_length 16", plain, both(yarnType, both(f32("llama.rope.scaling.factor", 4), u32("llama.rope.scaling.original_context_length", 16))), yarn(4, 16, 1), nil},
		{"type yarn, factor 4, no original_context_length (context_length 64, whatever maxSeq is)", plain, both(yarnType, f32("llama.rope.scaling.factor", 4)), yarn(4, 64, 1), nil},
		{"type yarn, factor 4, original_context_length 2³¹−1, the most an int32 holds", plain, both(yarnType, both(f32("llama.rope.scaling.factor", 4), u32("llama.rope.scaling.original_context_length", math.MaxInt32))), yarn(4, math.MaxInt32, 1), nil},
		{"type yarn, factor 4, original_context_length 0 (llama.cpp: context_length)", plain, both(yarnType, both(f32("llama.rope.scaling.factor", 4), u32("llama.rope.scaling.original_context_length", 0))), yarn(4, 64, 1), nil},
		{"type yarn, no factor (1)", plain, yarnType, yarn(1, 64, 1), nil},
		{"type yarn, rope.scale_linear 2 (the older key)", plain, both(yarnType, f32("llama.rope.scale_linear", 2)), yarn(2, 64, 1), nil},
		{"type yarn, factor 8, attn_factor 1.5", plain, both(yarnType, both(f32("llama.rope.scaling.factor", 8), f32("llama.rope.scaling.attn_factor", 1.5))), yarn(8, 64, 1.5), nil},
		{"type yarn, factor 4, yarn_beta_fast 8 and yarn_beta_slow 2 (llama.cpp reads neither for llama)", plain,
			both(both(yarnType, f32("llama.rope.scaling.factor", 4)), both(f32("llama.rope.scaling.yarn_beta_fast", 8), f32("llama.rope.scaling.yarn_beta_slow", 2))), yarn(4, 64, 1), nil},
		{"rope_freqs and type yarn, factor 4 (the factors stay as they are)", withFactors, both(yarnType, f32("llama.rope.scaling.factor", 4)), yarn(4, 64, 1), factorsSpec.Config.RopeFactors},
		{"type linear, factor 4, attn_factor 1", plain, both(str("llama.rope.scaling.type", "linear"), both(f32("llama.rope.scaling.factor", 4), f32("llama.rope.scaling.attn_factor", 1))), nil, []float32{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}},
		{"original_context_length without type yarn", plain, u32("llama.rope.scaling.original_context_length", 16), nil, nil},
	} {
		f := reparse(t, c.file, c.edit(append([]KV(nil), c.file.KV...)))
		got, err := LoadConfig(f, 32)
		if err != nil {
			t.Errorf("LoadConfig of a llama file with %s: %v", c.name, err)
			continue
		}
		if diff := gocmp.Diff(c.want, got.Yarn); diff != "" {
			t.Errorf("LoadConfig of a llama file with %s: Yarn (-want +got):\n%s", c.name, diff)
		}
		if diff := gocmp.Diff(c.factors, got.RopeFactors); diff != "" {
			t.Errorf("LoadConfig of a llama file with %s: RopeFactors (-want +got):\n%s", c.name, diff)
		}
	}
	for _, b := range []struct {
		name string
		edit func([]KV) []KV
		kind error
		says string
	}{
		{"type yarn, factor 0.5 (YaRN does not shorten)", both(yarnType, f32("llama.rope.scaling.factor", 0.5)), unit00.ErrInvalid, "rope.scaling.factor"},
		{"type yarn, original_context_length as a string", both(yarnType, str("llama.rope.scaling.original_context_length", "16")), unit00.ErrInvalid, "rope.scaling.original_context_length"},
		{"type yarn, original_context_length −16", both(yarnType, setKV("llama.rope.scaling.original_context_length", TypeInt32, int32(-16))), unit00.ErrInvalid, "rope.scaling.original_context_length"},
		{"type yarn, original_context_length 2⁴⁰", both(yarnType, setKV("llama.rope.scaling.original_context_length", TypeUint64, uint64(1)<<40)), unit00.ErrInvalid, "rope.scaling.original_context_length"},
		{"type yarn, original_context_length 2³¹", both(yarnType, setKV("llama.rope.scaling.original_context_length", TypeUint64, uint64(1)<<31)), unit00.ErrInvalid, "rope.scaling.original_context_length"},
		{"type yarn, attn_factor 0", both(yarnType, f32("llama.rope.scaling.attn_factor", 0)), unit00.ErrInvalid, "rope.scaling.attn_factor"},
		{"type yarn, attn_factor −1", both(yarnType, f32("llama.rope.scaling.attn_factor", -1)), unit00.ErrInvalid, "rope.scaling.attn_factor"},
		{"type yarn, attn_factor NaN", both(yarnType, f32("llama.rope.scaling.attn_factor", float32(math.NaN()))), unit00.ErrInvalid, "rope.scaling.attn_factor"},
		{"type yarn, attn_factor +Inf", both(yarnType, f32("llama.rope.scaling.attn_factor", float32(math.Inf(1)))), unit00.ErrInvalid, "rope.scaling.attn_factor"},
		{"type yarn, attn_factor as a string", both(yarnType, str("llama.rope.scaling.attn_factor", "1")), unit00.ErrInvalid, "rope.scaling.attn_factor"},
		{"attn_factor 0.5 and no type (linear)", f32("llama.rope.scaling.attn_factor", 0.5), unit00.ErrUnsupported, "rope.scaling.attn_factor"},
		{"attn_factor 2 and type none", both(str("llama.rope.scaling.type", "none"), f32("llama.rope.scaling.attn_factor", 2)), unit00.ErrUnsupported, "rope.scaling.attn_factor"},
		{"type longrope, factor 4", both(str("llama.rope.scaling.type", "longrope"), f32("llama.rope.scaling.factor", 4)), unit00.ErrUnsupported, "longrope"},
	} {
		f := reparse(t, plain, b.edit(append([]KV(nil), plain.KV...)))
		_, err := LoadConfig(f, 0)
		if !errors.Is(err, b.kind) || !strings.Contains(fmt.Sprint(err), b.says) {
			t.Errorf("LoadConfig of a llama file with %s: error %v, want one wrapping %v that mentions %q", b.name, err, b.kind, b.says)
		}
	}
}
