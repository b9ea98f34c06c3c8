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
