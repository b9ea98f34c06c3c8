package unit07

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

func TestC7_1_Cache(t *testing.T) {
	const layers, maxSeq, kvDim = 3, 10, 8
	c := NewCache(layers, maxSeq, kvDim)
	if c.Len() != 0 || c.Cap() != maxSeq {
		t.Fatalf("NewCache(%d, %d, %d): Len %d, Cap %d; want 0 and %d", layers, maxSeq, kvDim, c.Len(), c.Cap(), maxSeq)
	}
	if want := 2 * layers * maxSeq * kvDim * 4; c.Bytes() != want {
		t.Errorf("Bytes() = %d, want %d: keys and values, every layer, %d positions of %d float32s", c.Bytes(), want, maxSeq, kvDim)
	}
	// Every layer's keys and values are their own Cap × kvDim memory.
	for l := range layers {
		for _, m := range []struct {
			what string
			rows int
			cols int
		}{{"Keys", c.Keys(l).Rows, c.Keys(l).Cols}, {"Values", c.Values(l).Rows, c.Values(l).Cols}} {
			if m.rows != maxSeq || m.cols != kvDim {
				t.Fatalf("%s(%d) is %d×%d, want %d×%d (Cap × kvDim)", m.what, l, m.rows, m.cols, maxSeq, kvDim)
			}
		}
		// A view whose capacity runs on into the next block lets an append
		// (or a reslice past its end) overwrite another layer's values.
		for _, m := range []struct {
			what string
			data []float32
		}{{"Keys", c.Keys(l).Data}, {"Values", c.Values(l).Data}} {
			if len(m.data) != maxSeq*kvDim || cap(m.data) != len(m.data) {
				t.Fatalf("%s(%d).Data has length %d and capacity %d, want both %d: cut each block with a full slice expression, data[a:b:b], so its capacity ends where the block does", m.what, l, len(m.data), cap(m.data), maxSeq*kvDim)
			}
		}
		c.Keys(l).Set(maxSeq-1, kvDim-1, float32(10*l+1))
		c.Values(l).Set(maxSeq-1, kvDim-1, float32(10*l+2))
	}
	for l := range layers {
		if k, v := c.Keys(l).At(maxSeq-1, kvDim-1), c.Values(l).At(maxSeq-1, kvDim-1); k != float32(10*l+1) || v != float32(10*l+2) {
			t.Fatalf("layer %d's last key/value is %v/%v after writing %v/%v into every layer: layers or keys and values share memory", l, k, v, 10*l+1, 10*l+2)
		}
	}
	// Advance and Past: views of rows 0 … Len−1, sharing the cache's memory.
	c.Keys(1).Set(2, 3, 42)
	c.Values(1).Set(3, 0, 43)
	if err := c.Advance(4); err != nil || c.Len() != 4 {
		t.Fatalf("Advance(4) on an empty cache of 10: %v, Len %d", err, c.Len())
	}
	k, v := c.Past(1)
	if k.Rows != 4 || k.Cols != kvDim || k.At(2, 3) != 42 {
		t.Fatalf("Past(1) after Advance(4): keys %d×%d with (2,3) = %v; want a 4×%d view holding what was written (42)", k.Rows, k.Cols, k.At(2, 3), kvDim)
	}
	if v.Rows != 4 || v.Cols != kvDim || v.At(3, 0) != 43 {
		t.Fatalf("Past(1) after Advance(4): values %d×%d with (3,0) = %v; want a 4×%d view holding what was written (43)", v.Rows, v.Cols, v.At(3, 0), kvDim)
	}
	k.Set(0, 0, 7)
	if c.Keys(1).At(0, 0) != 7 {
		t.Errorf("Past returned a copy: writing into it did not change the cache")
	}
	if err := c.Advance(6); err != nil || c.Len() != 10 {
		t.Fatalf("Advance(6) to exactly the capacity: %v, Len %d", err, c.Len())
	}
	if err := c.Advance(1); !errors.Is(err, ErrContextFull) || c.Len() != 10 {
		t.Errorf("Advance(1) on a full cache: error %v, Len %d; want ErrContextFull and Len unchanged", err, c.Len())
	}
	if err := c.Advance(-1); !errors.Is(err, unit00.ErrInvalid) || c.Len() != 10 {
		t.Errorf("Advance(-1): error %v, Len %d; want unit00.ErrInvalid and Len unchanged", err, c.Len())
	}
	// Layers or positions not positive, or a negative width, are a
	// programming error.
	for _, bad := range [][3]int{{0, 10, 8}, {3, 0, 8}, {-1, 10, 8}, {3, -10, 8}, {3, 10, -8}, {3, 10, -1}} {
		mustPanic(t, fmt.Sprintf("NewCache(%d, %d, %d)", bad[0], bad[1], bad[2]), func() { NewCache(bad[0], bad[1], bad[2]) })
	}
	// The smallest cache: one layer, one position, one float.
	one := NewCache(1, 1, 1)
	if one.Cap() != 1 || one.Bytes() != 8 || one.Len() != 0 {
		t.Errorf("NewCache(1, 1, 1): Cap %d, Bytes %d, Len %d; want 1, 8, 0", one.Cap(), one.Bytes(), one.Len())
	}
	// A cache of width 0 counts positions and holds nothing (a model's
	// Store keeps the rows).
	counter := NewCache(layers, maxSeq, 0)
	if counter.Cap() != maxSeq || counter.Bytes() != 0 || counter.Len() != 0 || counter.Keys(layers-1).Cols != 0 {
		t.Errorf("NewCache(%d, %d, 0): Cap %d, Bytes %d, Len %d, Keys(%d) %d wide; want %d, 0, 0 and 0", layers, maxSeq, counter.Cap(), counter.Bytes(), counter.Len(), layers-1, counter.Keys(layers-1).Cols, maxSeq)
	}
	require.NoError(t, counter.Advance(maxSeq), "Advance(%d) on a counting cache of %d", maxSeq, maxSeq)
	require.ErrorIs(t, counter.Advance(1), ErrContextFull, "Advance(1) on a full counting cache")
	// On an empty cache: nothing to add is fine, a negative count or more
	// than the capacity at once are errors that change nothing.
	empty := NewCache(layers, maxSeq, kvDim)
	require.NoError(t, empty.Advance(0), "Advance(0) on an empty cache")
	require.ErrorIs(t, empty.Advance(-1), unit00.ErrInvalid, "Advance(-1) on an empty cache")
	require.ErrorIs(t, empty.Advance(maxSeq+1), ErrContextFull, "Advance(%d) on an empty cache of %d", maxSeq+1, maxSeq)
	if empty.Len() != 0 {
		t.Errorf("Len() = %d after Advance(0) and two rejected calls on an empty cache, want 0", empty.Len())
	}
	require.NoError(t, empty.Advance(maxSeq), "Advance(%d) on an empty cache of %d: exactly full", maxSeq, maxSeq)
	if !oracle.RaceEnabled {
		if n := oracle.AllocsPerRun(50, func() { _, _ = c.Past(2); _ = c.Keys(0); _ = c.Advance(0) }); n != 0 {
			t.Errorf("Past, Keys and Advance allocate %v times per call, want 0: the cache's memory is allocated once, in NewCache", n)
		}
	}
}
