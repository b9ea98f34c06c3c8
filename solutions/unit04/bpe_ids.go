package unit04

import "sync"

// The merge list, re-keyed by token ids for the encoder's hot loop: with
// every symbol a token id, looking up a pair hashes one integer instead of
// two strings, and a merge replaces two ids by one without building a
// string. (Merge and MergeNaive show the algorithm on strings.)

// idMerge is what a pair of tokens merges into, and when.
type idMerge struct {
	rank int32
	id   int32
}

// pairKey packs two token ids into one map key; the map's value packs a
// merge's rank and resulting id the same way.
func pairKey(left, right int32) uint64 { return uint64(uint32(left))<<32 | uint64(uint32(right)) }

func unpack(v uint64) idMerge { return idMerge{rank: int32(v >> 32), id: int32(uint32(v))} }

// indexMerges builds the id-keyed merge table. Merges whose parts or result
// are not tokens cannot apply to token ids and are left out, as are
// repeats (the first occurrence ranks). exact is false when a merge joins
// two tokens into a text that is no token: merging on strings applies it
// (and its symbol later falls back to its characters), so the table would
// give other ids and must not be used.
func (t *Tokenizer) indexMerges(list []string) (m map[uint64]uint64, exact bool) {
	m, exact = make(map[uint64]uint64, len(list)), true
	for rank, entry := range list {
		for cut := 1; cut < len(entry)-1; cut++ {
			if entry[cut] != ' ' {
				continue
			}
			l, lok := t.ids[entry[:cut]]
			r, rok := t.ids[entry[cut+1:]]
			lr, lrok := t.ids[entry[:cut]+entry[cut+1:]]
			if lok && rok && lrok {
				k := pairKey(int32(l), int32(r))
				if _, dup := m[k]; !dup {
					m[k] = pairKey(int32(rank), int32(lr))
				}
			}
			if lok && rok && !lrok {
				exact = false
			}
			break // split at the first space only, as NewMerges does
		}
	}
	return m, exact
}

// idScratch holds the buffers of one word's merge, reused across calls.
type idScratch struct {
	ids, prev, next []int32
	heap            queue[idCandidate]
	text            []byte // for joining two tokens' text
}

// lookup returns what the pair (left, right) merges into: from the id-keyed
// merge list, or, for a vocabulary ranked by token ids (tiktoken's rule),
// the token their texts form, whose id is also its rank.
func (t *Tokenizer) lookup(s *idScratch, left, right int32) (idMerge, bool) {
	if t.pairs != nil {
		v, ok := t.pairs[pairKey(left, right)]
		return unpack(v), ok
	}
	s.text = append(append(s.text[:0], t.v.Tokens[left]...), t.v.Tokens[right]...)
	id, ok := t.ids[string(s.text)] // no allocation: the compiler looks up the bytes
	return idMerge{rank: int32(id), id: int32(id)}, ok
}

var idScratchPool = sync.Pool{New: func() any { return new(idScratch) }}

type idCandidate struct {
	rank, left, right, id int32
}

//lint:ignore U1000 called through queue's type constraint (heap.go), which staticcheck does not follow
func (c idCandidate) before(d idCandidate) bool {
	return c.rank < d.rank || c.rank == d.rank && c.left < d.left
}

// mergeIDs merges a word given as token ids (one per byte) and appends the
// result to out: Merge's algorithm on integers.
func (t *Tokenizer) mergeIDs(out []int, word []int32) []int {
	s := idScratchPool.Get().(*idScratch)
	defer idScratchPool.Put(s)
	n := int32(len(word))
	s.ids = append(s.ids[:0], word...)
	s.prev, s.next, s.heap = s.prev[:0], s.next[:0], s.heap[:0]
	for i := int32(0); i < n; i++ {
		s.prev, s.next = append(s.prev, i-1), append(s.next, i+1)
	}
	s.next[n-1] = -1
	push := func(left int32) {
		if left < 0 || s.next[left] < 0 {
			return
		}
		right := s.next[left]
		if m, ok := t.lookup(s, s.ids[left], s.ids[right]); ok {
			s.heap.push(idCandidate{rank: m.rank, left: left, right: right, id: m.id})
		}
	}
	for i := int32(0); i+1 < n; i++ {
		push(i)
	}
	for len(s.heap) > 0 {
		c := s.heap.pop()
		// Stale when either side changed since the push: compare the ids
		// with the pair's table entry again.
		if s.ids[c.left] < 0 || s.ids[c.right] < 0 || s.next[c.left] != c.right {
			continue
		}
		if m, ok := t.lookup(s, s.ids[c.left], s.ids[c.right]); !ok || m.id != c.id || m.rank != c.rank {
			continue
		}
		s.ids[c.left], s.ids[c.right] = c.id, -1
		s.next[c.left] = s.next[c.right]
		if s.next[c.left] >= 0 {
			s.prev[s.next[c.left]] = c.left
		}
		push(s.prev[c.left])
		push(c.left)
	}
	for i := int32(0); i >= 0; i = s.next[i] {
		out = append(out, int(s.ids[i]))
	}
	return out
}
