package unit07

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
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
	unit00.Check(layers > 0 && maxSeq > 0 && kvDim >= 0, "NewCache: layers and maxSeq must be positive, kvDim not negative")
	per := maxSeq * kvDim
	data := make([]float32, 2*layers*per) // one allocation for everything
	c := &Cache{bytes: 4 * len(data)}
	for l := range layers {
		k := data[2*l*per : (2*l+1)*per : (2*l+1)*per]
		v := data[(2*l+1)*per : (2*l+2)*per : (2*l+2)*per]
		c.keys = append(c.keys, unit03.MatOf(maxSeq, kvDim, k))
		c.values = append(c.values, unit03.MatOf(maxSeq, kvDim, v))
	}
	return c
}

// Len is the number of positions the cache holds.
func (c *Cache) Len() int { return c.len }

// Cap is the number of positions the cache can hold.
func (c *Cache) Cap() int { return c.keys[0].Rows }

// Bytes is the memory the cache holds, keys and values of every layer.
func (c *Cache) Bytes() int { return c.bytes }

// Keys returns layer l's key storage, all Cap() rows: rows 0 … Len()−1
// hold the cached positions, and a forward pass writes the next ones
// after them before calling Advance.
func (c *Cache) Keys(l int) unit03.Mat { return c.keys[l] }

// Values returns layer l's value storage, like Keys.
func (c *Cache) Values(l int) unit03.Mat { return c.values[l] }

// Past returns views of layer l's cached keys and values, rows
// 0 … Len()−1, sharing the cache's memory.
func (c *Cache) Past(l int) (k, v unit03.Mat) {
	return c.keys[l].Block(0, c.len, 0, c.keys[l].Cols), c.values[l].Block(0, c.len, 0, c.values[l].Cols)
}

// Advance adds the n positions after Len(), whose rows a forward pass has
// written in every layer, to the cache. Going beyond Cap() is an error
// wrapping ErrContextFull, a negative n one wrapping unit00.ErrInvalid, and
// the cache is then unchanged.
func (c *Cache) Advance(n int) error {
	if n < 0 {
		return fmt.Errorf("kv cache: advance by %d positions: %w", n, unit00.ErrInvalid)
	}
	if c.len+n > c.Cap() {
		return fmt.Errorf("kv cache: %d positions after %d would exceed its capacity of %d: %w", n, c.len, c.Cap(), ErrContextFull)
	}
	c.len += n
	return nil
}

// Truncate keeps the first n positions and forgets the rest, so the next
// tokens go to position n. n beyond Len() is an error wrapping
// unit00.ErrInvalid.
func (c *Cache) Truncate(n int) error {
	if n < 0 || n > c.len {
		return fmt.Errorf("kv cache: cannot truncate %d positions to %d: %w", c.len, n, unit00.ErrInvalid)
	}
	c.len = n
	return nil
}

// Reset empties the cache; its memory is kept for the next sequence.
func (c *Cache) Reset() { c.len = 0 }
