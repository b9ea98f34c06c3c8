package unit04

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/llmforge/forge/unit00"
)

func TestC4_6_LoadVocab(t *testing.T) {
	for _, name := range []string{"gpt-2", "phi-3"} {
		got, err := LoadVocab("testdata/ggml-vocab-" + name + ".gguf")
		if err != nil {
			t.Fatalf("LoadVocab(%s): %v", name, err)
		}
		want := testVocab(t, name)
		if got.Model != want.Model || got.Pre != want.Pre || got.BOS != want.BOS || got.EOS != want.EOS || got.UNK != want.UNK ||
			got.AddBOS != want.AddBOS || got.AddEOS != want.AddEOS || got.AddSpacePrefix != want.AddSpacePrefix {
			t.Errorf("LoadVocab(%s) = model %q pre %q bos %d eos %d unk %d add_bos %v add_eos %v space %v\nwant model %q pre %q bos %d eos %d unk %d add_bos %v add_eos %v space %v",
				name, got.Model, got.Pre, got.BOS, got.EOS, got.UNK, got.AddBOS, got.AddEOS, got.AddSpacePrefix,
				want.Model, want.Pre, want.BOS, want.EOS, want.UNK, want.AddBOS, want.AddEOS, want.AddSpacePrefix)
		}
		for field, pair := range map[string][2]any{
			"Tokens": {got.Tokens, want.Tokens}, "Merges": {got.Merges, want.Merges},
			"Scores": {got.Scores, want.Scores}, "Types": {got.Types, want.Types},
		} {
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Errorf("LoadVocab(%s).%s differs from the file's metadata", name, field)
			}
		}
	}
	if _, err := LoadVocab("testdata/no-such-file.gguf"); err == nil {
		t.Error("LoadVocab of a missing file returned no error")
	}
}

// gguf writes a minimal GGUF with the given metadata entries, for tests.
type gguf struct{ bytes.Buffer }

func (g *gguf) u32(x uint32) *gguf { binary.Write(g, binary.LittleEndian, x); return g }
func (g *gguf) u64(x uint64) *gguf { binary.Write(g, binary.LittleEndian, x); return g }
func (g *gguf) str(s string) *gguf { g.u64(uint64(len(s))); g.WriteString(s); return g }

func header(nkv uint64) *gguf {
	g := &gguf{}
	g.WriteString("GGUF")
	return g.u32(3).u64(0).u64(nkv)
}

// smallVocab is a well-formed byte-level vocabulary of three tokens.
func smallVocab() []byte {
	g := header(4)
	g.str("tokenizer.ggml.model").u32(8).str("gpt2")
	g.str("tokenizer.ggml.tokens").u32(9).u32(8).u64(3).str("a").str("b").str("ab")
	g.str("tokenizer.ggml.merges").u32(9).u32(8).u64(1).str("a b")
	g.str("general.name").u32(8).str("toy")
	return g.Bytes()
}

func TestC4_6_Malformed(t *testing.T) {
	good := smallVocab()
	v, err := ReadVocab(bytes.NewReader(good), int64(len(good)), "toy.gguf")
	if err != nil || len(v.Tokens) != 3 || v.Merges[0] != "a b" || v.BOS != -1 {
		t.Fatalf("ReadVocab of a small well-formed file: %+v, %v", v, err)
	}
	withVersion := func(ver uint32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[4:], ver)
		return b
	}
	hugeCount := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(hugeCount[16:], math.MaxUint64)
	type malformed struct {
		name string
		data []byte
		kind error
		at   bool  // found while decoding: an InputError naming the field and offset
		off  int64 // that offset, where the bad field starts; -1: not checked
	}
	cases := []malformed{
		{"empty", nil, unit00.ErrTruncated, true, 0},
		{"bad magic", append([]byte("GGUX"), good[4:]...), unit00.ErrInvalid, true, 0},
		{"version 1", withVersion(1), unit00.ErrUnsupported, true, 4},
		{"kv count beyond the file", hugeCount, unit00.ErrInvalid, true, 16},
		{"unknown value type", header(1).str("k").u32(99).Bytes(), unit00.ErrUnsupported, true, 33},
		{"array of arrays", header(1).str("k").u32(9).u32(9).u64(1).Bytes(), unit00.ErrUnsupported, true, 37},
		{"string longer than the file", header(1).str("k").u32(8).u64(1 << 40).Bytes(), unit00.ErrInvalid, true, 37},
		{"array longer than the file", header(1).str("tokenizer.ggml.tokens").u32(9).u32(8).u64(1 << 50).Bytes(), unit00.ErrInvalid, true, 61},
		{"duplicate key", header(2).str("k").u32(4).u32(1).str("k").u32(4).u32(2).Bytes(), unit00.ErrInvalid, true, 41},
		{"model of the wrong type", header(1).str("tokenizer.ggml.model").u32(4).u32(1).Bytes(), unit00.ErrInvalid, true, 24},
		{"no tokenizer model", header(1).str("k").u32(4).u32(1).Bytes(), unit00.ErrUnsupported, false, -1},
		{"scores do not match tokens", header(3).str("tokenizer.ggml.model").u32(8).str("llama").
			str("tokenizer.ggml.tokens").u32(9).u32(8).u64(1).str("a").
			str("tokenizer.ggml.scores").u32(9).u32(6).u64(2).u32(0).u32(0).Bytes(), unit00.ErrInvalid, false, -1},
		{"bos beyond the tokens", header(3).str("tokenizer.ggml.model").u32(8).str("llama").
			str("tokenizer.ggml.tokens").u32(9).u32(8).u64(1).str("a").
			str("tokenizer.ggml.bos_token_id").u32(4).u32(7).Bytes(), unit00.ErrInvalid, false, -1},
	}
	// Truncation at every byte of a good file: either the bytes run out
	// (ErrTruncated) or a length is longer than what is left (ErrInvalid).
	for n := 0; n < len(good); n++ {
		cases = append(cases, malformed{fmt.Sprintf("truncated to %d bytes", n), good[:n], nil, true, -1})
	}
	for _, c := range cases {
		_, err := ReadVocab(bytes.NewReader(c.data), int64(len(c.data)), "bad.gguf")
		if err == nil {
			t.Errorf("%s: ReadVocab returned no error", c.name)
			continue
		}
		if c.kind == nil && !errors.Is(err, unit00.ErrTruncated) && !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("%s: error %q wraps neither unit00.ErrTruncated nor unit00.ErrInvalid", c.name, err)
		}
		if c.kind != nil && !errors.Is(err, c.kind) {
			t.Errorf("%s: error %q does not wrap %v", c.name, err, c.kind)
		}
		var ie *unit00.InputError
		if c.at && !errors.As(err, &ie) {
			t.Errorf("%s: error %q is not a unit00.InputError naming the field and the byte offset", c.name, err)
		} else if c.off >= 0 && ie.Offset != c.off {
			t.Errorf("%s: error %q gives byte %d; the bad field starts at byte %d", c.name, err, ie.Offset, c.off)
		}
	}
}

// FuzzReadVocab checks that no input makes ReadVocab panic or allocate
// beyond the file (go test -fuzz FuzzReadVocab ./unit04).
func FuzzReadVocab(f *testing.F) {
	f.Add(smallVocab())
	good := smallVocab()
	for _, n := range []int{0, 4, 8, 16, 24, 40, len(good) - 1} {
		f.Add(good[:n])
	}
	if data, err := os.ReadFile("testdata/ggml-vocab-gpt-2.gguf"); err == nil {
		f.Add(data[:4096])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ReadVocab(bytes.NewReader(data), int64(len(data)), "fuzz.gguf")
		if err == nil && (v == nil || len(v.Tokens) == 0) {
			t.Fatalf("ReadVocab accepted a file without tokens: %+v", v)
		}
	})
}
