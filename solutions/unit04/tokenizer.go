package unit04

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/llmforge/forge/unit00"
)

// Tokenizer encodes text to token ids and back for one vocabulary.
type Tokenizer struct {
	v       *Vocab
	ids     map[string]int // token text → id
	spm     bool           // SentencePiece BPE, not byte-level
	pre     PreTokenizer
	ranker  Ranker            // merge ranks: the merge list, or token ids without one
	pairs   map[uint64]uint64 // the merge list keyed by token ids (bpe_ids.go)
	byteIDs [256]int32        // the token of each byte's character, −1 if none (or all: bpe_ids.go)
	special []int             // tokens matched in the text itself: longest first
	bytes   [256]int          // SentencePiece byte-fallback tokens, −1 where missing
}

// EncodeOptions choose what Encode adds besides the text's own tokens.
type EncodeOptions struct {
	// AddSpecial adds BOS before and EOS after the text, as the
	// vocabulary's AddBOS and AddEOS flags say (nothing where the id is −1).
	AddSpecial bool
	// ParseSpecial recognises control tokens written in the text, such as
	// "<|endoftext|>" or "<s>". Without it they are ordinary text, so a
	// user cannot inject them. User-defined tokens (TypeUserDefined: added
	// words, and in DeepSeek's vocabularies single characters such as "ü")
	// are cut out of the text either way, as llama.cpp does. Special
	// tokens with empty text are never matched; where one contains
	// another, the longest is tried first.
	ParseSpecial bool
}

// New builds the tokenizer of a vocabulary: byte-level BPE for model
// "gpt2", SentencePiece BPE for "llama". Another model or an unknown
// pre-tokenizer is an error wrapping unit00.ErrUnsupported, a malformed
// merge list one wrapping unit00.ErrInvalid. A token text that repeats
// stands for its first id.
func New(v *Vocab) (*Tokenizer, error) {
	t := &Tokenizer{v: v, ids: make(map[string]int, len(v.Tokens)), spm: v.Model == "llama"}
	for id := len(v.Tokens) - 1; id >= 0; id-- { // backwards: a repeated token keeps its first id
		t.ids[v.Tokens[id]] = id
	}
	switch v.Model {
	case "llama":
		for b := range t.bytes {
			t.bytes[b] = -1
			if id, ok := t.ids[fmt.Sprintf("<0x%02X>", b)]; ok {
				t.bytes[b] = id
			}
		}
	case "gpt2":
		pre, err := ParsePre(v.Pre)
		if err != nil {
			return nil, err
		}
		t.pre = pre
		byIDs := true // words may merge as token ids (bpe_ids.go)
		if v.Merges == nil {
			// No merge list: rank a pair by the id of the token it forms,
			// tiktoken's rule.
			ranks := make(TokenRanks, len(v.Tokens))
			for tok, id := range t.ids {
				ranks[tok] = id
			}
			t.ranker = ranks
		} else {
			if t.ranker, err = NewMerges(v.Merges); err != nil {
				return nil, err
			}
			t.pairs, byIDs = t.indexMerges(v.Merges)
		}
		// byteIDs starts a word on the fast path; without it (all −1)
		// every word merges on strings.
		for b := range t.byteIDs {
			t.byteIDs[b] = -1
			if id, ok := t.ids[string(ByteRune(byte(b)))]; ok && byIDs {
				t.byteIDs[b] = int32(id)
			}
		}
	default:
		return nil, fmt.Errorf("tokenizer model %q (want gpt2 or llama): %w", v.Model, unit00.ErrUnsupported)
	}
	for id := range v.Tokens {
		if typ := t.tokenType(id); typ == TypeControl || typ == TypeUserDefined {
			if v.Tokens[id] != "" {
				t.special = append(t.special, id)
			}
		}
	}
	slices.SortStableFunc(t.special, func(a, b int) int { return len(v.Tokens[b]) - len(v.Tokens[a]) })
	return t, nil
}

// controlLooking are the texts of end-of-turn, end-of-generation and
// fill-in-the-middle tokens that llama.cpp treats as control tokens even
// where a file marks them user-defined (Phi-3's "</s>", for one): they
// are special only with ParseSpecial, like every control token.
var controlLooking = map[string]bool{
	"</s>": true, "<|endoftext|>": true, "<|eot_id|>": true, "<|eom_id|>": true,
	"<|im_end|>": true, "<|end|>": true, "<end_of_turn>": true, "<EOT>": true, "_<EOT>": true,
	"<｜end▁of▁sentence｜>": true,
	"<|fim_prefix|>":      true, "<fim-prefix>": true, "<｜fim▁begin｜>": true, "<PRE>": true, "▁<PRE>": true,
	"<|fim_suffix|>": true, "<fim-suffix>": true, "<｜fim▁hole｜>": true, "<SUF>": true, "▁<SUF>": true,
	"<|fim_middle|>": true, "<fim-middle>": true, "<｜fim▁end｜>": true, "<MID>": true, "▁<MID>": true,
	"<|fim_pad|>": true, "<fim-pad>": true, "<PAD>": true,
	"<|fim_repo|>": true, "<|repo_name|>": true, "<fim-repo>": true, "<REPO>": true, "<|file_sep|>": true,
}

// isControl reports whether special token id is matched only with
// ParseSpecial.
func (t *Tokenizer) isControl(id int) bool {
	return t.tokenType(id) == TypeControl || controlLooking[t.v.Tokens[id]]
}

// tokenType is the type of id, TypeNormal when the vocabulary has none.
func (t *Tokenizer) tokenType(id int) int32 {
	if t.v.Types == nil {
		return TypeNormal
	}
	return t.v.Types[id]
}

// VocabSize is the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.v.Tokens) }

// BOS and EOS are the vocabulary's beginning and end tokens (−1 if none).
func (t *Tokenizer) BOS() int { return t.v.BOS }

// EOS is the vocabulary's end-of-sequence token (−1 if none).
func (t *Tokenizer) EOS() int { return t.v.EOS }

// Encode returns the token ids of text. Invalid UTF-8 is encoded byte for
// byte like any other text.
func (t *Tokenizer) Encode(text string, opt EncodeOptions) []int {
	var out []int
	if opt.AddSpecial && t.v.AddBOS && t.v.BOS >= 0 {
		out = append(out, t.v.BOS)
	}
	prevSpecial := true // SentencePiece: a space before the first fragment
	t.fragments(text, opt.ParseSpecial, func(frag string, special int) {
		switch {
		case special >= 0:
			out = append(out, special)
			prevSpecial = true
		case t.spm:
			if t.v.AddSpacePrefix && prevSpecial {
				frag = " " + frag
			}
			out = t.appendSPM(out, frag)
			prevSpecial = false
		default:
			out = t.appendBPE(out, frag)
		}
	})
	if opt.AddSpecial && t.v.AddEOS && t.v.EOS >= 0 {
		out = append(out, t.v.EOS)
	}
	return out
}

// fragments cuts text at the special tokens it contains, longest token
// first: user-defined tokens always, control tokens when parseSpecial is
// set. It calls emit for each piece of text (special −1) and each special
// token.
func (t *Tokenizer) fragments(text string, parseSpecial bool, emit func(frag string, special int)) {
	if text == "" {
		return
	}
	for _, id := range t.special {
		if !parseSpecial && t.isControl(id) {
			continue
		}
		tok := t.v.Tokens[id]
		if i := strings.Index(text, tok); i >= 0 {
			t.fragments(text[:i], parseSpecial, emit)
			emit("", id)
			t.fragments(text[i+len(tok):], parseSpecial, emit)
			return
		}
	}
	emit(text, -1)
}

// appendBPE encodes text with byte-level BPE: pre-tokenize, map each word's
// bytes to characters, merge by rank, look up the merged symbols.
func (t *Tokenizer) appendBPE(out []int, text string) []int {
	var words [64]string
	var wordIDs [64]int32
	for _, word := range t.pre.AppendSplit(words[:0], text) {
		// Llama 3 takes a word that is a token whole, without merging
		// (llama.cpp's ignore_merges; tiktoken does the same).
		if t.pre == PreLlama3 {
			var buf [256]byte
			if id, ok := t.ids[string(appendByteLevel(buf[:0], word))]; ok {
				out = append(out, id)
				continue
			}
		}
		// The fast path: every byte's character is a token, so the word
		// merges as token ids (bpe_ids.go).
		if ids, ok := t.wordIDs(wordIDs[:0], word); ok {
			out = t.mergeIDs(out, ids)
			continue
		}
		out = t.appendMerged(out, ToByteLevel([]byte(word)))
	}
	return out
}

// wordIDs appends the token of each byte of word, and false when a byte's
// character is not a token.
func (t *Tokenizer) wordIDs(dst []int32, word string) ([]int32, bool) {
	for i := 0; i < len(word); i++ {
		id := t.byteIDs[word[i]]
		if id < 0 {
			return nil, false
		}
		dst = append(dst, id)
	}
	return dst, true
}

// appendByteLevel appends the byte-level characters of word's bytes.
func appendByteLevel(dst []byte, word string) []byte {
	for i := 0; i < len(word); i++ {
		dst = utf8.AppendRune(dst, byteRunes[word[i]])
	}
	return dst
}

// appendMerged merges one byte-level word on strings and appends its ids.
func (t *Tokenizer) appendMerged(out []int, bl string) []int {
	syms := make([]string, 0, len(bl))
	for i := 0; i < len(bl); {
		_, w := utf8.DecodeRuneInString(bl[i:])
		syms = append(syms, bl[i:i+w])
		i += w
	}
	for _, s := range Merge(t.ranker, syms) {
		if id, ok := t.ids[s]; ok {
			out = append(out, id)
			continue
		}
		// A symbol the vocabulary lacks: its characters one by one, those
		// that are tokens (llama.cpp does the same).
		for _, r := range s {
			if id, ok := t.ids[string(r)]; ok {
				out = append(out, id)
			}
		}
	}
	return out
}
