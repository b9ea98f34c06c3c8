package unit08

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// roundF16 is x rounded to the nearest IEEE half, ties to even, worked out
// in float64 (every half and every rounding step here is exact): 11
// significant bits for a normal half, steps of 2⁻²⁴ below 2⁻¹⁴.
func roundF16(x float64) float64 {
	if math.Abs(x) < 0x1p-14 {
		return math.RoundToEven(x*0x1p24) / 0x1p24
	}
	m, e := math.Frexp(x) // x = m·2^e, 0.5 ≤ |m| < 1
	return math.Ldexp(math.RoundToEven(m*2048), e-11)
}

// roundQ8 is a row of float32s as a Q8_0 cache stores them, llama.cpp's
// CPU arithmetic written out: per block of 32, d = max|x|/127 in float32
// kept as a half, each q the nearest integer to x·(127/max|x|) in float32,
// ties to even, and the value d·q.
func roundQ8(row []float32) []float64 {
	out := make([]float64, len(row))
	for b := 0; b < len(row); b += 32 {
		var amax float32
		for _, x := range row[b : b+32] {
			amax = max(amax, float32(math.Abs(float64(x))))
		}
		d := roundF16(float64(amax / 127))
		var id float32
		if amax > 0 {
			id = 127 / amax
		}
		for i, x := range row[b : b+32] {
			out[b+i] = d * math.RoundToEven(float64(x*id))
		}
	}
	return out
}

// stored is m's rows 0 … n−1 as a cache of type ct holds them.
func stored(ct CacheType, m unit03.Mat, n int) []float64 {
	var out []float64
	for i := range n {
		switch ct {
		case CacheF16:
			for _, x := range m.Row(i) {
				out = append(out, roundF16(float64(x)))
			}
		case CacheQ8_0:
			out = append(out, roundQ8(m.Row(i))...)
		default:
			out = append(out, oracle.Float64s(m.Row(i))...)
		}
	}
	return out
}

// newStore makes a Flash and a Store, failing the test on an error.
func newStore(t testing.TB, c problem, threads, layers, maxSeq int, kt, vt CacheType) *Store {
	t.Helper()
	s, err := NewStore(newFlash(t, c.heads, c.kvHeads, c.hd, threads), layers, maxSeq, kt, vt)
	if err != nil {
		t.Fatalf("NewStore(%d layers, %d positions, %v, %v): %v", layers, maxSeq, kt, vt, err)
	}
	return s
}

// typePairs are the key and value types the tests run: each type on each
// side, and mixed.
var typePairs = [][2]CacheType{{CacheF32, CacheF32}, {CacheF16, CacheF16}, {CacheQ8_0, CacheQ8_0}, {CacheF16, CacheQ8_0}, {CacheQ8_0, CacheF32}, {CacheF32, CacheF16}}

// TestC8_5_NewStore: the memory of every type pair, and the errors.
func TestC8_5_NewStore(t *testing.T) {
	c := problem{8, 2, 64, 1, 0}
	for _, ty := range typePairs {
		s := newStore(t, c, 2, 3, 100, ty[0], ty[1])
		row := map[CacheType]int{CacheF32: 4 * 128, CacheF16: 2 * 128, CacheQ8_0: 4 * 34}
		if want := 3 * 100 * (row[ty[0]] + row[ty[1]]); s.Bytes() != want {
			t.Errorf("NewStore(3 layers, 100 positions, %v keys, %v values) holds %d bytes, want %d: a row of 2 KV heads of 64 is %d bytes as f32, %d as f16 and %d as q8_0 (4 blocks of 34)",
				ty[0], ty[1], s.Bytes(), want, row[CacheF32], row[CacheF16], row[CacheQ8_0])
		}
	}
	// The widening blocks are the Flash's scratch: Bytes counts them.
	f := newFlash(t, 8, 2, 64, 3)
	before := f.Bytes()
	if _, err := NewStore(f, 1, 10, CacheF16, CacheQ8_0); err != nil {
		t.Fatal(err)
	}
	if want := before + 3*2*TileKeys*64*4; f.Bytes() != want {
		t.Errorf("after NewStore, Flash.Bytes() = %d, want %d: the %d bytes of before and each of 3 workers' block of keys and block of values to widen into (TileKeys × headDim float32s each)", f.Bytes(), want, before)
	}
	bad := []struct {
		what          string
		hd, layers, n int
		kt, vt        CacheType
	}{
		{"no layers", 64, 0, 10, CacheF16, CacheF16},
		{"-1 layers", 64, -1, 10, CacheF16, CacheF16},
		{"no positions", 64, 2, 0, CacheF16, CacheF16},
		{"-5 positions", 64, 2, -5, CacheF16, CacheF16},
		{"key type 3", 64, 2, 10, CacheType(3), CacheF16},
		{"value type -1", 64, 2, 10, CacheF16, CacheType(-1)},
		{"q8_0 keys of head width 48", 48, 2, 10, CacheQ8_0, CacheF32},
		{"q8_0 values of head width 16", 16, 2, 10, CacheF16, CacheQ8_0},
	}
	for _, b := range bad {
		f := newFlash(t, 4, 2, b.hd, 1)
		s, err := NewStore(f, b.layers, b.n, b.kt, b.vt)
		if s != nil || !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("NewStore with %s: %v, %v; want nil and an error wrapping unit00.ErrInvalid", b.what, s, err)
		}
	}
	// Q8_0 for a head width of exactly one block, and of 96 (three) is fine.
	for _, hd := range []int{32, 96} {
		if _, err := NewStore(newFlash(t, 2, 1, hd, 1), 1, 1, CacheQ8_0, CacheQ8_0); err != nil {
			t.Errorf("NewStore(q8_0) for head width %d: %v, want no error (a multiple of 32)", hd, err)
		}
	}
}

// TestC8_5_Attend: keys and values put into a store of each type pair,
// then attended by a prompt's rows (Prefill's road) and by a decode step
// split over threads: the result equals the float64 oracle's attention over
// the keys and values as the store keeps them (rounded to F16, or to
// Q8_0's blocks).
func TestC8_5_Attend(t *testing.T) {
	ps, done := pools()
	defer done()
	// Head widths of one Q8_0 block to eight (256: more 16-value steps in a
	// row than any narrower head takes).
	probs := []problem{{8, 2, 32, 70, 200}, {4, 1, 64, 1, 700}, {4, 2, 32, 1, 14}, {6, 3, 32, 130, 0}, {8, 2, 32, 1, 0}, {2, 2, 96, 1, 300}, {2, 1, 256, 3, 130}, {4, 2, 256, 1, 290}}
	// Heads narrower than 16 halves, or not a multiple of 16 wide (1, 8,
	// 17, 24, 30): no Q8_0 (it needs multiples of 32), and no 16-value
	// steps for F16.
	narrow := []problem{{4, 2, 8, 5, 140}, {4, 2, 8, 1, 300}, {2, 1, 24, 1, 150}, {2, 1, 1, 3, 100}, {2, 1, 17, 3, 100}, {2, 1, 17, 1, 100}, {2, 1, 30, 1, 150}}
	for i, ty := range append(typePairs, [2]CacheType{CacheF16, CacheF32}) {
		cases := probs
		if ty[0] != CacheQ8_0 && ty[1] != CacheQ8_0 {
			cases = append(cases[:len(probs):len(probs)], narrow...)
		}
		for j, c := range cases {
			q, k, v, _ := operands(c, uint64(500+10*i+j))
			S := c.pos0 + c.T
			want := oracle.Attention(oracle.Float64s(dense(q)), stored(ty[0], k, S), stored(ty[1], v, S), c.T, c.pos0, c.heads, c.kvHeads, c.hd)
			for _, p := range ps {
				s := newStore(t, c, 3, 2, S+7, ty[0], ty[1])
				// The earlier positions in two Puts, the rows' own in a
				// third, into layer 1; layer 0 gets other rows.
				s.Put(0, 0, v.Block(0, S, 0, v.Cols), k.Block(0, S, 0, k.Cols))
				s.Put(1, 0, k.Block(0, c.pos0/2, 0, k.Cols), v.Block(0, c.pos0/2, 0, v.Cols))
				s.Put(1, c.pos0/2, k.Block(c.pos0/2, c.pos0, 0, k.Cols), v.Block(c.pos0/2, c.pos0, 0, v.Cols))
				s.Put(1, c.pos0, k.Block(c.pos0, S, 0, k.Cols), v.Block(c.pos0, S, 0, v.Cols))
				out := nanMat(c.T, c.heads*c.hd)
				s.Attend(p, out, q, 1, c.heads, c.kvHeads, c.pos0)
				what := fmt.Sprintf("Store of %v keys and %v values: Attend, layer 1, %v, %d threads", ty[0], ty[1], c, p.Threads())
				oracle.AssertCloseShape(t, what, dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
				checkPadding(t, what, out)
			}
		}
	}
}

// TestC8_5_Rounding: rows built so that the rounding rule shows. One
// position, so the output is the stored value row itself; then two, where
// a key's rounding moves the scores. Q8_0: a block whose largest value is
// 127 has d = 1, so 2.5 and −3.5 sit exactly between two levels and go to
// the even one (2 and −4); F16: 1 + 2⁻¹¹ lies between 1 and 1 + 2⁻¹⁰ and
// goes to 1, 1 + 3·2⁻¹¹ to 1 + 2⁻⁹. A block whose largest value is
// exactly 1, and a block of zeros (d = 0), are stored as they should be.
func TestC8_5_Rounding(t *testing.T) {
	c := problem{1, 1, 32, 1, 0}
	row := make([]float32, 32)
	row[0], row[1], row[2], row[3], row[4] = 127, 2.5, -3.5, 1+0x1p-11, 1+3*0x1p-11
	// A block whose largest value is exactly 1, and one of zeros.
	unit := []float32{1, 0.5, -0.25, 0.3, -1, 0.75}
	for _, r := range [][]float32{row, append(unit, make([]float32, 26)...), make([]float32, 32)} {
		for _, ct := range []CacheType{CacheF16, CacheQ8_0} {
			s := newStore(t, c, 1, 1, 2, ct, ct)
			k, v := unit03.MatOf(1, 32, make([]float32, 32)), unit03.MatOf(1, 32, append([]float32(nil), r...))
			s.Put(0, 0, k, v)
			out := nanMat(1, 32)
			s.Attend(nil, out, unit03.MatOf(1, 32, make([]float32, 32)), 0, 1, 1, 0)
			want := stored(ct, v, 1)
			oracle.AssertClose(t, fmt.Sprintf("the only stored value row %v, %v", r[:6], ct), dense(out), want, oracle.Tol{})
		}
	}
	// Keys: the query is large on the tie's coordinate, so a key rounded
	// the other way moves the score by 10·1/√32 and the weights with it.
	q := unit03.MatOf(1, 32, make([]float32, 32))
	q.Set(0, 1, 10)
	q.Set(0, 2, -4)
	k := unit03.MatOf(2, 32, make([]float32, 64))
	copy(k.Row(1), row)
	v := unit03.MatOf(2, 32, make([]float32, 64))
	v.Set(0, 0, 1)
	v.Set(1, 0, -1)
	for _, ct := range []CacheType{CacheF16, CacheQ8_0} {
		s := newStore(t, problem{1, 1, 32, 1, 1}, 1, 1, 2, ct, CacheF32)
		s.Put(0, 0, k, v)
		out := nanMat(1, 32)
		s.Attend(nil, out, q, 0, 1, 1, 1)
		want := oracle.Attention(oracle.Float64s(q.Row(0)), stored(ct, k, 2), stored(CacheF32, v, 2), 1, 1, 1, 1, 32)
		oracle.AssertClose(t, fmt.Sprintf("a decode step over keys stored as %v with ties in the rounding", ct), dense(out), want, attentionTol)
	}
}

// TestC8_5_Overwrite: a Put at positions already stored replaces them (a
// session truncated and run on), and leaves the neighbouring rows alone.
func TestC8_5_Overwrite(t *testing.T) {
	c := problem{4, 2, 32, 1, 40}
	q, k, v, want := operands(c, 540)
	_, k2, v2, _ := operands(c, 541)
	for _, ty := range typePairs {
		s := newStore(t, c, 1, 1, 41, ty[0], ty[1])
		s.Put(0, 0, k2.Block(0, 41, 0, k.Cols), v2.Block(0, 41, 0, v.Cols))
		s.Put(0, 0, k.Block(0, 20, 0, k.Cols), v.Block(0, 20, 0, v.Cols))
		s.Put(0, 20, k.Block(20, 41, 0, k.Cols), v.Block(20, 41, 0, v.Cols))
		out := nanMat(1, c.heads*c.hd)
		s.Attend(nil, out, q, 0, c.heads, c.kvHeads, c.pos0)
		if ty[0] == CacheF32 && ty[1] == CacheF32 {
			oracle.AssertCloseShape(t, "Attend after every position was put twice", dense(out), want, []int{c.heads, c.hd}, attentionTol)
			continue
		}
		w := oracle.Attention(oracle.Float64s(dense(q)), stored(ty[0], k, 41), stored(ty[1], v, 41), 1, c.pos0, c.heads, c.kvHeads, c.hd)
		oracle.AssertCloseShape(t, fmt.Sprintf("%v/%v: Attend after every position was put twice", ty[0], ty[1]), dense(out), w, []int{c.heads, c.hd}, attentionTol)
	}
}

// TestC8_5_NoAllocations: once made, a store's Put and Attend (a prompt's
// rows and a split decode step) allocate nothing.
func TestC8_5_NoAllocations(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := problem{8, 2, 32, 64, 600}
	q, k, v, _ := operands(c, 550)
	s := newStore(t, c, 2, 1, 700, CacheF16, CacheQ8_0)
	out := nanMat(c.T, c.heads*c.hd)
	S := c.pos0 + c.T
	if n := oracle.AllocsPerRun(3, func() {
		s.Put(0, 0, k.Block(0, S, 0, k.Cols), v.Block(0, S, 0, v.Cols))
		s.Attend(p, out, q, 0, c.heads, c.kvHeads, c.pos0)
		s.Attend(p, out.Block(0, 1, 0, out.Cols), q.Block(0, 1, 0, q.Cols), 0, c.heads, c.kvHeads, S-1)
	}); n != 0 {
		t.Errorf("Put, a prompt's Attend and a decode step's allocate %v times, want 0: everything is allocated in New and NewStore", n)
	}
}

// TestC8_5_Checks: a layer, positions or shapes that do not fit panic
// through unit00.Check.
func TestC8_5_Checks(t *testing.T) {
	c := problem{4, 2, 32, 3, 5}
	q, k, v, _ := operands(c, 560)
	s := newStore(t, c, 1, 2, 8, CacheF16, CacheQ8_0)
	out := nanMat(c.T, c.heads*c.hd)
	kr, vr := k.Block(0, 3, 0, k.Cols), v.Block(0, 3, 0, v.Cols)
	mustPanic(t, "Put into layer 2 of 2", func() { s.Put(2, 0, kr, vr) })
	mustPanic(t, "Put into layer -1", func() { s.Put(-1, 0, kr, vr) })
	mustPanic(t, "Put of 3 rows at position 6 of 8", func() { s.Put(0, 6, kr, vr) })
	mustPanic(t, "Put at position -1", func() { s.Put(0, -1, kr, vr) })
	mustPanic(t, "Put of keys one column short", func() { s.Put(0, 0, k.Block(0, 3, 0, k.Cols-1), vr) })
	mustPanic(t, "Put of values one column short", func() { s.Put(0, 0, kr, v.Block(0, 3, 0, v.Cols-1)) })
	mustPanic(t, "Put of 3 keys and 2 values", func() { s.Put(0, 0, kr, v.Block(0, 2, 0, v.Cols)) })
	s.Put(0, 5, kr, vr) // exactly full: positions 5, 6, 7 of 8
	mustPanic(t, "Attend layer 2 of 2", func() { s.Attend(nil, out, q, 2, c.heads, c.kvHeads, c.pos0) })
	mustPanic(t, "Attend layer -1", func() { s.Attend(nil, out, q, -1, c.heads, c.kvHeads, c.pos0) })
	mustPanic(t, "Attend of 3 rows at position 6 of 8", func() { s.Attend(nil, out, q, 0, c.heads, c.kvHeads, 6) })
	mustPanic(t, "Attend with 2 heads, not New's 4", func() { s.Attend(nil, out.Block(0, 3, 0, 64), q.Block(0, 3, 0, 64), 0, 2, 1, c.pos0) })
}
