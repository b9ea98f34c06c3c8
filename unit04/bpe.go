package unit04

// Ranker gives the rank of merging two adjacent symbols: lower merges
// first; false when the pair never merges.
type Ranker interface {
	Rank(left, right string) (int, bool)
}

// Merges ranks pairs by a merge list as GGUF stores it
// (tokenizer.ggml.merges): entry i is "left right" and has rank i.
type Merges struct {
	rank map[pair]int
}

type pair struct{ left, right string }

// NewMerges indexes a merge list. An entry without a space separating two
// non-empty halves is an error wrapping unit00.ErrInvalid. The halves are
// split at the first space after the first character, since a symbol may
// itself start with a space-like character.
func NewMerges(list []string) (*Merges, error) {
	panic("TODO(4.3): write NewMerges, see docs/unit04.md")
}

// Rank returns the pair's position in the merge list.
func (m *Merges) Rank(left, right string) (int, bool) {
	panic("TODO(4.3): write Merges.Rank, see docs/unit04.md")
}

// TokenRanks ranks a pair by the rank of the token the two form, tiktoken's
// rule: a vocabulary of byte strings whose ranks are their ids.
type TokenRanks map[string]int

// Rank returns the rank of the token left+right.
func (t TokenRanks) Rank(left, right string) (int, bool) {
	panic("TODO(4.3): write TokenRanks.Rank, see docs/unit04.md")
}

// MergeNaive merges symbols by rank the plain way: scan every adjacent pair,
// merge the lowest-ranked (the leftmost on a tie), repeat until no pair
// merges. O(n²) in the number of symbols: the reference for Merge.
func MergeNaive(r Ranker, symbols []string) []string {
	panic("TODO(4.3): write MergeNaive, see docs/unit04.md")
}

// Merge gives MergeNaive's result in O(n log n): symbols form a linked list,
// candidate pairs wait in a heap ordered by (rank, position), and a merge
// only adds the two new pairs it creates. A candidate whose symbols have
// changed since it was pushed is stale and dropped when it surfaces.
func Merge(r Ranker, symbols []string) []string {
	panic("TODO(4.3): write Merge, see docs/unit04.md")
}
