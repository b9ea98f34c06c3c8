package unit13

import (
	"context"
	"net/http"

	"github.com/llmforge/forge/unit04"
)

// Server answers the OpenAI API over a Scheduler: the handlers turn a
// request into tokens and a Request, and read its Events back as text,
// while Run steps the scheduler in a loop of its own.
type Server struct {
	// Your fields (see docs/unit13.md, 13.4).
}

// NewServer returns a server over s and tok, the model's tokenizer. A nil
// scheduler or tokenizer is an error wrapping unit00.ErrInvalid.
func NewServer(s *Scheduler, tok *unit04.Tokenizer, opt ServerOptions) (*Server, error) {
	panic("TODO(13.4): write NewServer, see docs/unit13.md")
}

// Run steps the scheduler while it has work, hands each Event to its
// request's handler, and sleeps until a request comes when it has none.
// It returns when ctx ends, ending every request still in flight with an
// error; from then on the server takes none.
func (s *Server) Run(ctx context.Context) error {
	panic("TODO(13.4): write Server.Run, see docs/unit13.md")
}

// Handler returns the API's routes.
func (s *Server) Handler() http.Handler {
	panic("TODO(13.4): write Server.Handler, see docs/unit13.md")
}
