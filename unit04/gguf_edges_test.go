package unit04

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmforge/forge/unit00"
)

// failingReader serves data and then fails every read with err, as a disk,
// a pipe or a connection that breaks part way through a file does.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// field is where one field of a test file starts and the words an error
// about it must contain.
type field struct {
	start int64
	words []string
}

// layout builds a GGUF file and records its fields as it goes.
type layout struct {
	g      *gguf
	fields []field
}

// at records that the next bytes written are the field named by words.
func (l *layout) at(words ...string) *gguf {
	l.fields = append(l.fields, field{int64(l.g.Len()), words})
	return l.g
}

// str writes a string (its length and bytes: one field) named by words.
func (l *layout) str(s string, words ...string) { l.at(words...).str(s) }

// kv writes a key and a value type, recorded as two fields.
func (l *layout) kv(key string, typ uint32) {
	l.str(key, "key")
	l.at(key, "type").u32(typ)
}

// arr writes an array's element type and count, recorded as two fields.
func (l *layout) arr(key string, elem uint32, n uint64) {
	l.at(key, "type").u32(elem)
	l.at(key, "count").u64(n)
}

// fieldAt returns the field holding byte n.
func (l *layout) fieldAt(n int64) field {
	f := l.fields[0]
	for _, g := range l.fields {
		if g.start <= n {
			f = g
		}
	}
	return f
}

// richVocab is a well-formed file with a value of each kind ReadVocab
// handles: strings, kept arrays of strings, FLOAT32 and INT32, scalar ids
// and flags, a skipped array of scalars and a skipped scalar.
func richVocab() *layout {
	l := &layout{g: &gguf{}}
	l.at("magic").WriteString("GGUF")
	l.at("version").u32(3)
	l.at("tensor").u64(0)
	l.at("metadata").u64(10)
	l.kv("tokenizer.ggml.model", 8)
	l.str("llama", "tokenizer.ggml.model")
	l.kv("tokenizer.ggml.tokens", 9)
	l.arr("tokenizer.ggml.tokens", 8, 3)
	for _, tok := range []string{"<unk>", "a", "bc"} {
		l.str(tok, "tokenizer.ggml.tokens")
	}
	l.kv("tokenizer.ggml.scores", 9)
	l.arr("tokenizer.ggml.scores", 6, 3)
	for _, s := range []float32{0, -1, -2.5} {
		l.at("tokenizer.ggml.scores").u32(math.Float32bits(s))
	}
	l.kv("tokenizer.ggml.token_type", 9)
	l.arr("tokenizer.ggml.token_type", 5, 3)
	for _, typ := range []uint32{2, 1, 1} {
		l.at("tokenizer.ggml.token_type").u32(typ)
	}
	l.kv("tokenizer.ggml.bos_token_id", 4)
	l.at("tokenizer.ggml.bos_token_id").u32(1)
	l.kv("tokenizer.ggml.add_bos_token", 7)
	l.at("tokenizer.ggml.add_bos_token").u8(0)
	l.kv("general.sizes", 9)
	l.arr("general.sizes", 4, 3)
	for _, x := range []uint32{7, 8, 9} {
		l.at("general.sizes").u32(x)
	}
	l.kv("general.file_type", 4)
	l.at("general.file_type").u32(1)
	l.kv("general.name", 8)
	l.str("rich", "general.name")
	l.kv("general.tags", 9)
	l.arr("general.tags", 8, 2)
	l.str("x", "general.tags")
	l.str("yz", "general.tags")
	return l
}

// TestC4_6_ReadErrors reads a well-formed file from a reader that fails
// after each of its bytes in turn, the size given being the whole file's:
// every count fits, so the first read that needs the missing byte fails.
// That must be an ErrTruncated InputError at the start of the field being
// read (not past it: a reader that goes on after a failed read reports a
// later field, or none), whose text names the field and the reader's error.
func TestC4_6_ReadErrors(t *testing.T) {
	l := richVocab()
	data := l.g.Bytes()
	v, err := ReadVocab(bytes.NewReader(data), int64(len(data)), "rich.gguf")
	if err != nil || len(v.Tokens) != 3 || len(v.Scores) != 3 || len(v.Types) != 3 || v.BOS != 1 || v.AddBOS {
		t.Fatalf("ReadVocab of the well-formed file: %+v, %v", v, err)
	}
	ioErr := errors.New("read error from the device")
	failed := 0
	for n := int64(0); n < int64(len(data)) && failed < 8; n++ {
		f := l.fieldAt(n)
		what := fmt.Sprintf("reader failing after %d bytes (in the field %q at byte %d)", n, strings.Join(f.words, " "), f.start)
		r := &failingReader{data: data[:n], err: ioErr}
		_, err := ReadVocab(r, int64(len(data)), "rich.gguf")
		failed++ // undone below when every check passes
		var ie *unit00.InputError
		switch {
		case err == nil:
			t.Errorf("%s: ReadVocab returned no error", what)
		case !errors.Is(err, unit00.ErrTruncated) || !errors.As(err, &ie):
			t.Errorf("%s: error %q should be an ErrTruncated InputError", what, err)
		case ie.Offset < f.start || ie.Offset > n:
			t.Errorf("%s: error %q gives byte %d; the field being read starts at byte %d and the input stopped at byte %d", what, err, ie.Offset, f.start, n)
		case ie.Source != "rich.gguf":
			t.Errorf("%s: error %q names the source %q, want %q", what, err, ie.Source, "rich.gguf")
		case !containsAll(err.Error(), f.words):
			t.Errorf("%s: error %q does not name what was being read (%q)", what, err, f.words)
		case !strings.Contains(err.Error(), ioErr.Error()):
			t.Errorf("%s: error %q does not include the reader's own error %q", what, err, ioErr)
		default:
			failed--
		}
	}
	if failed >= 8 {
		t.Errorf("stopped after 8 failing cut points")
	}
}

// containsAll reports whether text holds every word, ignoring case.
func containsAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
			return false
		}
	}
	return true
}

// TestC4_6_ErrorText checks that a malformed file's error says what is
// wrong, not only where: the key, and the problem in words.
func TestC4_6_ErrorText(t *testing.T) {
	for _, c := range []struct {
		name  string
		data  []byte
		kind  error
		off   int64
		words []string
	}{
		{"array of arrays", header(1).kv("tokenizer.ggml.tokens", 9).arr(9, 1).Bytes(), unit00.ErrUnsupported, 57,
			[]string{"tokenizer.ggml.tokens", "array"}},
		{"array of arrays, skipped key", header(1).kv("general.nested", 9).arr(9, 0).Bytes(), unit00.ErrUnsupported, 50,
			[]string{"general.nested", "array"}},
		{"unknown array element type", header(1).kv("general.x", 9).arr(13, 0).Bytes(), unit00.ErrUnsupported, 45,
			[]string{"general.x", "13"}},
		{"duplicate key", header(2).kv("general.k", 4).u32(1).kv("general.k", 4).u32(2).Bytes(), unit00.ErrInvalid, 49,
			[]string{"general.k"}},
	} {
		_, err := ReadVocab(bytes.NewReader(c.data), int64(len(c.data)), "bad.gguf")
		var ie *unit00.InputError
		if !errors.Is(err, c.kind) || !errors.As(err, &ie) || ie.Offset != c.off {
			t.Errorf("%s: error %v; want an InputError at byte %d wrapping %v", c.name, err, c.off, c.kind)
			continue
		}
		for _, w := range c.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}
