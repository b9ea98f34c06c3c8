package unit10

import (
	"github.com/llmforge/forge/unit07"
)

// Greedy runs the prompt through the session and then generates n tokens,
// each the highest-scoring one (the first, on a tie, as llama.cpp picks),
// feeding each back in. It returns the n tokens; a session error (a bad
// token, a full context: unit07.ErrContextFull) stops it and is returned
// with the tokens so far.
// The last token is not fed back (nothing would read its logits), so a
// context of len(prompt)+n−1 positions is enough; n = 0 returns no tokens.
func Greedy(s *unit07.Session, prompt []int, n int) ([]int, error) {
	panic("TODO(10.5): write Greedy, see docs/unit10.md")
}
