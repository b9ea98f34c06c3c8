package unit05

import (
	"github.com/llmforge/forge/unit03"
)

// Embed sets row t of x to the embedding of tokens[t]: row tokens[t] of
// table (Vocab × Dim). A token outside [0, Vocab) is bad input, an error
// naming its position and wrapping unit00.ErrInvalid, and x is then left
// unchanged. It panics (unit00.Check) if x is not len(tokens) × Dim.
func Embed(x unit03.Mat, table Matrix, tokens []int) error {
	panic("TODO(5.2): write Embed, see docs/unit05.md")
}
