package unit10

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit04"
)

// LoadVocab reads the tokenizer.ggml.* metadata into a unit04.Vocab, with
// unit04.ReadVocab's rules for absent keys: ids −1, AddBOS and
// AddSpacePrefix true for a "llama" (SentencePiece) vocabulary. The token
// list is required; scores and token types, when present, must have one
// entry per token; any other key, when present, must have its type (a
// tokenizer.ggml.add_bos_token stored as an integer is an error naming
// the key, not an absent flag), as unit04.ReadVocab requires.
func LoadVocab(f *File) (*unit04.Vocab, error) {
	v := &unit04.Vocab{BOS: -1, EOS: -1, UNK: -1}
	var err error
	if v.Model, err = f.String("tokenizer.ggml.model"); err != nil {
		return nil, err
	}
	if v.Tokens, err = f.Strings("tokenizer.ggml.tokens"); err != nil {
		return nil, err
	}
	// Optional keys may be absent; present, they must have their type.
	has := func(key string) bool { _, ok := f.Lookup(key); return ok }
	if has("tokenizer.ggml.pre") {
		if v.Pre, err = f.String("tokenizer.ggml.pre"); err != nil {
			return nil, err
		}
	}
	if has("tokenizer.ggml.merges") {
		if v.Merges, err = f.Strings("tokenizer.ggml.merges"); err != nil {
			return nil, err
		}
	}
	if kv, ok := f.Lookup("tokenizer.ggml.scores"); ok {
		if v.Scores, ok = kv.Value.([]float32); !ok || len(v.Scores) != len(v.Tokens) {
			return nil, fmt.Errorf("%s: tokenizer.ggml.scores must be %d float32s: %w", f.source, len(v.Tokens), unit00.ErrInvalid)
		}
	}
	if kv, ok := f.Lookup("tokenizer.ggml.token_type"); ok {
		if v.Types, ok = kv.Value.([]int32); !ok || len(v.Types) != len(v.Tokens) {
			return nil, fmt.Errorf("%s: tokenizer.ggml.token_type must be %d int32s: %w", f.source, len(v.Tokens), unit00.ErrInvalid)
		}
	}
	for _, id := range []struct {
		key string
		dst *int
	}{{"tokenizer.ggml.bos_token_id", &v.BOS}, {"tokenizer.ggml.eos_token_id", &v.EOS}, {"tokenizer.ggml.unknown_token_id", &v.UNK}} {
		if !has(id.key) {
			continue
		}
		n, err := f.Uint(id.key)
		if err != nil {
			return nil, err
		}
		if n >= uint64(len(v.Tokens)) {
			return nil, fmt.Errorf("%s: %s = %d, beyond the %d tokens: %w", f.source, id.key, n, len(v.Tokens), unit00.ErrInvalid)
		}
		*id.dst = int(n)
	}
	// The flags default as llama.cpp's do: BOS and a space prefix for
	// SentencePiece ("llama") vocabularies, nothing else.
	v.AddBOS, v.AddSpacePrefix = v.Model == "llama", v.Model == "llama"
	for _, flag := range []struct {
		key string
		dst *bool
	}{{"tokenizer.ggml.add_bos_token", &v.AddBOS}, {"tokenizer.ggml.add_eos_token", &v.AddEOS}, {"tokenizer.ggml.add_space_prefix", &v.AddSpacePrefix}} {
		if has(flag.key) {
			if *flag.dst, err = f.Bool(flag.key); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}
