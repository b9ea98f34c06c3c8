package unit05

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// Embed sets row t of x to the embedding of tokens[t]: row tokens[t] of
// table (Vocab × Dim). A token outside [0, Vocab) is bad input, an error
// naming its position and wrapping unit00.ErrInvalid, and x is then left
// unchanged. It panics (unit00.Check) if x is not len(tokens) × Dim.
func Embed(x unit03.Mat, table Matrix, tokens []int) error {
	vocab, dim := table.Dims()
	unit00.Check(x.Rows == len(tokens) && x.Cols == dim, "Embed: x must be len(tokens) × Dim")
	for t, tok := range tokens {
		if tok < 0 || tok >= vocab {
			return fmt.Errorf("token %d at position %d is outside the vocabulary [0, %d): %w", tok, t, vocab, unit00.ErrInvalid)
		}
	}
	for t, tok := range tokens {
		table.Row(x.Row(t), tok)
	}
	return nil
}
