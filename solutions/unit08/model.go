package unit08

import (
	"fmt"

	"github.com/llmforge/forge/unit05"
)

// Use gives m flash attention: a Flash for m's heads and head width with a
// worker per thread of m's pool, set as m.Attention, so that every block
// of every later pass attends through it. It returns the Flash (its Bytes
// is the attention's scratch). An error of New is returned wrapped, and m
// is then unchanged.
func Use(m *unit05.Model) (*Flash, error) {
	c := m.Config
	f, err := New(c.Heads, c.KVHeads, c.HeadDim, m.Pool.Threads())
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m.Attention = f
	return f, nil
}
