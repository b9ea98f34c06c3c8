// Package unit04 turns text into token ids and back, byte for byte as the
// models' own tokenizers do: GPT-2's byte-to-unicode map (4.1), hand-written
// pre-tokenizers (4.2), byte-level BPE merging by rank (4.3), SentencePiece
// style BPE merging by score with byte fallback (4.4), decoding and
// streaming (4.5), and a small reader of a GGUF file's tokenizer metadata
// (4.6).
//
// Read docs/unit04.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit04

// The test corpus; ci/tokref records llama.cpp's token ids for it.
//go:generate go run ../ci/tokcorpus -o testdata/corpus.json

// Vocab is a tokenizer's vocabulary as a GGUF file stores it under the
// tokenizer.ggml.* keys.
type Vocab struct {
	Model  string    // tokenizer.ggml.model: "gpt2" (byte-level BPE) or "llama" (SentencePiece BPE)
	Pre    string    // tokenizer.ggml.pre: the pre-tokenizer's name ("gpt-2", "llama-bpe", "qwen2", ...); "" if absent
	Tokens []string  // tokenizer.ggml.tokens: the token of each id
	Scores []float32 // tokenizer.ggml.scores: SentencePiece merge priorities; nil if absent
	Types  []int32   // tokenizer.ggml.token_type: one of the TokenType values per id; nil if absent
	Merges []string  // tokenizer.ggml.merges: "left right", rank = index; BPE only
	BOS    int       // tokenizer.ggml.bos_token_id, −1 if absent
	EOS    int       // tokenizer.ggml.eos_token_id, −1 if absent
	UNK    int       // tokenizer.ggml.unknown_token_id, −1 if absent
	AddBOS bool      // tokenizer.ggml.add_bos_token (absent: true for "llama", false for "gpt2")
	AddEOS bool      // tokenizer.ggml.add_eos_token (absent: false)
	// AddSpacePrefix is tokenizer.ggml.add_space_prefix (absent: true for
	// "llama"): SentencePiece vocabularies see a space before the text.
	AddSpacePrefix bool
}

// Token types, as tokenizer.ggml.token_type stores them.
const (
	TypeNormal      = 1
	TypeUnknown     = 2
	TypeControl     = 3 // special tokens such as <s>, </s>, <|endoftext|>
	TypeUserDefined = 4
	TypeUnused      = 5
	TypeByte        = 6 // SentencePiece byte-fallback tokens <0x00> … <0xFF>
)
