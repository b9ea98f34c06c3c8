package unit11

import (
	"context"

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
	panic("TODO(11.4): write NewTextStream, see docs/unit11.md")
}

// Push adds a token and returns the text that is now safe to show. When a
// stop string appears, it returns the text before it and true; the stop
// string and whatever followed it are dropped, and later calls return
// nothing.
func (t *TextStream) Push(id int) (string, bool) {
	panic("TODO(11.4): write TextStream.Push, see docs/unit11.md")
}

// Flush ends the stream and returns the text still held: an unfinished
// character as it is, or a tail that began a stop string which never came.
func (t *TextStream) Flush() string {
	panic("TODO(11.4): write TextStream.Flush, see docs/unit11.md")
}

// Run is Generate with the text streamed: each piece of text, as soon as
// it is safe to show (see TextStream), goes to emit, and generation stops
// at the first of stops (StopString) or when emit returns an error (which
// Run returns). When generation ends normally, the text still held back is
// emitted last; after an error or a cancellation emit is not called again.
// Result.Text is the text emit accepted. Cancellation, limits and errors are
// Generate's; opt.OnToken, if set, is still called.
func Run(ctx context.Context, s *unit07.Session, smp *Sampler, tok *unit04.Tokenizer, prompt []int, stops []string, opt Options, emit func(string) error) (Result, error) {
	panic("TODO(11.4): write Run, see docs/unit11.md")
}
