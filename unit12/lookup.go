package unit12

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
	panic("TODO(12.4): write NewLookup, see docs/unit12.md")
}

// Vocab is the vocabulary size the lookup was made for.
func (l *Lookup) Vocab() int {
	panic("TODO(12.4): write Lookup.Vocab, see docs/unit12.md")
}

// Draft proposes up to n tokens: what followed the latest earlier
// appearance of the longest n-gram that ends history, as far as history
// goes. It proposes none when no n-gram of minN tokens or more appears
// twice. The proposal is a slice of history; the distributions are nil
// (deterministic).
func (l *Lookup) Draft(history []int, n int) ([]int, [][]float64, error) {
	panic("TODO(12.4): write Lookup.Draft, see docs/unit12.md")
}
