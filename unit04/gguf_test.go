package unit04

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

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
	// A missing file is the error os.Open gives: it names the path and is
	// fs.ErrNotExist, so a caller can tell "no such model" from a bad one.
	if _, err := LoadVocab("testdata/no-such-file.gguf"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(fmt.Sprint(err), "testdata/no-such-file.gguf") {
		t.Errorf("LoadVocab of a missing file: error %v; want one naming the path and wrapping fs.ErrNotExist", err)
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
		// Checks at their edges, one value past what is allowed.
		{"version 4", withVersion(4), unit00.ErrUnsupported, true, 4},
		{"empty key", header(1).str("").u32(4).u32(1).Bytes(), unit00.ErrInvalid, true, 24},
		{"unknown array element type", header(1).str("k").u32(9).u32(13).u64(0).Bytes(), unit00.ErrUnsupported, true, 37},
		{"string one byte longer than the file", append(header(1).str("k").u32(8).u64(4).Bytes(), "abc"...), unit00.ErrInvalid, true, 37},
		{"array of UINT32 one element longer than the file", append(header(1).str("k").u32(9).u32(4).u64(2).Bytes(), 1, 2, 3, 4, 5, 6, 7), unit00.ErrInvalid, true, 41},
		{"array of strings longer than the file (8 bytes per length at least)", header(1).str("k").u32(9).u32(8).u64(2).str("1234567").Bytes(), unit00.ErrInvalid, true, 41},
		{"kv count beyond the file (12 bytes per entry at least)", append(header(2).str("k").u32(0).u8(1).Bytes(), make([]byte, 9)...), unit00.ErrInvalid, true, 16},
		// Exactly 12 bytes per entry left: the count fits, and the error is
		// the second entry's type, cut after its first byte.
		{"kv count of exactly 12 bytes per entry left", append(header(2).str("k").u32(0).u8(1).str("x").Bytes(), 0), unit00.ErrTruncated, true, 47},
		{"tokens of the wrong type", header(1).str("tokenizer.ggml.tokens").u32(9).u32(5).u64(1).u32(0).Bytes(), unit00.ErrInvalid, true, 24},
		{"merges of the wrong type", header(1).str("tokenizer.ggml.merges").u32(8).str("a b").Bytes(), unit00.ErrInvalid, true, 24},
		{"scores of the wrong type", header(1).str("tokenizer.ggml.scores").u32(9).u32(5).u64(1).u32(0).Bytes(), unit00.ErrInvalid, true, 24},
		{"token types of the wrong type", header(1).str("tokenizer.ggml.token_type").u32(9).u32(6).u64(1).u32(0).Bytes(), unit00.ErrInvalid, true, 24},
		{"pre of the wrong type", header(1).str("tokenizer.ggml.pre").u32(4).u32(1).Bytes(), unit00.ErrInvalid, true, 24},
		{"unknown_token_id of the wrong type", header(1).str("tokenizer.ggml.unknown_token_id").u32(8).str("0").Bytes(), unit00.ErrInvalid, true, 24},
		{"add_bos_token of the wrong type", header(1).str("tokenizer.ggml.add_bos_token").u32(0).u8(1).Bytes(), unit00.ErrInvalid, true, 24},
		{"add_eos_token of the wrong type", header(1).str("tokenizer.ggml.add_eos_token").u32(4).u32(1).Bytes(), unit00.ErrInvalid, true, 24},
		{"add_space_prefix of the wrong type", header(1).str("tokenizer.ggml.add_space_prefix").u32(8).str("yes").Bytes(), unit00.ErrInvalid, true, 24},
		{"model bert", header(2).twoTokens("bert").Bytes(), unit00.ErrUnsupported, false, -1},
		{"no tokens", header(1).str("tokenizer.ggml.model").u32(8).str("gpt2").Bytes(), unit00.ErrInvalid, false, -1},
		{"token types do not match tokens", header(3).twoTokens("llama").
			str("tokenizer.ggml.token_type").u32(9).u32(5).u64(1).u32(1).Bytes(), unit00.ErrInvalid, false, -1},
		{"bos one past the last token", header(3).twoTokens("gpt2").
			str("tokenizer.ggml.bos_token_id").u32(4).u32(2).Bytes(), unit00.ErrInvalid, false, -1},
		{"eos beyond the tokens", header(3).twoTokens("gpt2").
			str("tokenizer.ggml.eos_token_id").u32(4).u32(2).Bytes(), unit00.ErrInvalid, false, -1},
		{"unk beyond the tokens", header(3).twoTokens("gpt2").
			str("tokenizer.ggml.unknown_token_id").u32(4).u32(2).Bytes(), unit00.ErrInvalid, false, -1},
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

func (g *gguf) u8(x uint8) *gguf { g.WriteByte(x); return g }

// kv starts a metadata entry: its key and value type.
func (g *gguf) kv(key string, typ uint32) *gguf { return g.str(key).u32(typ) }

// arr starts an array value of n elements of type elem.
func (g *gguf) arr(elem uint32, n uint64) *gguf { return g.u32(elem).u64(n) }

// flag writes a BOOL entry.
func (g *gguf) flag(key string, b bool) *gguf {
	if b {
		return g.kv(key, 7).u8(1)
	}
	return g.kv(key, 7).u8(0)
}

// twoTokens writes the tokenizer.ggml.model and .tokens entries of a
// two-token vocabulary.
func (g *gguf) twoTokens(model string) *gguf {
	g.kv("tokenizer.ggml.model", 8).str(model)
	g.kv("tokenizer.ggml.tokens", 9).arr(8, 2).str("a").str("b")
	return g
}

// TestC4_6_Defaults checks what absent keys become (ids −1, AddBOS and
// AddSpacePrefix true for "llama" only, AddEOS false) and that present flags
// win over the defaults, in either direction; and that version 2 files read
// like version 3.
func TestC4_6_Defaults(t *testing.T) {
	base := Vocab{Tokens: []string{"a", "b"}, BOS: -1, EOS: -1, UNK: -1}
	with := func(model string, addBOS, addEOS, space bool) Vocab {
		v := base
		v.Model, v.AddBOS, v.AddEOS, v.AddSpacePrefix = model, addBOS, addEOS, space
		return v
	}
	version2 := header(2).twoTokens("llama").Bytes()
	binary.LittleEndian.PutUint32(version2[4:], 2)
	for _, c := range []struct {
		name string
		data []byte
		want Vocab
	}{
		{"llama, no flags: AddBOS and AddSpacePrefix default to true", header(2).twoTokens("llama").Bytes(), with("llama", true, false, true)},
		{"gpt2, no flags: every flag defaults to false", header(2).twoTokens("gpt2").Bytes(), with("gpt2", false, false, false)},
		{"llama, add_bos_token and add_space_prefix false, add_eos_token true",
			header(5).twoTokens("llama").flag("tokenizer.ggml.add_bos_token", false).
				flag("tokenizer.ggml.add_space_prefix", false).flag("tokenizer.ggml.add_eos_token", true).Bytes(),
			with("llama", false, true, false)},
		{"gpt2, add_bos_token and add_space_prefix true, add_eos_token false",
			header(5).twoTokens("gpt2").flag("tokenizer.ggml.add_bos_token", true).
				flag("tokenizer.ggml.add_space_prefix", true).flag("tokenizer.ggml.add_eos_token", false).Bytes(),
			with("gpt2", true, false, true)},
		{"GGUF version 2 (no flags, llama)", version2, with("llama", true, false, true)},
	} {
		got, err := ReadVocab(bytes.NewReader(c.data), int64(len(c.data)), "toy.gguf")
		require.NoError(t, err, c.name)
		if diff := cmp.Diff(c.want, *got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: ReadVocab gives another Vocab (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestC4_6_ValueTypes reads a file holding a value of every GGUF type:
// scalars, strings and arrays of each under keys the tokenizer does not use
// (read past by their sizes: one wrong size and every later field is read
// from the wrong bytes), and the tokenizer's keys with token ids written in
// several integer types.
func TestC4_6_ValueTypes(t *testing.T) {
	scalars := []struct {
		typ  uint32
		size int
	}{{0, 1}, {1, 1}, {2, 2}, {3, 2}, {4, 4}, {5, 4}, {6, 4}, {7, 1}, {10, 8}, {11, 8}, {12, 8}}
	g := &gguf{}
	n := 0
	for _, s := range scalars {
		g.kv(fmt.Sprintf("general.scalar%d", s.typ), s.typ).Write(bytes.Repeat([]byte{0xA5}, s.size))
		g.kv(fmt.Sprintf("general.array%d", s.typ), 9).arr(s.typ, 3).Write(bytes.Repeat([]byte{0x5A}, 3*s.size))
		// An array of a type the tokenizer does not keep, under its prefix.
		g.kv(fmt.Sprintf("tokenizer.ggml.extra%d", s.typ), 9).arr(s.typ, 2).Write(bytes.Repeat([]byte{0x01}, 2*s.size))
		n += 3
	}
	g.kv("general.name", 8).str("every type")
	g.kv("general.tags", 9).arr(8, 3).str("x").str("").str("yz")
	g.kv("tokenizer.ggml.model", 8).str("llama")
	g.kv("tokenizer.ggml.pre", 8).str("default")
	g.kv("tokenizer.ggml.tokens", 9).arr(8, 4).str("<unk>").str("<s>").str("</s>").str("▁a")
	g.kv("tokenizer.ggml.scores", 9).arr(6, 4).u32(math.Float32bits(0)).u32(math.Float32bits(-1.5)).u32(math.Float32bits(2)).u32(math.Float32bits(-1e9))
	g.kv("tokenizer.ggml.token_type", 9).arr(5, 4).u32(2).u32(3).u32(3).u32(1)
	g.kv("tokenizer.ggml.merges", 9).arr(8, 1).str("▁ a")
	g.kv("tokenizer.ggml.bos_token_id", 0).u8(1)       // UINT8
	g.kv("tokenizer.ggml.eos_token_id", 3).u8(2).u8(0) // INT16
	g.kv("tokenizer.ggml.unknown_token_id", 10).u64(0) // UINT64
	g.kv("tokenizer.ggml.add_eos_token", 7).u8(2)      // any non-zero byte is true
	g.kv("tokenizer.chat_template", 8).str("{{ x }}")
	// Last in the file: three empty strings, 8 bytes each, exactly the
	// bytes left. A count check must allow 8 bytes per string, no more.
	g.kv("general.empties", 9).arr(8, 3).str("").str("").str("")
	n += 14
	data := append(header(uint64(n)).Bytes(), g.Bytes()...)
	got, err := ReadVocab(bytes.NewReader(data), int64(len(data)), "types.gguf")
	require.NoError(t, err, "ReadVocab of a file with a value of every type")
	want := Vocab{
		Model: "llama", Pre: "default", Tokens: []string{"<unk>", "<s>", "</s>", "▁a"},
		Scores: []float32{0, -1.5, 2, -1e9}, Types: []int32{2, 3, 3, 1}, Merges: []string{"▁ a"},
		BOS: 1, EOS: 2, UNK: 0, AddBOS: true, AddEOS: true, AddSpacePrefix: true,
	}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("ReadVocab of a file with a value of every type (-want +got):\n%s", diff)
	}
	// Every integer type may hold a token id, 0 included; a negative one or
	// one past int32 is not an id.
	for _, c := range []struct {
		name string
		typ  uint32
		val  []byte
		want int // the id; -1: not an id, ErrInvalid at the entry
	}{
		{"UINT8 1", 0, []byte{1}, 1}, {"INT8 1", 1, []byte{1}, 1},
		{"UINT16 1", 2, []byte{1, 0}, 1}, {"INT16 1", 3, []byte{1, 0}, 1},
		{"UINT32 1", 4, []byte{1, 0, 0, 0}, 1}, {"INT32 1", 5, []byte{1, 0, 0, 0}, 1},
		{"UINT64 1", 10, []byte{1, 0, 0, 0, 0, 0, 0, 0}, 1}, {"INT64 1", 11, []byte{1, 0, 0, 0, 0, 0, 0, 0}, 1},
		{"UINT8 0", 0, []byte{0}, 0}, {"INT8 0", 1, []byte{0}, 0},
		{"UINT16 0", 2, []byte{0, 0}, 0}, {"INT16 0", 3, []byte{0, 0}, 0},
		{"UINT32 0", 4, make([]byte, 4), 0}, {"INT32 0", 5, make([]byte, 4), 0},
		{"UINT64 0", 10, make([]byte, 8), 0}, {"INT64 0", 11, make([]byte, 8), 0},
		{"INT8 -1", 1, []byte{0xFF}, -1}, {"INT16 -1", 3, []byte{0xFF, 0xFF}, -1},
		{"INT32 -1", 5, []byte{0xFF, 0xFF, 0xFF, 0xFF}, -1},
		{"INT64 -1", 11, bytes.Repeat([]byte{0xFF}, 8), -1},
		{"INT8 -128", 1, []byte{0x80}, -1}, {"INT16 -32768", 3, []byte{0, 0x80}, -1},
		{"INT32 -2^31", 5, []byte{0, 0, 0, 0x80}, -1},
		{"INT64 -2^63", 11, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, -1},
		{"UINT64 2^31 (one past int32)", 10, []byte{0, 0, 0, 0x80, 0, 0, 0, 0}, -1},
		{"INT64 2^31 (one past int32)", 11, []byte{0, 0, 0, 0x80, 0, 0, 0, 0}, -1},
		{"UINT64 2^32+1", 10, []byte{1, 0, 0, 0, 1, 0, 0, 0}, -1},
		{"INT64 2^32+1", 11, []byte{1, 0, 0, 0, 1, 0, 0, 0}, -1},
		{"UINT64 2^64-1 (-1 as int64)", 10, bytes.Repeat([]byte{0xFF}, 8), -1},
		{"FLOAT32 1", 6, []byte{0, 0, 0x80, 0x3F}, -1},
		{"BOOL true", 7, []byte{1}, -1},
	} {
		g := header(3).twoTokens("gpt2")
		at := int64(g.Len())
		g.kv("tokenizer.ggml.eos_token_id", c.typ).Write(c.val)
		v, err := ReadVocab(bytes.NewReader(g.Bytes()), int64(g.Len()), "ids.gguf")
		if c.want >= 0 {
			if err != nil || v.EOS != c.want {
				t.Errorf("eos_token_id as %s: ReadVocab gives EOS %v, error %v; want %d and no error (any integer type may hold an id)", c.name, eosOf(v), err, c.want)
			}
			continue
		}
		require.ErrorIs(t, err, unit00.ErrInvalid, "eos_token_id as %s is not a token id", c.name)
		var ie *unit00.InputError
		if !errors.As(err, &ie) || ie.Offset != at {
			t.Errorf("eos_token_id as %s: error %q should be an InputError at byte %d, where the entry starts", c.name, err, at)
		}
	}
}

func eosOf(v *Vocab) any {
	if v == nil {
		return nil
	}
	return v.EOS
}
