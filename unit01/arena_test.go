package unit01

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

func TestC1_2_Alloc(t *testing.T) {
	a := NewArena(1024)
	if a.Cap() != 1024 || a.Used() != 0 || a.HighWater() != 0 {
		t.Fatalf("NewArena(1024): Cap %d, Used %d, HighWater %d; want 1024, 0, 0", a.Cap(), a.Used(), a.HighWater())
	}
	var prevEnd uintptr
	for _, n := range []int{1, 3, 64, 65, 7, 100} {
		b, err := a.Alloc(n)
		if err != nil {
			t.Fatalf("Alloc(%d) with %d of 1024 bytes used: %v", n, a.Used(), err)
		}
		if len(b) != n || cap(b) != n {
			t.Errorf("Alloc(%d): len %d, cap %d; want both %d (a larger cap lets an append overwrite the next allocation)", n, len(b), cap(b), n)
		}
		p := addr(b)
		if p%Alignment != 0 {
			t.Errorf("Alloc(%d) returned an address %d bytes past a %d-byte boundary: round the position up before carving", n, p%Alignment, Alignment)
		}
		if p < prevEnd {
			t.Errorf("Alloc(%d) overlaps the previous allocation", n)
		}
		prevEnd = p + uintptr(n)
	}
	// 1, 3, 64, 65, 7, 100 bytes, each at the next multiple of 64:
	// 0+1, 64+3, 128+64, 192+65, 320+7, 384+100.
	if a.Used() != 484 || a.HighWater() != 484 {
		t.Errorf("after Alloc(1, 3, 64, 65, 7, 100): Used %d, HighWater %d; want 484 (padding counts)", a.Used(), a.HighWater())
	}
	if _, err := a.Alloc(-1); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Alloc(-1) error = %v, want unit00.ErrInvalid", err)
	}
	if b, err := a.Alloc(0); err != nil || len(b) != 0 {
		t.Errorf("Alloc(0): len %d, error %v; want an empty slice and no error (only a negative size is invalid)", len(b), err)
	}
	if _, err := a.Float32s(-1); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Float32s(-1) error = %v, want unit00.ErrInvalid", err)
	}
	used := a.Used()
	for _, n := range []int{1 << 62, math.MaxInt/4 + 1, math.MaxInt} { // 4·n overflows: to 0, to a negative, ...
		var err error
		if v, panicked := oracle.Panics(func() { _, err = a.Float32s(n) }); panicked {
			t.Errorf("Float32s(%d) panicked (%v); want an error wrapping ErrArenaFull (4·n overflows int: check n against the capacity first)", n, v)
		} else if !errors.Is(err, ErrArenaFull) || a.Used() != used {
			t.Errorf("Float32s(%d): error = %v, Used %d → %d; want ErrArenaFull and the arena unchanged", n, err, used, a.Used())
		}
	}
	if _, err := a.Tensor(F32, MustShape(1<<61, 2)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Arena.Tensor(F32, [2^61 2]): error = %v, want unit00.ErrInvalid (its size in bytes overflows int)", err)
	}
	// 2·(MaxInt/8)·4 bytes = MaxInt − 7: it fits in an int, not in the arena.
	if _, err := a.Tensor(F32, MustShape(2, math.MaxInt/8)); !errors.Is(err, ErrArenaFull) {
		t.Errorf("Arena.Tensor(F32, [2 MaxInt/8]) (MaxInt − 7 bytes): error = %v, want ErrArenaFull (the size fits in an int; only the arena is too small)", err)
	}
	exact := NewArena(128)
	if f, err := exact.Float32s(32); err != nil || len(f) != 32 || exact.Used() != 128 {
		t.Errorf("Float32s(32) in an empty 128-byte arena: len %d, Used %d, error %v; want 32 float32s filling it exactly", len(f), exact.Used(), err)
	}
	// Within the capacity but not within what is left: the allocation
	// itself fails, and that error must come back, not a slice of nothing.
	part := NewArena(128)
	if _, err := part.Alloc(1); err != nil {
		t.Fatal(err)
	}
	var f []float32
	var err error
	if v, panicked := oracle.Panics(func() { f, err = part.Float32s(32) }); panicked {
		t.Errorf("Float32s(32) in a 128-byte arena with 1 byte used panicked (%v); want ErrArenaFull: 128 bytes no longer fit after the first 64", v)
	} else if !errors.Is(err, ErrArenaFull) || f != nil || part.Used() != 1 {
		t.Errorf("Float32s(32) in a 128-byte arena with 1 byte used: %d float32s, error %v, Used %d; want none, ErrArenaFull and Used still 1", len(f), err, part.Used())
	}
	// The errors name the count asked for, not the bytes it became.
	for _, n := range []int{-1, 41} { // 41 > 128/4 float32s; 41·4 = 164 bytes
		_, err := part.Float32s(n)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(n)) || strings.Contains(err.Error(), fmt.Sprint(4*n)) {
			t.Errorf("Float32s(%d) in a 128-byte arena: error %v; want one that names %d float32s (check the count before it becomes %d bytes)", n, err, n, 4*n)
		}
	}
}

func TestC1_2_Full(t *testing.T) {
	a := NewArena(256)
	if _, err := a.Alloc(100); err != nil {
		t.Fatal(err)
	}
	b, err := a.Alloc(128) // starts at 128, ends exactly at 256
	if err != nil || len(b) != 128 {
		t.Fatalf("Alloc(128) at position 128 of a 256-byte arena must fit exactly: %v", err)
	}
	used := a.Used()
	_, err = a.Alloc(1)
	if !errors.Is(err, ErrArenaFull) {
		t.Fatalf("Alloc(1) in a full arena: error = %v, want one wrapping ErrArenaFull", err)
	}
	if a.Used() != used {
		t.Errorf("a failed Alloc changed Used from %d to %d: a failure must leave the arena as it was", used, a.Used())
	}
	if _, err := NewArena(64).Alloc(65); !errors.Is(err, ErrArenaFull) {
		t.Errorf("Alloc(65) in a 64-byte arena: error = %v, want ErrArenaFull", err)
	}
	big := NewArena(128)
	big.Alloc(65)
	if _, err := big.Alloc(1); !errors.Is(err, ErrArenaFull) {
		// the next aligned position is 128: nothing fits after it
		t.Errorf("Alloc(1) at aligned position 128 of a 128-byte arena: error = %v, want ErrArenaFull", err)
	}
	// Zero bytes always fit, even in an arena filled to the last byte.
	exact := NewArena(128)
	if _, err := exact.Alloc(128); err != nil {
		t.Fatalf("Alloc(128) in a 128-byte arena must fit exactly: %v", err)
	}
	if b, err := exact.Alloc(0); err != nil || len(b) != 0 {
		t.Errorf("Alloc(0) in an exactly full arena: len %d, error %v; want an empty slice and no error (zero bytes always fit)", len(b), err)
	}
	if f, err := exact.Float32s(0); err != nil || f == nil || len(f) != 0 {
		t.Errorf("Float32s(0) in an exactly full arena: %v (nil: %v), error %v; want an empty, non-nil slice and no error", f, f == nil, err)
	}
}

func TestC1_2_ResetAndRewind(t *testing.T) {
	a := NewArena(4096)
	first, _ := a.Alloc(100)
	a.Alloc(200)
	high := a.Used()
	a.Reset()
	if a.Used() != 0 || a.HighWater() != high {
		t.Errorf("after Reset: Used %d, HighWater %d; want 0, %d (HighWater remembers the peak)", a.Used(), a.HighWater(), high)
	}
	again, _ := a.Alloc(100)
	if addr(again) != addr(first) {
		t.Errorf("after Reset, the first Alloc must reuse the arena's first bytes")
	}

	here := a.Mark()
	if v, panicked := oracle.Panics(func() { a.Rewind(here) }); panicked || a.Used() != 100 {
		t.Errorf("Rewind to a mark taken at the current position: panicked %v (%v), Used %d; want no panic and nothing changed (Used 100)", panicked, v, a.Used())
	}
	pos := a.Used()
	m := a.Mark()
	x, _ := a.Alloc(10)
	a.Alloc(1000)
	a.Rewind(m)
	if a.Used() != pos {
		t.Errorf("Rewind(mark at %d): Used = %d", pos, a.Used())
	}
	y, _ := a.Alloc(10)
	if addr(x) != addr(y) {
		t.Errorf("after Rewind, the next Alloc must reuse the memory handed out after the mark")
	}
	if a.HighWater() < 1000 {
		t.Errorf("HighWater = %d after an allocation of 1000 bytes", a.HighWater())
	}
	before := a.Mark() // taken at a small position before a Reset
	a.Alloc(500)
	a.Reset()
	a.Alloc(3000) // new allocations now cover where the mark points
	checkPanics(t, "Rewind to a mark taken before Reset (the next Alloc would overwrite memory handed out since the Reset)", func() { a.Rewind(before) })
	m2 := a.Mark()
	a.Alloc(10)
	ahead := a.Mark()
	a.Rewind(m2)
	checkPanics(t, "Rewind to a mark ahead of the position (taken after a point since rewound)", func() { a.Rewind(ahead) })
	// One byte ahead is as stale as a thousand.
	a.Reset()
	start := a.Mark()
	a.Alloc(1)
	oneAhead := a.Mark()
	a.Rewind(start)
	checkPanics(t, "Rewind to a mark one byte ahead of the position", func() { a.Rewind(oneAhead) })
}

func TestC1_2_Carving(t *testing.T) {
	a := NewArena(1 << 16)
	a.Alloc(3)
	f, err := a.Float32s(10)
	if err != nil || len(f) != 10 {
		t.Fatalf("Float32s(10): len %d, err %v", len(f), err)
	}
	if a.Used() != 64+40 {
		t.Errorf("after Alloc(3) and Float32s(10), Used = %d; want 104: the float32s start at 64 and take 4 bytes each", a.Used())
	}
	if p := uintptr(unsafe.Pointer(&f[0])); p%Alignment != 0 {
		t.Errorf("Float32s is %d bytes past a %d-byte boundary", p%Alignment, Alignment)
	}
	before := StorageAllocations()
	x, err := a.Tensor(F32, MustShape(4, 5))
	if err != nil {
		t.Fatalf("Tensor(F32, [4 5]): %v", err)
	}
	if StorageAllocations() != before {
		t.Errorf("Arena.Tensor created a new Storage: it must view the arena's own")
	}
	if !x.IsContiguous() || x.Numel() != 20 || x.DType() != F32 {
		t.Errorf("Arena.Tensor(F32, [4 5]) = contiguous %v, numel %d, dtype %v", x.IsContiguous(), x.Numel(), x.DType())
	}
	d := x.F32()
	if p := uintptr(unsafe.Pointer(&d[0])); p%Alignment != 0 {
		t.Errorf("an arena tensor's data starts %d bytes past a %d-byte boundary", p%Alignment, Alignment)
	}
	// 3 bytes at 0, 40 at 64: the tensor's 80 bytes start at 128.
	if at := uintptr(unsafe.Pointer(&d[0])) - addr(x.Storage().Bytes()); at != 128 || a.Used() != 208 {
		t.Errorf("after Alloc(3) and Float32s(10), Tensor(F32, [4 5]) starts at byte %d of the arena with Used %d; want 128 and 208 (the offset counts elements, not bytes)", at, a.Used())
	}
	if &d[0] == &f[0] {
		t.Errorf("the tensor overlaps the earlier Float32s allocation")
	}
	y, _ := a.Tensor(F32, MustShape(3))
	y.F32()[0] = 7
	if x.F32()[19] == 7 || f[9] == 7 {
		t.Errorf("a write to a second arena tensor showed up in an earlier allocation: allocations overlap")
	}
	if y.Storage() != x.Storage() {
		t.Errorf("two tensors of one arena view different Storages")
	}
	if _, err := a.Tensor(Q4_0, MustShape(32)); !errors.Is(err, unit00.ErrUnsupported) {
		t.Errorf("Arena.Tensor(Q4_0, ...) error = %v, want unit00.ErrUnsupported", err)
	}
	if _, err := a.Tensor(DType(99), MustShape(4)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Arena.Tensor(DType(99), ...) error = %v, want unit00.ErrInvalid (an unknown type)", err)
	}
	if _, err := NewArena(64).Tensor(F32, MustShape(17)); !errors.Is(err, ErrArenaFull) {
		t.Errorf("a 68-byte tensor from a 64-byte arena: error = %v, want ErrArenaFull", err)
	}
}

func TestC1_2_NoHeap(t *testing.T) {
	a := NewArena(1 << 20)
	shape := MustShape(8, 8)
	allocs := testing.AllocsPerRun(100, func() {
		a.Reset()
		a.Alloc(100)
		a.Float32s(64)
		a.Tensor(F32, shape)
	})
	if allocs != 0 {
		t.Errorf("Alloc, Float32s and Tensor made %v heap allocations per round; an arena hands out its own memory and needs none", allocs)
	}
}
