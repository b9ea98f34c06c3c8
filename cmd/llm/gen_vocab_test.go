package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGenVocabSize(t *testing.T) {
	tinyModel(t) // skips where the units are not written
	path := filepath.Join(t.TempDir(), "padded.gguf")
	ok(t, "gen", "--shape", "tiny", "--vocab", "gpt2", "--vocab-size", "50300", "-o", path)
	j := decodeJSON[inspectJSON](t, ok(t, "inspect", "--json", path))
	counts := map[string]int{}
	for _, kv := range j.Metadata {
		if kv.Count != nil {
			counts[kv.Key] = *kv.Count
		}
	}
	assert.Equal(t, 50300, counts["tokenizer.ggml.tokens"], "the tokens padded to --vocab-size")
	assert.Equal(t, 50300, counts["tokenizer.ggml.token_type"], "a type for every token, the pads unused")
	var dims []uint64
	for _, x := range j.Tensors {
		if x.Name == "token_embd.weight" {
			dims = x.Shape
		}
	}
	assert.Equal(t, []uint64{256, 50300}, dims, "the embedding matrix has a row for every token")
	// The pads are never produced by the tokenizer and the model runs.
	out := ok(t, "tokenize", "-m", path, "-p", "[PAD50299] hello")
	assert.NotContains(t, out, "50299", "an unused token is not matched in text")
	ok(t, "run", "-m", path, "-p", "hello", "-n", "4", "--temp", "0")

	for _, args := range [][]string{
		{"gen", "--shape", "tiny", "--vocab-size", "50000", "-o", path},
		{"gen", "--shape", "tiny", "--vocab-size", "0", "-o", path},
	} {
		r := llm(args...)
		require.Equal(t, 2, r.status, "llm %q: a usage error (stderr %q)", args, r.stderr)
	}
}
