package unit04

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/llmforge/forge/oracle"
)

// corpus is testdata/corpus.json: 561 strings in many scripts, emoji
// sequences, numbers, code and whitespace (written by ci/tokcorpus).
func corpus(t testing.TB) []string {
	t.Helper()
	var c []string
	readJSON(t, "testdata/corpus.json", &c)
	return c
}

// refCase is one string with the token ids llama.cpp gave it (recorded by
// ci/tokref): ids without special-token parsing, and special_ids with it
// (for strings that contain "<").
type refCase struct {
	Text       string `json:"text"`
	IDs        []int  `json:"ids"`
	SpecialIDs []int  `json:"special_ids"`
}

// llamaCpp returns the recorded cases of a vocabulary ("gpt-2", "phi-3").
func llamaCpp(t testing.TB, vocab string) []refCase {
	t.Helper()
	var rec struct{ Cases []refCase }
	readJSON(t, "testdata/llamacpp-"+vocab+".json", &rec)
	return rec.Cases
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// testVocab builds a Vocab from a testdata GGUF with the oracle's own
// metadata reader, so the tokenizer challenges do not depend on 4.6.
func testVocab(t testing.TB, name string) *Vocab {
	t.Helper()
	vocabOnce.Do(func() { vocabs = map[string]*Vocab{} })
	vocabMu.Lock()
	defer vocabMu.Unlock()
	if v, ok := vocabs[name]; ok {
		return v
	}
	md := oracle.GGUFMetadata("testdata/ggml-vocab-" + name + ".gguf")
	v := &Vocab{BOS: -1, EOS: -1, UNK: -1}
	v.Model, _ = md["tokenizer.ggml.model"].(string)
	v.Pre, _ = md["tokenizer.ggml.pre"].(string)
	for _, x := range list(md, "tokenizer.ggml.tokens") {
		v.Tokens = append(v.Tokens, x.(string))
	}
	for _, x := range list(md, "tokenizer.ggml.merges") {
		v.Merges = append(v.Merges, x.(string))
	}
	for _, x := range list(md, "tokenizer.ggml.scores") {
		v.Scores = append(v.Scores, float32(x.(float64)))
	}
	for _, x := range list(md, "tokenizer.ggml.token_type") {
		v.Types = append(v.Types, int32(x.(int64)))
	}
	for key, dst := range map[string]*int{"bos_token_id": &v.BOS, "eos_token_id": &v.EOS, "unknown_token_id": &v.UNK} {
		if x, ok := md["tokenizer.ggml."+key].(uint64); ok {
			*dst = int(x)
		}
	}
	v.AddBOS, v.AddSpacePrefix = v.Model == "llama", v.Model == "llama"
	if x, ok := md["tokenizer.ggml.add_bos_token"].(bool); ok {
		v.AddBOS = x
	}
	if x, ok := md["tokenizer.ggml.add_eos_token"].(bool); ok {
		v.AddEOS = x
	}
	if x, ok := md["tokenizer.ggml.add_space_prefix"].(bool); ok {
		v.AddSpacePrefix = x
	}
	vocabs[name] = v
	return v
}

var (
	vocabOnce sync.Once
	vocabMu   sync.Mutex
	vocabs    map[string]*Vocab
)

func list(md map[string]any, key string) []any {
	l, _ := md[key].([]any)
	return l
}

// newTokenizer builds the tokenizer of a testdata vocabulary.
func newTokenizer(t testing.TB, name string) *Tokenizer {
	t.Helper()
	tk, err := New(testVocab(t, name))
	if err != nil {
		t.Fatalf("New(%s vocabulary): %v", name, err)
	}
	return tk
}

// sameIDs reports whether two id sequences are equal.
func sameIDs(a, b []int) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// firstDiff describes where two id sequences part.
func firstDiff(got, want []int) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at position %d: got %d, want %d", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// vocabCase is one test string of llama.cpp's tokenizer test for a
// vocabulary (models/ggml-vocab-NAME.gguf.inp and .out, read by its
// tests/test-tokenizer-0): the text and its ids, without BOS or EOS and
// with special tokens not parsed.
type vocabCase struct {
	Text string
	IDs  []int
}

// vocabCases reads testdata/ggml-vocab-NAME.gguf.inp, the strings separated
// by "\n__ggml_vocab_test__\n" (the file ends with one), and .out, one line
// of space-separated ids per string.
func vocabCases(t testing.TB, name string) []vocabCase {
	t.Helper()
	base := "testdata/ggml-vocab-" + name + ".gguf"
	inp, err := os.ReadFile(base + ".inp")
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(base + ".out")
	if err != nil {
		t.Fatal(err)
	}
	const sep = "\n__ggml_vocab_test__\n"
	texts := strings.Split(strings.TrimSuffix(string(inp), sep), sep)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(texts) != len(lines) {
		t.Fatalf("%s: %d strings in .inp but %d lines in .out", base, len(texts), len(lines))
	}
	cases := make([]vocabCase, len(texts))
	for i, text := range texts {
		cases[i].Text = text
		for _, f := range strings.Fields(lines[i]) {
			id, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s.out line %d: %v", base, i+1, err)
			}
			cases[i].IDs = append(cases[i].IDs, id)
		}
	}
	return cases
}

// checkVocabCases encodes every test string of llama.cpp's for the
// vocabulary files names and compares with its ids. llama.cpp's test
// encodes without parsing special tokens; user-defined tokens (DeepSeek's
// vocabularies make single characters such as "ü" one) are cut out of the
// text all the same.
func checkVocabCases(t *testing.T, names ...string) {
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tk := newTokenizer(t, name)
			opt := EncodeOptions{}
			bad := 0
			for i, c := range vocabCases(t, name) {
				got := tk.Encode(c.Text, opt)
				if diff := cmp.Diff(c.IDs, got); diff != "" {
					t.Errorf("ggml-vocab-%s.gguf, test string %d %q: Encode with EncodeOptions%+v gives other ids than llama.cpp (%s)\n(-llama.cpp's ids in ggml-vocab-%s.gguf.out, +got):\n%s",
						name, i, c.Text, opt, firstDiff(got, c.IDs), name, diff)
					if bad++; bad >= 5 {
						t.FailNow()
					}
				}
			}
		})
	}
}

// byteChar is GPT-2's character for byte b (the 4.1 map, written out again
// so that the toy vocabularies below do not depend on ByteRune).
func byteChar(b byte) string {
	self := func(c int) bool { return c >= 0x21 && c <= 0x7E || c >= 0xA1 && c <= 0xAC || c >= 0xAE }
	if self(int(b)) {
		return string(rune(b))
	}
	n := 0
	for c := 0; c < int(b); c++ {
		if !self(c) {
			n++
		}
	}
	return string(rune(256 + n))
}

// toyByteVocab is a byte-level vocabulary whose ids 0–255 are the
// characters of the bytes 0–255, so that text no merge applies to encodes to
// its own bytes; the extra tokens follow from id 256, all of type normal.
func toyByteVocab(pre string, merges []string, extra ...string) *Vocab {
	v := &Vocab{Model: "gpt2", Pre: pre, Merges: merges, BOS: -1, EOS: -1, UNK: -1}
	for b := range 256 {
		v.Tokens = append(v.Tokens, byteChar(byte(b)))
	}
	v.Tokens = append(v.Tokens, extra...)
	v.Types = make([]int32, len(v.Tokens))
	for i := range v.Types {
		v.Types[i] = TypeNormal
	}
	return v
}

// bytesOf is the ids of text under toyByteVocab without merges: its bytes.
func bytesOf(text string) []int {
	ids := make([]int, len(text))
	for i := range len(text) {
		ids[i] = int(text[i])
	}
	return ids
}

// mustNew is New for a toy vocabulary that must build.
func mustNew(t *testing.T, what string, v *Vocab) *Tokenizer {
	t.Helper()
	tk, err := New(v)
	if err != nil {
		t.Fatalf("New(%s): %v", what, err)
	}
	return tk
}

// encodeCase is one Encode call on a toy vocabulary and the ids it must give.
type encodeCase struct {
	name string
	tk   *Tokenizer
	text string
	opt  EncodeOptions
	want []int
}

func checkEncodeCases(t *testing.T, cases []encodeCase) {
	t.Helper()
	for _, c := range cases {
		got := c.tk.Encode(c.text, c.opt)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Encode(%q, %+v) = %v, want %v (%s)\n(-want +got):\n%s", c.name, c.text, c.opt, got, c.want, firstDiff(got, c.want), diff)
		}
	}
}
