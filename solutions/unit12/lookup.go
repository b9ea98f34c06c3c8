package unit12

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

// Lookup is prompt lookup decoding: a drafter with no model. It finds the
// longest n-gram (maxN tokens at most, minN at least) that ends the text
// and also appears earlier in it, and proposes the tokens that followed
// its latest earlier appearance. Text that repeats itself (code being
// edited, a document being quoted or summarized) is drafted for free. Its
// proposals are deterministic: q is 1 on each proposed token.
type Lookup struct {
	vocab, minN, maxN int
}

// NewLookup returns a prompt-lookup drafter for a vocabulary of vocab
// tokens matching n-grams of minN to maxN tokens. vocab < 1, minN < 1 or
// maxN < minN is an error wrapping unit00.ErrInvalid.
func NewLookup(vocab, minN, maxN int) (*Lookup, error) {
	if vocab < 1 || minN < 1 || maxN < minN {
		return nil, fmt.Errorf("lookup: a vocabulary of %d, n-grams of %d to %d tokens: want vocab ≥ 1 and 1 ≤ minN ≤ maxN: %w", vocab, minN, maxN, unit00.ErrInvalid)
	}
	return &Lookup{vocab: vocab, minN: minN, maxN: maxN}, nil
}

// Vocab is the vocabulary size the lookup was made for.
func (l *Lookup) Vocab() int { return l.vocab }

// Draft proposes up to n tokens: what followed the latest earlier
// appearance of the longest n-gram that ends history, as far as history
// goes. It proposes none when no n-gram of minN tokens or more appears
// twice. The proposal is a slice of history; the distributions are nil
// (deterministic).
func (l *Lookup) Draft(history []int, n int) ([]int, [][]float64, error) {
	n = max(n, 0)
	end := len(history)
	for size := min(l.maxN, end-1); size >= l.minN; size-- {
		gram := history[end-size:]
		// Latest first: start is where an earlier appearance begins; it
		// must end before the text does, so something follows it.
		for start := end - size - 1; start >= 0; start-- {
			if equal(history[start:start+size], gram) {
				from := start + size
				return history[from:min(from+n, end)], nil, nil
			}
		}
	}
	return nil, nil, nil
}

// equal reports whether a and b hold the same tokens.
func equal(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
