package unit09

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// errorBound returns, for each element of x, how far its dequantized
// quantization may be from it: the bounds docs/unit09.md derives from each
// type's rule. Scales are stored as f16, which rounds a scale d by at most
// h(d) = d·2⁻¹¹ + 2⁻²⁵ (relative rounding, and half the smallest
// subnormal for scales below f16's normal range), an error every quant
// multiplies.
func errorBound(dt unit01.DType, x []float32) []float64 {
	n := len(x)
	bound := make([]float64, n)
	bs := dt.BlockSize()
	for o := 0; o < n; o += bs {
		blk := x[o : o+bs]
		amax, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for _, v := range blk {
			amax = math.Max(amax, math.Abs(float64(v)))
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
		for i, v := range blk {
			var b float64
			switch dt {
			case unit01.F32:
				b = 0
			case unit01.F16:
				b = h(math.Abs(float64(v))) // rounding x itself to f16
			case unit01.BF16:
				b = math.Abs(float64(v)) / 256
			case unit01.Q8_0: // step d = amax/127: half a step
				d := amax / 127
				b = d/2 + 127*h(d)
			case unit01.Q8_K: // the same step, d kept in f32
				b = amax / 127 * 0.5 * (1 + 1e-5)
			case unit01.Q4_0: // step d = amax/8; the far end clamps to 7d: a whole step
				d := amax / 8
				b = d + 8*h(d)
			case unit01.Q5_0: // step amax/16, the same reasoning
				d := amax / 16
				b = d + 16*h(d)
			case unit01.Q4_1: // step (max−min)/15, and the min stored as f16
				d := (hi - lo) / 15
				b = d/2 + 15*h(d) + h(math.Abs(lo))
			case unit01.Q4_K, unit01.Q5_K:
				b = kBound(dt, blk, i)
			case unit01.Q6_K:
				b = q6Bound(blk, i)
			}
			bound[o+i] = b*(1+1e-4) + 1e-12
		}
	}
	return bound
}

// h bounds the error of rounding a non-negative d to f16.
func h(d float64) float64 { return d/2048 + 0x1p-25 }

// kBound: a Q4_K/Q5_K sub-block of 32 spans [lo, hi] with lo ≤ 0 and wants
// step (hi−lo)/L (L = 15 or 31). The coded step d·sc is at most one d above
// it (sc rounds up, d = max step/63) and the coded offset at most dmin/2
// from −lo (dmin = max offset/63): an element is off by at most half a
// coded step, or by dmin/2 where the grid's end was shifted.
func kBound(dt unit01.DType, blk []float32, i int) float64 {
	levels := 15.0
	if dt == unit01.Q5_K {
		levels = 31
	}
	var step, off [8]float64
	maxStep, maxOff := 0.0, 0.0
	for s := range 8 {
		lo, hi := 0.0, float64(blk[32*s])
		for _, v := range blk[32*s : 32*s+32] {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
		step[s], off[s] = (hi-lo)/levels, -lo
		maxStep, maxOff = math.Max(maxStep, step[s]), math.Max(maxOff, off[s])
	}
	// d and dmin are rounded up to an f16: at most one f16 step above.
	d, dmin := maxStep/63*(1+1.0/1024)+0x1p-24, maxOff/63*(1+1.0/1024)+0x1p-24
	s := i / 32
	return (step[s]+d)/2 + dmin/2
}

// q6Bound: a Q6_K sub-block of 16 wants step max|x|/31; the coded step is
// at most one d = max step/127 above it; an element is off by at most half
// a coded step.
func q6Bound(blk []float32, i int) float64 {
	var step [16]float64
	maxStep := 0.0
	for s := range 16 {
		amax := 0.0
		for _, v := range blk[16*s : 16*s+16] {
			amax = math.Max(amax, math.Abs(float64(v)))
		}
		step[s] = amax / 31
		maxStep = math.Max(maxStep, step[s])
	}
	return (step[i/16] + maxStep/127*(1+1.0/1024) + 0x1p-24) / 2
}

func TestC9_2_RoundTrip(t *testing.T) {
	g := oracle.NewRand(92)
	for _, dt := range allTypes {
		for name, x := range testRows(g, 512) {
			q := make([]byte, rowBytes(dt, len(x)))
			if err := QuantizeRow(dt, q, x); err != nil {
				t.Fatalf("QuantizeRow(%v): %v", dt, err)
			}
			if dt == unit01.Q8_K && !oracle.Q8KSumsOK(q[:292]) {
				t.Errorf("QuantizeRow(Q8_K) of a %s row: bsums are not the sums of each 16 quants", name)
			}
			y := make([]float32, len(x))
			if err := DequantizeRow(dt, y, q); err != nil {
				t.Fatal(err)
			}
			oracle.AssertBound(t, fmt.Sprintf("DequantizeRow(QuantizeRow(%v, a %s row))", dt, name), y, oracle.Float64s(x), errorBound(dt, x), []int{len(x) / dt.BlockSize(), dt.BlockSize()})
		}
	}
}

// TestC9_2_Rules checks the details of ggml's reference quantizers that a
// round trip within the bound does not pin down, so that files this code
// writes hold what llama.cpp's would.
func TestC9_2_Rules(t *testing.T) {
	le := binary.LittleEndian
	quant := func(dt unit01.DType, x []float32) []byte {
		q := make([]byte, rowBytes(dt, len(x)))
		if err := QuantizeRow(dt, q, x); err != nil {
			t.Fatal(err)
		}
		return q
	}
	block := func(f func(j int) float32) []float32 {
		x := make([]float32, 32)
		for j := range x {
			x[j] = f(j)
		}
		return x
	}

	// Q4_0: d = max/−8 with the sign of the largest-magnitude value, which
	// lands exactly on q = 0. Here the largest is +4, so d = −0.5.
	x := block(func(j int) float32 { return float32(j%9) * 0.5 })
	q := quant(unit01.Q4_0, x)
	if d := unit01.F16ToF32(le.Uint16(q)); d != -0.5 {
		t.Errorf("Q4_0 of values 0…4 with 4 the largest: d = %v, want −0.5 (d = max/−8, sign kept)", d)
	}
	if q[2+8]&0xF != 0 { // element 8 is 4.0
		t.Errorf("Q4_0: the largest value should get quant 0, got %d", q[2+8]&0xF)
	}
	// Largest magnitude negative: d positive.
	x = block(func(j int) float32 { return -float32(j%9) * 0.5 })
	if d := unit01.F16ToF32(le.Uint16(quant(unit01.Q4_0, x))); d != 0.5 {
		t.Errorf("Q4_0 of values 0…−4: d = %v, want 0.5", d)
	}

	// Q8_0: d = amax/127, and q = x/d rounded half away from zero. With
	// amax = 127 the step is 1, and x = ±2.5 must give ±3.
	x = block(func(j int) float32 { return 0 })
	x[0], x[1], x[2], x[3] = 127, 2.5, -2.5, 0.5
	q = quant(unit01.Q8_0, x)
	if d := unit01.F16ToF32(le.Uint16(q)); d != 1 {
		t.Errorf("Q8_0 with max |x| = 127: d = %v, want 1", d)
	}
	if int8(q[3]) != 3 || int8(q[4]) != -3 || int8(q[5]) != 1 {
		t.Errorf("Q8_0 rounding of 2.5, −2.5, 0.5 with d = 1: got %d, %d, %d; want 3, −3, 1 (half away from zero, as C's roundf)", int8(q[3]), int8(q[4]), int8(q[5]))
	}

	// Q5_0: d = max/−16, the largest value on q = 0.
	x = block(func(j int) float32 { return float32(j) / 31 * 8 })
	q = quant(unit01.Q5_0, x)
	if d := unit01.F16ToF32(le.Uint16(q)); d != -0.5 {
		t.Errorf("Q5_0 of values 0…8: d = %v, want −0.5 (max/−16)", d)
	}

	// A block of zeros quantizes to zeros and a zero scale, never NaN.
	for _, dt := range allTypes {
		n := dt.BlockSize()
		if n == 1 {
			continue
		}
		y := make([]float32, n)
		if err := DequantizeRow(dt, y, quant(dt, make([]float32, n))); err != nil {
			t.Fatal(err)
		}
		for i, v := range y {
			if v != 0 {
				t.Errorf("%v of a block of zeros: element %d is %v", dt, i, v)
				break
			}
		}
	}
}

func TestC9_2_Errors(t *testing.T) {
	if err := QuantizeRow(unit01.Q4_0, make([]byte, 18), make([]float32, 31)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("QuantizeRow of 31 elements to Q4_0: error %v, want unit00.ErrInvalid", err)
	}
	if err := QuantizeRow(unit01.Q8_0, make([]byte, 33), make([]float32, 32)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("QuantizeRow into a too-short dst: error %v, want unit00.ErrInvalid", err)
	}
	if err := QuantizeRow(unit01.Q3_K, make([]byte, 110), make([]float32, 256)); !errors.Is(err, unit00.ErrUnsupported) {
		t.Errorf("QuantizeRow to Q3_K: error %v, want unit00.ErrUnsupported", err)
	}
}

// ggmlTypes are the types whose bytes 9.2 pins to ggml's reference rules.
var ggmlTypes = []unit01.DType{unit01.F32, unit01.F16, unit01.BF16, unit01.Q8_0, unit01.Q4_0, unit01.Q4_1, unit01.Q5_0, unit01.Q8_K}

// ggmlRows returns rows of n values (n a multiple of 256) that reach every
// branch of ggml's reference quantizers: testRows' shapes, and blocks built
// to sit on their edges.
func ggmlRows(g *oracle.Rand, n int) map[string][]float32 {
	rows := testRows(g, n)
	// Both signs of the largest magnitude in one block, in both orders:
	// ggml keeps the first (a strictly larger |x| replaces it), and the
	// opposite extreme lands on Q4_0's and Q5_0's clamped level 16 (32).
	opposite := g.Normal(n, 0, 1)
	for o := 0; o < n; o += 32 {
		a := float32(3 + o%7)
		i, j := o+g.Intn(16), o+16+g.Intn(16)
		if o/32%2 == 1 {
			i, j = j, i
		}
		opposite[i], opposite[j] = a, -a
	}
	rows["both signs of the largest |x|"] = opposite
	// Exact ties: with max|x| = 127 (Q8_0: d = 1) and the signed maximum
	// −127 (Q8_K: iscale = 1), every k + 0.5 is halfway between two quants.
	ties := make([]float32, n)
	for i := range ties {
		ties[i] = float32(g.Intn(200)-100) + 0.5
	}
	for o := 0; o < n; o += 32 {
		ties[o+g.Intn(32)] = -127
	}
	rows["ties (k + 0.5 with max |x| = 127)"] = ties
	// One value per block: every other quant sits at the grid's zero.
	spike := make([]float32, n)
	for o := 0; o < n; o += 32 {
		spike[o+g.Intn(32)] = float32(g.Normal(1, 0, 2)[0])
	}
	rows["one nonzero value per block"] = spike
	return rows
}

// TestC9_2_GGMLBytes compares QuantizeRow's bytes with ggml's reference
// quantizers (oracle.GGMLQuantRow, which follows quantize_row_*_ref in
// float32) for the types whose rule 9.2 fixes byte for byte, on rows of
// many lengths: a file written here must hold llama.cpp's bytes. A round
// trip within the error bound cannot see a tie rounded the other way, the
// other one of two equal maxima, or a clamp at the wrong level.
func TestC9_2_GGMLBytes(t *testing.T) {
	g := oracle.NewRand(921)
	for _, dt := range ggmlTypes {
		for _, n := range []int{256, 768} {
			for name, x := range ggmlRows(g, n) {
				got := make([]byte, rowBytes(dt, n))
				if err := QuantizeRow(dt, got, x); err != nil {
					t.Fatalf("QuantizeRow(%v) of a %s row of %d: %v", dt, name, n, err)
				}
				want := oracle.GGMLQuantRow(int(dt), x)
				if at := firstDiff(got, want); at >= 0 {
					bb, bs := dt.BlockBytes(), dt.BlockSize()
					blk, off := at/bb, at%bb
					t.Errorf("QuantizeRow(%v) of a %s row of %d: block %d (elements %d…%d), byte %d: got 0x%02x, want 0x%02x, %s",
						dt, name, n, blk, blk*bs, blk*bs+bs-1, off, got[at], want[at],
						fieldAt(dt, off, x[blk*bs:blk*bs+bs], got[blk*bb:blk*bb+bb], want[blk*bb:blk*bb+bb]))
				}
			}
		}
	}
}

// firstDiff returns the first index where a and b differ, or −1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// fieldAt names the field of a block of type dt at byte off, and the
// values it encodes, for a failure message; got and want are the block's
// bytes.
func fieldAt(dt unit01.DType, off int, x []float32, got, want []byte) string {
	le := binary.LittleEndian
	f16 := func(at int) string {
		return fmt.Sprintf("got %v, want %v", unit01.F16ToF32(le.Uint16(got[at:])), unit01.F16ToF32(le.Uint16(want[at:])))
	}
	switch dt {
	case unit01.F32, unit01.F16, unit01.BF16:
		return fmt.Sprintf("the value %.9g (F32: its bits; F16, BF16: round to nearest, ties to even)", x[0])
	case unit01.Q8_0:
		if off < 2 {
			return "the f16 scale d = max|x|/127: " + f16(0)
		}
		return fmt.Sprintf("the quant of element %d = %.9g: round(x/d) half away from zero (C's roundf)", off-2, x[off-2])
	case unit01.Q4_0, unit01.Q4_1:
		first, rule := 2, "min(15, ⌊x/d + 8.5⌋), d = max/−8 with the sign of the largest |x| (the first if two tie)"
		if dt == unit01.Q4_1 {
			first, rule = 4, "min(15, ⌊(x − min)/d + 0.5⌋), d = (max − min)/15"
		}
		switch {
		case off < 2:
			return "the f16 scale d, " + f16(0) + ": " + rule
		case off < first:
			return "the f16 minimum m, " + f16(2) + ": " + rule
		}
		j := off - first
		return fmt.Sprintf("the quants of elements %d (low nibble, x = %.9g) and %d (high nibble, x = %.9g): %s", j, x[j], j+16, x[j+16], rule)
	case unit01.Q5_0:
		rule := "min(31, ⌊x/d + 16.5⌋), d = max/−16 with the sign of the largest |x| (the first if two tie)"
		if off < 2 {
			return "the f16 scale d, " + f16(0) + ": " + rule
		}
		if off < 6 {
			return "qh, the fifth bits (bit j for element j): " + rule
		}
		j := off - 6
		return fmt.Sprintf("the low four bits of elements %d (x = %.9g) and %d (x = %.9g): %s", j, x[j], j+16, x[j+16], rule)
	case unit01.Q8_K:
		rule := "iscale = −127/max with the sign of the largest |x|, q = min(127, nearest(iscale·x)) ties to even, d = 1/iscale; a block of zeros is all zero bytes"
		switch {
		case off < 4:
			return fmt.Sprintf("the f32 scale d, got %v, want %v: %s", math.Float32frombits(le.Uint32(got)), math.Float32frombits(le.Uint32(want)), rule)
		case off < 260:
			return fmt.Sprintf("the quant of element %d = %.9g: %s", off-4, x[off-4], rule)
		}
		return fmt.Sprintf("bsums[%d], the sum of quants %d…%d", (off-260)/2, (off-260)/2*16, (off-260)/2*16+15)
	}
	return ""
}

// TestC9_2_Lengths quantizes rows of 0, 1, 3 and 17 blocks of every type,
// each into a dst with a sentinel byte after it, and checks the round trip
// within the bound: the last block is written, and nothing past it.
func TestC9_2_Lengths(t *testing.T) {
	g := oracle.NewRand(922)
	for _, dt := range allTypes {
		for _, blocks := range []int{0, 1, 3, 17} {
			n := blocks * dt.BlockSize()
			x := g.Normal(n, 0, 1)
			rb := rowBytes(dt, n)
			q := make([]byte, rb+1)
			q[rb] = 0xA5
			if err := QuantizeRow(dt, q[:rb], x); err != nil {
				t.Fatalf("QuantizeRow(%v) of %d blocks: %v", dt, blocks, err)
			}
			if q[rb] != 0xA5 {
				t.Fatalf("QuantizeRow(%v) of %d elements wrote past the end of dst", dt, n)
			}
			y := make([]float32, n)
			if err := DequantizeRow(dt, y, q[:rb]); err != nil {
				t.Fatal(err)
			}
			oracle.AssertBound(t, fmt.Sprintf("DequantizeRow(QuantizeRow(%v, %d blocks))", dt, blocks), y, oracle.Float64s(x), errorBound(dt, x), []int{blocks, dt.BlockSize()})
		}
	}
}

// TestC9_2_DirtyDst quantizes the same rows into a zeroed dst and into
// ones holding old bytes (all ones, and random): the bytes must agree. An
// engine reuses its buffers, so every byte of a block must be written, or
// cleared before bits are ORed into it.
func TestC9_2_DirtyDst(t *testing.T) {
	g := oracle.NewRand(925)
	for _, dt := range allTypes {
		n := 3 * dt.BlockSize()
		x := g.Normal(n, 0, 1)
		rb := rowBytes(dt, n)
		want := make([]byte, rb)
		if err := QuantizeRow(dt, want, x); err != nil {
			t.Fatalf("QuantizeRow(%v): %v", dt, err)
		}
		ones, random := make([]byte, rb), make([]byte, rb)
		for i := range rb {
			ones[i], random[i] = 0xFF, byte(g.Intn(256))
		}
		for name, dst := range map[string][]byte{"all ones": ones, "random bytes": random} {
			if err := QuantizeRow(dt, dst, x); err != nil {
				t.Fatalf("QuantizeRow(%v) into a dst of %s: %v", dt, name, err)
			}
			for i := range rb {
				if dst[i] != want[i] {
					t.Errorf("QuantizeRow(%v, %d elements) into a dst holding %s: byte %d (block %d) is %#02x, into a zeroed dst %#02x: write every byte of a block, or clear it before ORing bits in", dt, n, name, i, i/(rb/3), dst[i], want[i])
					break
				}
			}
		}
	}
}

// TestC9_2_SizeErrors gives every type a dst one byte short and one byte
// long, and every block type a src that is not whole blocks: each is an
// error wrapping unit00.ErrInvalid, and dst is left as it was.
func TestC9_2_SizeErrors(t *testing.T) {
	for _, dt := range allTypes {
		n := 2 * dt.BlockSize()
		good := rowBytes(dt, n)
		type sizeCase struct {
			n, size int
			what    string
		}
		cases := []sizeCase{{n, good - 1, "dst one byte short"}, {n, good + 1, "dst one byte long"}, {n, 0, "an empty dst"}}
		if dt.BlockSize() > 1 {
			cases = append(cases, sizeCase{n - 1, good, "src one element short of whole blocks"}, sizeCase{n + 1, good, "src one element past whole blocks"})
		}
		for _, c := range cases {
			dst := make([]byte, c.size)
			for i := range dst {
				dst[i] = 0xA5
			}
			err := QuantizeRow(dt, dst, make([]float32, c.n))
			if !errors.Is(err, unit00.ErrInvalid) {
				t.Errorf("QuantizeRow(%v, %d bytes, %d elements: %s): error %v, want one wrapping unit00.ErrInvalid", dt, c.size, c.n, c.what, err)
				continue
			}
			for i, v := range dst {
				if v != 0xA5 {
					t.Errorf("QuantizeRow(%v, %s) returned an error but wrote dst[%d]: check before writing", dt, c.what, i)
					break
				}
			}
		}
	}
}

// TestC9_2_KQuantClamps round-trips Q4_K and Q5_K super-blocks built so
// that the grid of a sub-block does not cover its values: sub-block 0
// spans [−63, −62], which makes d_min = 1, so a sub-block whose values lie
// in [−0.49, −0.19] gets m = 0, a grid from 0 up, and lies wholly below it
// (each value must clamp to q = 0), and one in [−0.51, −0.21] gets m = 1,
// a grid from −1 up to about −0.2, and its top lies above it (those values
// must clamp to q = L). Both stay within the bound; a quant left unclamped
// wraps around in its four or five bits, to the other end of the grid.
func TestC9_2_KQuantClamps(t *testing.T) {
	g := oracle.NewRand(923)
	x := g.Normal(512, 0, 0.1)
	fill := func(s int, lo, hi float64) {
		copy(x[32*s:32*s+32], g.Uniform(32, lo, hi))
		x[32*s], x[32*s+1] = float32(lo), float32(hi)
	}
	for _, o := range []int{0, 8} { // both super-blocks; the second in another order
		fill(o+0, -63, -62)
		fill(o+1+o/8*3, -0.49, -0.19)
		fill(o+2+o/8*5, -0.51, -0.21)
	}
	for _, dt := range []unit01.DType{unit01.Q4_K, unit01.Q5_K} {
		q := make([]byte, rowBytes(dt, len(x)))
		if err := QuantizeRow(dt, q, x); err != nil {
			t.Fatal(err)
		}
		y := make([]float32, len(x))
		if err := DequantizeRow(dt, y, q); err != nil {
			t.Fatal(err)
		}
		oracle.AssertBound(t, fmt.Sprintf("DequantizeRow(QuantizeRow(%v)) of sub-blocks below and above their grids (clamp q to 0…L)", dt), y, oracle.Float64s(x), errorBound(dt, x), []int{len(x) / 32, 32})
	}
}
