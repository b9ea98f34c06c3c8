package unit08

import (
	"fmt"
	"strings"

	"github.com/llmforge/forge/unit00"
)

// CacheType is how a KV cache keeps its keys or values (8.5), named as
// llama.cpp's --cache-type-k and --cache-type-v name them.
type CacheType int

const (
	// CacheF32 keeps float32s: 4 bytes a value, exact.
	CacheF32 CacheType = iota
	// CacheF16 keeps IEEE halves (unit01.F32ToF16, ties to even): 2 bytes
	// a value, a relative error of at most 2⁻¹¹. llama.cpp's default.
	CacheF16
	// CacheQ8_0 keeps ggml's Q8_0 blocks: for every 32 values of a row, an
	// F16 scale d and 32 int8s q, the value d·q. 34 bytes per 32 values.
	CacheQ8_0
)

// Q8Block is the number of values in a Q8_0 block, and Q8BlockBytes its
// size: the F16 scale, then the 32 int8s.
const (
	Q8Block      = 32
	Q8BlockBytes = 2 + Q8Block
)

var cacheNames = [...]string{CacheF32: "f32", CacheF16: "f16", CacheQ8_0: "q8_0"}

// String is the type's llama.cpp name: f32, f16 or q8_0.
func (t CacheType) String() string {
	if t < 0 || int(t) >= len(cacheNames) {
		return fmt.Sprintf("CacheType(%d)", int(t))
	}
	return cacheNames[t]
}

// Valid reports whether t is one of the three types.
func (t CacheType) Valid() bool { return t >= 0 && int(t) < len(cacheNames) }

// RowBytes is the memory of a row of n values in type t (for Q8_0, n must
// be a multiple of Q8Block).
func (t CacheType) RowBytes(n int) int {
	switch t {
	case CacheF16:
		return 2 * n
	case CacheQ8_0:
		return n / Q8Block * Q8BlockBytes
	}
	return 4 * n
}

// ParseCacheType reads a type as llama.cpp's flags spell it (any case).
// llama.cpp's other cache types (bf16, q4_0, q4_1, iq4_nl, q5_0, q5_1)
// and anything else are an error wrapping unit00.ErrInvalid that lists
// the ones Forge has.
func ParseCacheType(s string) (CacheType, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for t, n := range cacheNames {
		if name == n {
			return CacheType(t), nil
		}
	}
	switch name {
	case "bf16", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1":
		return 0, fmt.Errorf("cache type %q: llama.cpp has it, Forge does not; use f32, f16 or q8_0: %w", s, unit00.ErrInvalid)
	}
	return 0, fmt.Errorf("cache type %q: want f32, f16 or q8_0: %w", s, unit00.ErrInvalid)
}
