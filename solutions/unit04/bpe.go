package unit04

import (
	"fmt"
	"strings"

	"github.com/llmforge/forge/unit00"
)

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
	m := &Merges{rank: make(map[pair]int, len(list))}
	for i, entry := range list {
		cut := -1
		if len(entry) > 1 {
			if j := strings.IndexByte(entry[1:], ' '); j >= 0 {
				cut = j + 1
			}
		}
		if cut < 0 || cut == len(entry)-1 {
			return nil, fmt.Errorf("merge %d %q is not \"left right\": %w", i, entry, unit00.ErrInvalid)
		}
		p := pair{entry[:cut], entry[cut+1:]}
		if _, dup := m.rank[p]; !dup { // the first occurrence ranks
			m.rank[p] = i
		}
	}
	return m, nil
}

// Rank returns the pair's position in the merge list.
func (m *Merges) Rank(left, right string) (int, bool) {
	r, ok := m.rank[pair{left, right}]
	return r, ok
}

// TokenRanks ranks a pair by the rank of the token the two form, tiktoken's
// rule: a vocabulary of byte strings whose ranks are their ids.
type TokenRanks map[string]int

// Rank returns the rank of the token left+right.
func (t TokenRanks) Rank(left, right string) (int, bool) {
	r, ok := t[left+right]
	return r, ok
}

// MergeNaive merges symbols by rank the plain way: scan every adjacent pair,
// merge the lowest-ranked (the leftmost on a tie), repeat until no pair
// merges. O(n²) in the number of symbols: the reference for Merge.
func MergeNaive(r Ranker, symbols []string) []string {
	syms := append([]string(nil), symbols...)
	for {
		best, bestRank := -1, 0
		for i := 0; i+1 < len(syms); i++ {
			if rank, ok := r.Rank(syms[i], syms[i+1]); ok && (best < 0 || rank < bestRank) {
				best, bestRank = i, rank
			}
		}
		if best < 0 {
			return syms
		}
		syms[best] += syms[best+1]
		syms = append(syms[:best+1], syms[best+2:]...)
	}
}

// Merge gives MergeNaive's result in O(n log n): symbols form a linked list,
// candidate pairs wait in a heap ordered by (rank, position), and a merge
// only adds the two new pairs it creates. A candidate whose symbols have
// changed since it was pushed is stale and dropped when it surfaces.
func Merge(r Ranker, symbols []string) []string {
	n := len(symbols)
	if n < 2 {
		return append([]string(nil), symbols...)
	}
	text := append([]string(nil), symbols...)
	prev, next := make([]int, n), make([]int, n)
	for i := range text {
		prev[i], next[i] = i-1, i+1
	}
	next[n-1] = -1
	q := &queue[candidate]{}
	push := func(left int) {
		if left < 0 || next[left] < 0 {
			return
		}
		right := next[left]
		if rank, ok := r.Rank(text[left], text[right]); ok {
			q.push(candidate{rank: rank, left: left, right: right, size: len(text[left]) + len(text[right])})
		}
	}
	for i := 0; i+1 < n; i++ {
		push(i)
	}
	for len(*q) > 0 {
		c := q.pop()
		// Stale: one side was merged away or grew since the push.
		if text[c.left] == "" || text[c.right] == "" || next[c.left] != c.right || len(text[c.left])+len(text[c.right]) != c.size {
			continue
		}
		text[c.left] += text[c.right]
		text[c.right] = ""
		next[c.left] = next[c.right]
		if next[c.left] >= 0 {
			prev[next[c.left]] = c.left
		}
		push(prev[c.left])
		push(c.left)
	}
	out := make([]string, 0, n)
	for i := 0; i >= 0; i = next[i] {
		out = append(out, text[i])
	}
	return out
}

// candidate is a pair that may merge.
type candidate struct {
	rank, left, right, size int
}

// Candidates go through a queue (heap.go) ordered by before: lowest rank
// first, leftmost on a tie.
//
//lint:ignore U1000 called through queue's type constraint (heap.go), which staticcheck does not follow
func (c candidate) before(d candidate) bool {
	return c.rank < d.rank || c.rank == d.rank && c.left < d.left
}
