package unit08

import (
	"github.com/llmforge/forge/unit05"
)

// Use gives m flash attention: a Flash for m's heads and head width with a
// worker per thread of m's pool, set as m.Attention, so that every block
// of every later pass attends through it. It returns the Flash (its Bytes
// is the attention's scratch). An error of New is returned wrapped, and m
// is then unchanged.
func Use(m *unit05.Model) (*Flash, error) {
	panic("TODO(8.4): write Use, see docs/unit08.md")
}
