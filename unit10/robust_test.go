package unit10

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// A crafted model is the tiny llama model with its metadata or tensors
// edited the way a broken converter or a hostile file would have them.
type crafted struct {
	name    string
	kvs     func([]KV) []KV
	tensors func([]Tensor) []Tensor
	kind    error
	says    []string // what the message must name, besides the file
}

// setU32 sets an integer key; setF32 a float one.
func setU32(key string, v uint64) func([]KV) []KV {
	if v > math.MaxUint32 {
		return setKV(key, TypeUint64, v)
	}
	return setKV(key, TypeUint32, uint32(v))
}

func setF32(key string, v float32) func([]KV) []KV { return setKV(key, TypeFloat32, v) }

// cutArray keeps the first n entries of an array key.
func cutArray(key string, n int) func([]KV) []KV {
	return func(kvs []KV) []KV {
		for i, kv := range kvs {
			if kv.Key != key {
				continue
			}
			switch v := kv.Value.(type) {
			case []string:
				kvs[i].Value = v[:n]
			case []int32:
				kvs[i].Value = v[:n]
			case []float32:
				kvs[i].Value = v[:n]
			}
		}
		return kvs
	}
}

func both(a, b func([]KV) []KV) func([]KV) []KV {
	return func(kvs []KV) []KV { return b(a(kvs)) }
}

// stackExperts turns blk.0.ffn_gate.weight into the stacked experts of a
// mixture-of-experts file (Mixtral's blk.0.ffn_gate_exps.weight, dims
// {Dim, FFN, experts}).
func stackExperts(ts []Tensor) []Tensor {
	for i, t := range ts {
		if t.Name == "blk.0.ffn_gate.weight" {
			ts[i] = Tensor{Name: "blk.0.ffn_gate_exps.weight", Dims: append(t.Dims, 2), Type: t.Type,
				Data: append(append([]byte(nil), t.Data...), t.Data...)}
		}
	}
	return ts
}

// dropTensors removes the tensors whose names start with prefix.
func dropTensors(prefix string) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		var out []Tensor
		for _, t := range ts {
			if !strings.HasPrefix(t.Name, prefix) {
				out = append(out, t)
			}
		}
		return out
	}
}

// addTensors adds small F32 tensors under the given names.
func addTensors(names ...string) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		for _, n := range names {
			ts = append(ts, Tensor{Name: n, Dims: []uint64{8}, Type: unit01.F32, Data: make([]byte, 32)})
		}
		return ts
	}
}

func both2(a, b func([]Tensor) []Tensor) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor { return b(a(ts)) }
}

// flatten makes the named tensor one-dimensional (the same bytes).
func flatten(name string) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		for i, t := range ts {
			if t.Name == name {
				n := uint64(1)
				for _, d := range t.Dims {
					n *= d
				}
				ts[i].Dims = []uint64{n}
			}
		}
		return ts
	}
}

// quantizeNorm stores the named F32 vector as Q8_0 blocks (of zeros): a
// valid tensor of the right dims, in a type a norm cannot have.
func quantizeNorm(name string) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		for i, t := range ts {
			if t.Name == name {
				ts[i] = Tensor{Name: name, Dims: t.Dims, Type: unit01.Q8_0, Data: make([]byte, t.Dims[0]/32*34)}
			}
		}
		return ts
	}
}

// retype gives the named tensor type dt, whose blocks of blockElems
// elements take blockBytes bytes, with zero bytes of the size its dims
// then need: a well-formed tensor of a type the loader must refuse.
func retype(name string, dt unit01.DType, blockBytes, blockElems int) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		for i, t := range ts {
			if t.Name == name {
				n := 1
				for _, d := range t.Dims {
					n *= int(d)
				}
				ts[i] = Tensor{Name: name, Dims: t.Dims, Type: dt, Data: make([]byte, n/blockElems*blockBytes)}
			}
		}
		return ts
	}
}

func craftedModels() []crafted {
	const a = "llama."
	inv, uns := unit00.ErrInvalid, unit00.ErrUnsupported
	return []crafted{
		// The heads, in the order they depend on each other: head_count
		// divides the embedding, head_count_kv divides head_count, the
		// rotary dimension is the head width.
		{name: "head_count 0", kvs: setU32(a+"attention.head_count", 0), kind: inv, says: []string{"head_count = 0"}},
		{name: "head_count 3 (does not divide 256)", kvs: setU32(a+"attention.head_count", 3), kind: inv, says: []string{"head_count = 3", "embedding_length = 256"}},
		{name: "head_count_kv 0", kvs: setU32(a+"attention.head_count_kv", 0), kind: inv, says: []string{"head_count_kv = 0"}},
		{name: "head_count_kv 3 (does not divide 8)", kvs: setU32(a+"attention.head_count_kv", 3), kind: inv, says: []string{"head_count_kv = 3", "head_count = 8"}},
		{name: "rope.dimension_count 16 (partial rotary)", kvs: setU32(a+"rope.dimension_count", 16), kind: uns, says: []string{"rope.dimension_count = 16"}},
		{name: "rope.dimension_count 64 (wider than a head)", kvs: setU32(a+"rope.dimension_count", 64), kind: inv, says: []string{"rope.dimension_count = 64"}},
		{name: "rope.dimension_count 0", kvs: setU32(a+"rope.dimension_count", 0), kind: inv, says: []string{"rope.dimension_count = 0"}},
		{name: "rope.dimension_count stored as a STRING", kvs: setKV(a+"rope.dimension_count", TypeString, "32"), kind: inv, says: []string{"rope.dimension_count"}},
		{name: "head_count 256 (a head width of 1, odd)", kvs: both(setU32(a+"attention.head_count", 256), dropKey(a+"rope.dimension_count")), kind: inv, says: []string{"head width 1", "odd"}},
		// Counts that describe no model.
		{name: "embedding_length 0", kvs: setU32(a+"embedding_length", 0), kind: inv, says: []string{"embedding_length = 0"}},
		{name: "embedding_length 2^40", kvs: setU32(a+"embedding_length", 1<<40), kind: inv, says: []string{"embedding_length = 1099511627776"}},
		{name: "block_count 0", kvs: setU32(a+"block_count", 0), kind: inv, says: []string{"block_count = 0", "at least one block"}},
		{name: "block_count 1e9", kvs: setU32(a+"block_count", 1e9), kind: inv, says: []string{"block_count = 1000000000", "2 blocks"}},
		{name: "block_count 1 (the file has 2)", kvs: setU32(a+"block_count", 1), kind: inv, says: []string{"block_count = 1", "2 blocks", "blk.1)"}},
		{name: "feed_forward_length 0", kvs: setU32(a+"feed_forward_length", 0), kind: inv, says: []string{"feed_forward_length = 0"}},
		{name: "context_length 0", kvs: setU32(a+"context_length", 0), kind: inv, says: []string{"context_length = 0"}},
		{name: "no layer_norm_rms_epsilon", kvs: dropKey(a + "attention.layer_norm_rms_epsilon"), kind: inv, says: []string{"no metadata key", "layer_norm_rms_epsilon"}},
		{name: "no token_embd.weight", tensors: dropTensors("token_embd.weight"), kind: inv, says: []string{`no tensor named "token_embd.weight"`}},
		{name: "layer_norm_rms_epsilon 0", kvs: setF32(a+"attention.layer_norm_rms_epsilon", 0), kind: inv, says: []string{"layer_norm_rms_epsilon = 0"}},
		{name: "rope.freq_base -1", kvs: setF32(a+"rope.freq_base", -1), kind: inv, says: []string{"rope.freq_base = -1"}},
		{name: "rope.freq_base NaN", kvs: setF32(a+"rope.freq_base", float32(math.NaN())), kind: inv, says: []string{"rope.freq_base = NaN"}},
		{name: "rope.freq_base +Inf", kvs: setF32(a+"rope.freq_base", float32(math.Inf(1))), kind: inv, says: []string{"rope.freq_base = +Inf"}},
		// Tensors that cannot be what their names say.
		{name: "no block tensors", tensors: dropTensors("blk."), kind: inv, says: []string{"block_count = 2", "no block tensors"}},
		{name: "token_embd.weight of 1 dimension", tensors: flatten("token_embd.weight"), kind: inv, says: []string{"token_embd.weight has 1 dimensions"}},
		{name: "output_norm.weight stored as Q8_0", tensors: quantizeNorm("output_norm.weight"), kind: uns, says: []string{"output_norm.weight", "Q8_0"}},
		{name: "blk.0.attn_q.weight stored as Q2_K (a ggml type this engine does not multiply)", tensors: retype("blk.0.attn_q.weight", unit01.DType(10), 84, 256), kind: uns, says: []string{"blk.0.attn_q.weight"}},
		{name: "output_norm.weight stored as F64 (a ggml type, but no norm's)", tensors: retype("output_norm.weight", unit01.DType(28), 8, 1), kind: uns, says: []string{"output_norm.weight"}},
		// The vocabulary: the array whose length is wrong is the one named.
		{name: "tokens cut to 100", kvs: cutArray("tokenizer.ggml.tokens", 100), kind: inv, says: []string{"tokenizer.ggml.tokens has 100", "300"}},
		{name: "tokens and token types cut to 280", kvs: both(cutArray("tokenizer.ggml.tokens", 280), cutArray("tokenizer.ggml.token_type", 280)), kind: inv, says: []string{"tokenizer.ggml.tokens has 280", "300"}},
		{name: "token types cut to 100", kvs: cutArray("tokenizer.ggml.token_type", 100), kind: inv, says: []string{"tokenizer.ggml.token_type has 100", "300"}},
		{name: "no tokens", kvs: cutArray("tokenizer.ggml.tokens", 0), kind: inv, says: []string{"tokenizer.ggml.tokens"}},
		{name: "no tokenizer.ggml.tokens key", kvs: dropKey("tokenizer.ggml.tokens"), kind: inv, says: []string{"no metadata key", "tokenizer.ggml.tokens"}},
		{name: "no tokenizer.ggml.model key", kvs: dropKey("tokenizer.ggml.model"), kind: inv, says: []string{"no metadata key", "tokenizer.ggml.model"}},
		// Tensors whose names only look like blocks do not count as one;
		// two missing tensors: the first LoadWeights asks for is named.
		{name: "blk.0.attn_q.weight missing, and stray tensors blk.7, 9.weight and blk.x.weight", tensors: both2(addTensors("blk.7", "9.weight", "blk.x.weight"), dropTensors("blk.0.attn_q.weight")), kind: inv, says: []string{"blk.0.attn_q.weight"}},
		{name: "blk.0.attn_q.weight and blk.0.ffn_down.weight missing", tensors: both2(dropTensors("blk.0.attn_q.weight"), dropTensors("blk.0.ffn_down.weight")), kind: inv, says: []string{"blk.0.attn_q.weight"}},
		// An error of the tokenizer itself names the file too.
		{name: "tokenizer model bert", kvs: setKV("tokenizer.ggml.model", TypeString, "bert"), kind: uns, says: []string{`"bert"`}},
	}
}

// TestC10_4_BadModels loads crafted models: each must be an error of the
// right kind that names the file and the key or tensor at fault with its
// value, never a panic and never a message about something else (a
// head_count of 3 is not a partial-rotary RoPE, a token list cut short is
// not the token types' fault).
func TestC10_4_BadModels(t *testing.T) {
	spec := tinySpec("llama", unit01.Q8_0, false)
	base := openModel(t, spec)
	dir := t.TempDir()
	for i, c := range craftedModels() {
		kvs, tensors := append([]KV(nil), base.KV...), Tensors(base)
		if c.kvs != nil {
			kvs = c.kvs(kvs)
		}
		if c.tensors != nil {
			tensors = c.tensors(tensors)
		}
		var buf bytes.Buffer
		if err := Write(&buf, kvs, tensors); err != nil {
			t.Fatalf("%s: Write: %v", c.name, err)
		}
		path := filepath.Join(dir, fmt.Sprintf("crafted-%d.gguf", i))
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		err := loadNoPanic(t, c.name, path)
		if err == nil {
			t.Errorf("Load of a model with %s: no error", c.name)
			continue
		}
		missing := []string{}
		for _, s := range append([]string{path}, c.says...) {
			if !strings.Contains(err.Error(), s) {
				missing = append(missing, fmt.Sprintf("%q", s))
			}
		}
		if !errors.Is(err, c.kind) || len(missing) > 0 {
			t.Errorf("Load of a model with %s:\n  error %v\n  want one wrapping %v that names %s", c.name, err, c.kind, strings.Join(missing, " and "))
		}
	}
}

// loadNoPanic loads path and returns Load's error, reporting a panic as a
// test failure (a TODO panic goes on: the challenge is not written yet).
func loadNoPanic(t *testing.T, name, path string) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			if s, ok := p.(string); ok && strings.HasPrefix(s, "TODO(") {
				panic(p)
			}
			t.Errorf("Load of a model with %s panicked: %v (bad input is an error, never a panic)", name, p)
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	m, err := Load(path, 0, nil)
	if m != nil {
		m.Close()
	}
	return err
}

// TestC10_4_VocabLengths: in a vocabulary-only file (no token_embd.weight
// to count the tokens), the token list that disagrees with both the scores
// and the token types is the one named.
func TestC10_4_VocabLengths(t *testing.T) {
	kvs := []KV{
		{Key: "tokenizer.ggml.model", Type: TypeString, Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Type: TypeArray, Elem: TypeString, Value: []string{"<unk>", "a"}},
		{Key: "tokenizer.ggml.scores", Type: TypeArray, Elem: TypeFloat32, Value: []float32{0, -1, -2}},
		{Key: "tokenizer.ggml.token_type", Type: TypeArray, Elem: TypeInt32, Value: []int32{2, 1, 1}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, kvs, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(buf.Bytes(), "vocab.gguf")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadVocab(f)
	if !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), "vocab.gguf") || !strings.Contains(fmt.Sprint(err), "tokenizer.ggml.tokens has 2") {
		t.Errorf("LoadVocab of 2 tokens with 3 scores and 3 token types: error %v, want one wrapping unit00.ErrInvalid that names the file and says tokenizer.ggml.tokens has 2 entries where the other arrays have 3", err)
	}
	// A token_embd.weight that is not a matrix has no row count to compare
	// with: the arrays decide, and three of everything is a vocabulary.
	buf.Reset()
	vector := Tensor{Name: "token_embd.weight", Dims: []uint64{8}, Type: unit01.F32, Data: make([]byte, 32)}
	if err := Write(&buf, append(kvs[:1:1], KV{Key: "tokenizer.ggml.tokens", Type: TypeArray, Elem: TypeString, Value: []string{"<unk>", "a", "b"}}, kvs[2], kvs[3]), []Tensor{vector}); err != nil {
		t.Fatal(err)
	}
	if f, err = Parse(buf.Bytes(), "vocab.gguf"); err != nil {
		t.Fatal(err)
	}
	if v, err := LoadVocab(f); err != nil || len(v.Tokens) != 3 {
		t.Errorf("LoadVocab of 3 tokens, 3 scores and 3 token types beside a 1-D token_embd.weight: %v; want the 3 tokens (only a 2-D token_embd.weight has a row count to check them against)", err)
	}
	// No tokens and nothing to compare them with: every length agrees (all
	// 0), and still there is no vocabulary.
	buf.Reset()
	if err := Write(&buf, []KV{
		{Key: "tokenizer.ggml.model", Type: TypeString, Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Type: TypeArray, Elem: TypeString, Value: []string{}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if f, err = Parse(buf.Bytes(), "vocab.gguf"); err != nil {
		t.Fatal(err)
	}
	if _, err = LoadVocab(f); !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(fmt.Sprint(err), "tokenizer.ggml.tokens") {
		t.Errorf("LoadVocab of an empty tokenizer.ggml.tokens and no other array: error %v, want one wrapping unit00.ErrInvalid that names tokenizer.ggml.tokens: a vocabulary has at least one token", err)
	}
}
