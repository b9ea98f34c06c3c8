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

// UseCache gives m flash attention over a KV cache that keeps its keys as
// kt and its values as vt: a Flash as Use makes it, and a Store of m's
// Layers and MaxSeq positions set as m.Store, so that every block puts its
// keys and values there and attends over them. Make m's sessions after
// it: unit07's NewSession then keeps no rows of its own. An error of New
// or NewStore is returned wrapped, and m is then unchanged.
func UseCache(m *unit05.Model, kt, vt CacheType) (*Flash, *Store, error) {
	panic("TODO(8.5): write UseCache, see docs/unit08.md")
}
