package unit11

import (
	"context"
	"strings"

	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit07"
)

// TextStream turns generated tokens into text that is safe to show as it
// comes: whole UTF-8 characters only (a character may span tokens), and
// nothing that could be the start of a stop string until the next tokens
// show it is not one.
type TextStream struct {
	dec     *unit04.Stream
	stops   []string
	pending string // decoded, not yet handed out: it may begin a stop string
	stopped bool
}

// NewTextStream starts a stream of the text that follows prompt, over
// tok's vocabulary, that ends at the first of stops (empty strings are
// ignored). The prompt's tokens go through the decoder first, unshown: the
// text continues from them, so a SentencePiece token's leading space is
// kept (it is the space after the prompt, not the start of a text), and a
// character the prompt began is completed.
func NewTextStream(tok *unit04.Tokenizer, prompt []int, stops []string) *TextStream {
	t := &TextStream{dec: tok.NewStream()}
	for _, id := range prompt {
		t.dec.Next(id)
	}
	for _, s := range stops {
		if s != "" {
			t.stops = append(t.stops, s)
		}
	}
	return t
}

// Push adds a token and returns the text that is now safe to show. When a
// stop string appears, it returns the text before it and true; the stop
// string and whatever followed it are dropped, and later calls return
// nothing.
func (t *TextStream) Push(id int) (string, bool) {
	if t.stopped {
		return "", true
	}
	t.pending += t.dec.Next(id)
	if i := t.firstStop(); i >= 0 {
		out := t.pending[:i]
		t.pending, t.stopped = "", true
		return out, true
	}
	keep := t.heldBack()
	out := t.pending[:len(t.pending)-keep]
	t.pending = t.pending[len(t.pending)-keep:]
	return out, false
}

// Flush ends the stream and returns the text still held: an unfinished
// character as it is, or a tail that began a stop string which never came.
func (t *TextStream) Flush() string {
	if t.stopped {
		return ""
	}
	out := t.pending + t.dec.Flush()
	t.pending, t.stopped = "", true
	return out
}

// firstStop returns where the earliest stop string starts in pending, or
// −1.
func (t *TextStream) firstStop() int {
	first := -1
	for _, s := range t.stops {
		if i := strings.Index(t.pending, s); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}

// heldBack returns the length of the longest tail of pending that is a
// proper prefix of a stop string: text that must wait for the next token.
// Stop strings and pending are whole characters, so the cut never splits
// one.
func (t *TextStream) heldBack() int {
	keep := 0
	for _, s := range t.stops {
		for n := min(len(s)-1, len(t.pending)); n > keep; n-- {
			if strings.HasSuffix(t.pending, s[:n]) {
				keep = n
				break
			}
		}
	}
	return keep
}

// Run is Generate with the text streamed: each piece of text, as soon as
// it is safe to show (see TextStream), goes to emit, and generation stops
// at the first of stops (StopString) or when emit returns an error (which
// Run returns). When generation ends normally, the text still held back is
// emitted last; after an error or a cancellation emit is not called again.
// Result.Text is the text emit accepted. Cancellation, limits and errors are
// Generate's; opt.OnToken, if set, is still called.
func Run(ctx context.Context, s *unit07.Session, smp *Sampler, tok *unit04.Tokenizer, prompt []int, stops []string, opt Options, emit func(string) error) (Result, error) {
	ts := NewTextStream(tok, prompt, stops)
	var text strings.Builder
	var emitErr error
	stopped := false
	send := func(piece string) bool {
		if piece == "" {
			return true
		}
		if emitErr = emit(piece); emitErr != nil {
			return false
		}
		text.WriteString(piece)
		return true
	}
	user := opt.OnToken
	opt.OnToken = func(id int) bool {
		piece, stop := ts.Push(id)
		stopped = stop
		if !send(piece) || stop {
			return false
		}
		return user == nil || user(id)
	}
	res, err := Generate(ctx, s, smp, prompt, opt)
	switch {
	case emitErr != nil:
		err = emitErr
	case stopped:
		res.Stop = StopString
	case err == nil: // the end: what was held back is text after all
		send(ts.Flush())
		err = emitErr
	}
	res.Text = text.String()
	return res, err
}
