package unit04

// queue is a binary heap whose items come out in the order of their before
// method: the BPE merge candidates (lowest rank first) and SentencePiece's
// bigrams (highest score first) both go through one. It is written out
// rather than taken from container/heap, whose interface would box every
// item pushed.
type queue[T interface{ before(T) bool }] []T

// push adds x.
func (q *queue[T]) push(x T) {
	h := append(*q, x)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].before(h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
	*q = h
}

// pop removes and returns the first item; the queue must not be empty.
func (q *queue[T]) pop() T {
	h := *q
	top := h[0]
	h[0] = h[len(h)-1]
	h = h[:len(h)-1]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].before(h[least]) {
			least = l
		}
		if r < len(h) && h[r].before(h[least]) {
			least = r
		}
		if least == i {
			break
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
	*q = h
	return top
}
