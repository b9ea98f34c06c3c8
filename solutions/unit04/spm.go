package unit04

import "strings"

// spaceMark is SentencePiece's visible space, "▁" (U+2581).
const spaceMark = "\u2581"

// appendSPM encodes text with SentencePiece-style BPE: spaces become ▁, the
// text starts as its UTF-8 characters, and the adjacent pair whose join is a
// token with the highest score merges first (the leftmost on a tie), until
// no pair joins into a token. A final symbol that is not a token (a
// character the vocabulary lacks) falls back to its bytes as <0xXX> tokens.
func (t *Tokenizer) appendSPM(out []int, text string) []int {
	text = strings.ReplaceAll(text, " ", spaceMark)
	syms := make([]spmSymbol, 0, len(text))
	for i := 0; i < len(text); {
		w := utf8SeqLen(text[i])
		w = min(w, len(text)-i)
		syms = append(syms, spmSymbol{start: i, end: i + w, prev: len(syms) - 1, next: len(syms) + 1})
		i += w
	}
	if len(syms) == 0 {
		return out
	}
	syms[len(syms)-1].next = -1
	q := &queue[bigram]{}
	try := func(left int) {
		if left < 0 || syms[left].next < 0 {
			return
		}
		right := syms[left].next
		joined := text[syms[left].start:syms[right].end]
		if id, ok := t.ids[joined]; ok {
			q.push(bigram{score: t.score(id), left: left, right: right, size: len(joined)})
		}
	}
	for i := range syms[:len(syms)-1] {
		try(i)
	}
	for len(*q) > 0 {
		b := q.pop()
		l, r := &syms[b.left], &syms[b.right]
		if l.end == l.start || r.end == r.start || r.end-l.start != b.size || l.next != b.right {
			continue // stale
		}
		l.end, r.start = r.end, r.end // the right symbol is now empty
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = b.left
		}
		try(l.prev)
		try(b.left)
	}
	for i := 0; i >= 0; i = syms[i].next {
		piece := text[syms[i].start:syms[i].end]
		if id, ok := t.ids[piece]; ok {
			out = append(out, id)
			continue
		}
		for j := 0; j < len(piece); j++ {
			if id := t.bytes[piece[j]]; id >= 0 {
				out = append(out, id)
			} else if id, ok := t.ids[piece[j:j+1]]; ok {
				out = append(out, id)
			}
		}
	}
	return out
}

// utf8SeqLen is the length of the UTF-8 sequence a lead byte announces; an
// invalid lead byte stands alone.
func utf8SeqLen(b byte) int {
	switch {
	case b < 0x80:
		return 1
	case b>>5 == 0x6:
		return 2
	case b>>4 == 0xE:
		return 3
	case b>>3 == 0x1E:
		return 4
	}
	return 1
}

// score is a token's merge priority (0 without scores).
func (t *Tokenizer) score(id int) float32 {
	if t.v.Scores == nil {
		return 0
	}
	return t.v.Scores[id]
}

// spmSymbol is a span of the text in the merge list.
type spmSymbol struct {
	start, end int
	prev, next int
}

// bigram is a pair of adjacent symbols that joins into a token.
type bigram struct {
	score       float32
	left, right int
	size        int
}

// Bigrams go through a queue (heap.go) ordered by before: highest score
// first, leftmost on a tie.
//
//lint:ignore U1000 called through queue's type constraint (heap.go), which staticcheck does not follow
func (a bigram) before(b bigram) bool {
	return a.score > b.score || a.score == b.score && a.left < b.left
}
