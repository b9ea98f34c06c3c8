package unit07

import (
	"github.com/llmforge/forge/unit03"
)

// Cache holds, for every layer, the keys and values of positions
// 0 … Len()−1, in rows of kvDim floats (the key/value heads only: with GQA a
// cache is Heads/KVHeads times smaller than the queries would need). All of
// its memory is allocated once, for Cap() positions.
type Cache struct {
	keys, values []unit03.Mat // per layer, Cap() × kvDim
	len          int
	bytes        int
}

// NewCache allocates a cache for layers layers of maxSeq positions, kvDim
// floats per position and layer for the keys and as many for the values.
// A kvDim of 0 makes a cache that only counts positions, for a model whose
// Store keeps the keys and values (unit08's F16 and Q8_0 caches). Layers
// or maxSeq not positive, or kvDim negative, is a programming error: it
// panics (unit00.Check).
func NewCache(layers, maxSeq, kvDim int) *Cache {
	panic("TODO(7.1): write NewCache, see docs/unit07.md")
}

// Len is the number of positions the cache holds.
func (c *Cache) Len() int {
	panic("TODO(7.1): write Cache.Len, see docs/unit07.md")
}

// Cap is the number of positions the cache can hold.
func (c *Cache) Cap() int {
	panic("TODO(7.1): write Cache.Cap, see docs/unit07.md")
}

// Bytes is the memory the cache holds, keys and values of every layer.
func (c *Cache) Bytes() int {
	panic("TODO(7.1): write Cache.Bytes, see docs/unit07.md")
}

// Keys returns layer l's key storage, all Cap() rows: rows 0 … Len()−1
// hold the cached positions, and a forward pass writes the next ones
// after them before calling Advance.
func (c *Cache) Keys(l int) unit03.Mat {
	panic("TODO(7.1): write Cache.Keys, see docs/unit07.md")
}

// Values returns layer l's value storage, like Keys.
func (c *Cache) Values(l int) unit03.Mat {
	panic("TODO(7.1): write Cache.Values, see docs/unit07.md")
}

// Past returns views of layer l's cached keys and values, rows
// 0 … Len()−1, sharing the cache's memory.
func (c *Cache) Past(l int) (k, v unit03.Mat) {
	panic("TODO(7.1): write Cache.Past, see docs/unit07.md")
}

// Advance adds the n positions after Len(), whose rows a forward pass has
// written in every layer, to the cache. Going beyond Cap() is an error
// wrapping ErrContextFull, a negative n one wrapping unit00.ErrInvalid, and
// the cache is then unchanged.
func (c *Cache) Advance(n int) error {
	panic("TODO(7.1): write Cache.Advance, see docs/unit07.md")
}

// Truncate keeps the first n positions and forgets the rest, so the next
// tokens go to position n. n beyond Len() is an error wrapping
// unit00.ErrInvalid.
func (c *Cache) Truncate(n int) error {
	panic("TODO(7.4): write Cache.Truncate, see docs/unit07.md")
}

// Reset empties the cache; its memory is kept for the next sequence.
func (c *Cache) Reset() {
	panic("TODO(7.4): write Cache.Reset, see docs/unit07.md")
}
