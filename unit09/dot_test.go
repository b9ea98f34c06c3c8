package unit09

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

func TestC9_3_VecDotType(t *testing.T) {
	want := map[unit01.DType]unit01.DType{
		unit01.Q4_0: unit01.Q8_0, unit01.Q4_1: unit01.Q8_0, unit01.Q5_0: unit01.Q8_0, unit01.Q8_0: unit01.Q8_0,
		unit01.Q4_K: unit01.Q8_K, unit01.Q5_K: unit01.Q8_K, unit01.Q6_K: unit01.Q8_K,
		unit01.F32: unit01.F32, unit01.F16: unit01.F16, unit01.BF16: unit01.BF16,
	}
	for dt, w := range want {
		if got := VecDotType(dt); got != w {
			t.Errorf("VecDotType(%v) = %v, want %v", dt, got, w)
		}
	}
}

// activations returns x as the bytes Dot takes for weights of type dt:
// quantized to VecDotType(dt), or float32 bits, and their dequantized
// values.
func activations(t *testing.T, dt unit01.DType, x []float32) ([]byte, []float64) {
	t.Helper()
	adt := VecDotType(dt)
	a := make([]byte, rowBytes(adt, len(x)))
	if err := QuantizeRow(adt, a, x); err != nil {
		t.Fatal(err)
	}
	return a, oracle.DequantRow(int(adt), a)
}

// checkDot compares Dot of the weight row w with the activations x,
// quantized to VecDotType, against the float64 sum of the dequantized
// weights times the dequantized activations, within (4·blocks + 64)·ε·Σ|w·a|.
func checkDot(t *testing.T, what string, dt unit01.DType, w []byte, x []float32) {
	t.Helper()
	a, _ := activations(t, dt, x)
	checkDotOf(t, what, dt, w, a)
}

// checkDotOf is checkDot with the activations a given as bytes of
// VecDotType(dt).
func checkDotOf(t *testing.T, what string, dt unit01.DType, w, a []byte) {
	t.Helper()
	ad := oracle.DequantRow(int(VecDotType(dt)), a)
	n := len(ad)
	wd := oracle.DequantRow(int(dt), w)
	want, abs := 0.0, 0.0
	for i := range wd {
		want += wd[i] * ad[i]
		abs += math.Abs(wd[i] * ad[i])
	}
	got := Dot(dt, w, a, n)
	bound := (4*float64(n/max(1, dt.BlockSize())) + 64) * eps32 * abs
	if math.Abs(float64(got)-want) > bound || math.IsNaN(float64(got)) {
		t.Errorf("%s = %v, want %v ± %.3g (the float64 sum of the dequantized weights times the dequantized activations)", what, got, want, bound)
	}
}

// TestC9_3_Dot checks every weight type's dot product, on random weight
// blocks and activations, against the float64 sum of the dequantized
// weights times the dequantized activations: the quantized arithmetic is
// exact in integers, so only the float32 accumulation of per-block terms
// may differ, by at most n·ε·Σ|w·a|.
func TestC9_3_Dot(t *testing.T) {
	g := oracle.NewRand(93)
	for _, dt := range weightTypes {
		for _, n := range []int{256, 512, 1280, 4096} {
			w := randomBlocks(g, dt, n)
			x := g.Normal(n, 0, 1)
			for i := 0; i < n; i += 97 {
				x[i] *= 30 // outliers, so blocks get different scales
			}
			checkDot(t, fmt.Sprintf("Dot(%v, %d elements)", dt, n), dt, w, x)
		}
	}
}

// TestC9_3_DisjointDot: weights that are 0 wherever the activations are
// not, and the reverse, in every block. Their dot product has no term to
// round, so wherever the zeros stay exactly 0 through quantization (every
// type whose grid holds 0) it must be exactly 0: an integer sum that
// starts anywhere but 0, or a block's term dropped or doubled, shows
// here, where a random row hides it in the rounding bound. (It found the
// first SIMD Q6_K kernels converting lane sums in which Σ q·a and 32·Σ a
// had not yet cancelled: −1.2e-4 where 0 is exact.)
func TestC9_3_DisjointDot(t *testing.T) {
	for _, dt := range weightTypes {
		for _, n := range []int{256, 1280} {
			xw, xa := make([]float32, n), make([]float32, n)
			for i := range n {
				if i%2 == 0 {
					xw[i] = float32(1 + i%7)
				} else {
					xa[i] = float32(1 + i%5)
				}
			}
			w := make([]byte, rowBytes(dt, n))
			if err := QuantizeRow(dt, w, xw); err != nil {
				t.Fatal(err)
			}
			checkDot(t, fmt.Sprintf("Dot(%v, %d elements) of weights zero at the odd elements and activations zero at the even ones", dt, n), dt, w, xa)
		}
	}
}

// TestC9_3_ZeroScales: K-quant super-blocks whose sub-block scales and
// mins are all 0, under nonzero d and dmin and random quants. Every weight
// is 0, so the dot product must be exactly 0: a sum of scaled quants or of
// mins that starts anywhere but 0 adds d·d_a or dmin·d_a per super-block,
// which a random row hides in the rounding bound.
func TestC9_3_ZeroScales(t *testing.T) {
	g := oracle.NewRand(931)
	for _, dt := range []unit01.DType{unit01.Q4_K, unit01.Q5_K, unit01.Q6_K} {
		for _, n := range []int{256, 1280} {
			w := randomBlocks(g, dt, n)
			bb := rowBytes(dt, 256)
			for o := 0; o < len(w); o += bb {
				if dt == unit01.Q6_K {
					clear(w[o+192 : o+208]) // int8 scales
				} else {
					clear(w[o+4 : o+16]) // 6-bit scales and mins
				}
			}
			checkDot(t, fmt.Sprintf("Dot(%v, %d elements) of super-blocks whose sub-block scales and mins are all 0", dt, n), dt, w, g.Normal(n, 0, 1))
		}
	}
}

// TestC9_3_AgainstFloats is the contract a model relies on: a dot product
// of quantized weights with float activations, through VecDotType, is
// within the activation quantization's error of the exact float64 dot
// product of the dequantized weights with the float activations. For each
// activation block the error of an element is at most half its step, so
// the bound is Σ_blocks (Σ|w|)·step/2.
func TestC9_3_AgainstFloats(t *testing.T) {
	g := oracle.NewRand(94)
	for _, dt := range weightTypes {
		n := 2048
		w := randomBlocks(g, dt, n)
		wd := oracle.DequantRow(int(dt), w)
		for name, x := range testRows(g, n) {
			a, _ := activations(t, dt, x)
			adt := VecDotType(dt)
			want, bound := 0.0, 0.0
			bs := adt.BlockSize()
			for o := 0; o < n; o += bs {
				amax, wabs := 0.0, 0.0
				for i := o; i < o+bs; i++ {
					want += wd[i] * float64(x[i])
					amax = math.Max(amax, math.Abs(float64(x[i])))
					wabs += math.Abs(wd[i])
					switch adt { // activations rounded one by one
					case unit01.F16:
						bound += math.Abs(wd[i]) * h(math.Abs(float64(x[i])))
					case unit01.BF16:
						bound += math.Abs(wd[i]*float64(x[i])) / 256
					}
				}
				if adt == unit01.Q8_0 || adt == unit01.Q8_K { // half a step, and the step's f16 rounding 127 times
					d := amax / 127
					bound += wabs * (d/2 + 127*h(d))
				}
			}
			bound += 1e-5 * (1 + math.Abs(want))
			got := Dot(dt, w, a, n)
			if math.Abs(float64(got)-want) > bound || math.IsNaN(float64(got)) {
				t.Errorf("%v weights · a %s row quantized to %v: %v, want %v ± %.3g", dt, name, adt, got, want, bound)
			}
		}
	}
}

func TestC9_3_Panics(t *testing.T) {
	w, a := make([]byte, 18), make([]byte, 34)
	for _, f := range []func(){
		func() { Dot(unit01.Q4_0, w, a, 64) },                                  // w holds 32 elements
		func() { Dot(unit01.Q4_0, w, a[:33], 32) },                             // a is short
		func() { Dot(unit01.Q8_K, make([]byte, 292), make([]byte, 292), 256) }, // not a weight type
	} {
		if _, panicked := oracle.Panics(f); !panicked {
			t.Errorf("Dot with mismatched lengths or a non-weight type did not panic")
		}
	}
}

// TestC9_3_PanicsEveryType gives Dot, for every weight type, a w or an a
// one block too long or too short, an n that is not whole blocks (with w
// and a both empty, so only n is wrong), and a type it does not multiply:
// each must panic (unit00.Check), not read past a row or return a number.
func TestC9_3_PanicsEveryType(t *testing.T) {
	for _, dt := range weightTypes {
		n := 2 * dt.BlockSize()
		wb, ab := rowBytes(dt, n), rowBytes(VecDotType(dt), n)
		w, a := make([]byte, wb+dt.BlockBytes()), make([]byte, ab+VecDotType(dt).BlockBytes())
		cases := map[string]func(){
			"w one block long":  func() { Dot(dt, w, a[:ab], n) },
			"w one block short": func() { Dot(dt, w[:wb-dt.BlockBytes()], a[:ab], n) },
			"a one block long":  func() { Dot(dt, w[:wb], a, n) },
			"a one block short": func() { Dot(dt, w[:wb], a[:ab-VecDotType(dt).BlockBytes()], n) },
		}
		if dt.BlockSize() > 1 {
			cases["n not whole blocks, w and a empty"] = func() { Dot(dt, nil, nil, 1) }
		}
		for what, f := range cases {
			if _, panicked := oracle.Panics(f); !panicked {
				t.Errorf("Dot(%v, n = %d) with %s did not panic", dt, n, what)
			}
		}
	}
	for _, dt := range []unit01.DType{unit01.Q2_K, unit01.Q5_1, unit01.Q8_K} {
		if _, panicked := oracle.Panics(func() { Dot(dt, make([]byte, rowBytes(dt, 256)), make([]byte, 1024), 256) }); !panicked {
			t.Errorf("Dot(%v) did not panic: it is not a weight type this unit multiplies (Supported, and not Q8_K)", dt)
		}
	}
	if got := Dot(unit01.Q4_0, nil, nil, 0); got != 0 {
		t.Errorf("Dot(Q4_0) of an empty row = %v, want 0", got)
	}
}

// TestC9_3_Lengths takes dot products of every weight type over many
// block counts: 1 to 9, and odd counts past any kernel's group (pairs and
// quads of blocks; 1 to 9 super-blocks), so that an assembly kernel's leftover
// blocks, its first group and its loop all meet the oracle. The bound is
// TestC9_3_Dot's.
func TestC9_3_Lengths(t *testing.T) {
	g := oracle.NewRand(931)
	for _, dt := range weightTypes {
		counts := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 31, 67}
		switch dt.BlockSize() {
		case 1:
			counts = []int{1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 65, 100}
		case 256:
			counts = []int{1, 2, 3, 4, 5, 9}
		}
		for _, blocks := range counts {
			n := blocks * dt.BlockSize()
			w := randomBlocks(g, dt, n)
			x := g.Normal(n, 0, 1)
			for i := 0; i < n; i += 41 {
				x[i] *= 20
			}
			checkDot(t, fmt.Sprintf("Dot(%v) of %d blocks (%d elements; if only some counts fail, the blocks after the last whole group of a fast path, or the first group, are summed wrong)", dt, blocks, n), dt, w, x)
		}
	}
}

// TestC9_3_Extremes takes the dot products of Q4_1, Q5_0, Q5_K, Q8_0 and
// Q4_K rows whose quants are all at their maximum, all at 0, or in
// patterns of the two and of every value (so that the halves of a block,
// and the sub-blocks of a super-block, differ), under the largest f16
// scales of either sign and the smallest subnormal, with activation quants
// all +127, all −128, alternating, or running through every value. Rows
// are 13 blocks (5 super-blocks): a kernel's groups and the blocks left
// over. These are the values at which a SIMD kernel's 16-bit sums
// saturate, its signed and unsigned operands swap, a fifth bit lands on
// the wrong byte, a scaled 32-bit sum overflows, or a negative scale or
// min loses its sign; random rows never reach them. Then the same rows,
// six of them, through MulT, whose four-row kernels take the first four,
// and eighteen (the six three times: a packed group of sixteen and two
// over), for one, three and nine activation rows. The bound is
// TestC9_3_Dot's; the scales are chosen so that the terms of a block never
// cancel (Q4_1's m has d's sign, Q5_K's and Q4_K's dmin the opposite),
// which keeps it honest.
func TestC9_3_Extremes(t *testing.T) {
	for _, dt := range []unit01.DType{unit01.Q4_1, unit01.Q5_0, unit01.Q5_K, unit01.Q8_0, unit01.Q4_K} {
		blocks := 13
		if dt.BlockSize() == 256 {
			blocks = 5
		}
		n := blocks * dt.BlockSize()
		var rows [][]byte
		for _, wc := range extremeWeights {
			for _, sc := range extremeScales {
				w := extremeRow(dt, n, wc.q, sc.d, sc.m)
				rows = append(rows, w)
				for _, ac := range extremeActs {
					q := ac.q
					if dt == unit01.Q8_0 { // ±127 at most, as below
						q = func(i int) int { return max(ac.q(i), -127) }
					}
					a := extremeActivations(VecDotType(dt), n, q)
					checkDotOf(t, fmt.Sprintf("Dot(%v, %d elements) of quants %s under scales %s with activation quants %s", dt, n, wc.name, sc.name, ac.name), dt, w, a)
				}
			}
		}
		// MulT: six rows (a group of four, two left over) of different
		// extremes, and activations of ±1 and ¼, which quantize to ±127
		// and 32.
		p := unit03.NewPool(2)
		rb := rowBytes(dt, n)
		data := make([]byte, 0, 18*rb)
		for range 3 {
			for _, i := range []int{0, 4, 8, 9, 13, 14} { // rows[3·pattern + scales]
				data = append(data, rows[i]...)
			}
		}
		x := unit03.Mat{Rows: 9, Cols: n, Stride: n, Data: make([]float32, 9*n)}
		for r := 0; r < 9; r += 3 {
			for i := range n {
				x.Data[r*n+i] = 1
				x.Data[(r+1)*n+i] = []float32{1, -1, -1, 1, 0.25}[i%5]
				x.Data[(r+2)*n+i] = -1
			}
		}
		for _, rows := range []int{6, 18} {
			m, err := NewQMatrix(dt, rows, n, data[:rows*rb])
			if err != nil {
				t.Fatal(err)
			}
			for _, T := range []int{1, 3, 9} {
				mulTCaseOf(t, m, oracle.DequantRow(int(dt), data[:rows*rb]), x.Block(0, T, 0, n), nil, p)
			}
		}
		p.Close()
	}
}

// The extremes of TestC9_3_Extremes: quants as a function of the element
// and the type's largest quant, f16 scales (d, and m or dmin), and
// activation quants as a function of the element.
var (
	extremeWeights = []struct {
		name string
		q    func(i, max int) int
	}{
		{"all at the maximum", func(i, max int) int { return max }},
		{"all 0", func(i, max int) int { return 0 }},
		{"alternating maximum and 0", func(i, max int) int { return max * (i % 2) }},
		{"at the maximum every third element, else 0", func(i, max int) int { return max * (1 - min(1, i%3)) }},
		{"0, 1, … the maximum, 0, 1, …", func(i, max int) int { return i % (max + 1) }},
	}
	extremeScales = []struct {
		name string
		d, m float32 // m: Q4_1's m, Q5_K's dmin
	}{
		{"d = m = 65504, dmin = −65504", 65504, 65504},
		{"d = m = −65504, dmin = 65504", -65504, -65504},
		{"d = m = 2⁻²⁴, dmin = −2⁻²⁴ (subnormal)", 0x1p-24, 0x1p-24},
	}
	extremeActs = []struct {
		name string
		q    func(i int) int
	}{
		{"all +127", func(i int) int { return 127 }},
		{"all −128", func(i int) int { return -128 }},
		{"alternating +127 and −128", func(i int) int { return 127 - 255*(i%2) }},
		{"through every value", func(i int) int { return (i*73+11)%256 - 128 }},
	}
)

// extremeRow encodes n elements of type dt (Q4_1, Q5_0, Q5_K, Q8_0 or
// Q4_K) with quants q(i, max) and the f16 scales d and m: Q4_1's m is m,
// Q5_K's and Q4_K's dmin is −m, and their six-bit sub-block scales and
// mins are all 63. Q8_0's quants are q(i, 254) − 127, from −127 to +127:
// ggml's quantizer never writes −128, and its AVX2 dot product (as ours,
// dot_avx2_amd64.s) takes |q| and moves the sign to the other operand,
// which −128 would break; Q8_0 against activations of −128 is left out for
// the same reason.
func extremeRow(dt unit01.DType, n int, q func(i, max int) int, d, m float32) []byte {
	w := make([]byte, rowBytes(dt, n))
	bb, bs := dt.BlockBytes(), dt.BlockSize()
	put := func(b []byte, v float32) { binary.LittleEndian.PutUint16(b, unit01.F32ToF16(v)) }
	for o, e := 0, 0; o < len(w); o, e = o+bb, e+bs {
		b := w[o : o+bb]
		switch dt {
		case unit01.Q4_1:
			put(b, d)
			put(b[2:], m)
			for j := range 16 {
				b[4+j] = byte(q(e+j, 15) | q(e+j+16, 15)<<4)
			}
		case unit01.Q5_0:
			put(b, d)
			var qh uint32
			for j := range 16 {
				lo, hi := q(e+j, 31), q(e+j+16, 31)
				b[6+j] = byte(lo&0xF | (hi&0xF)<<4)
				qh |= uint32(lo>>4)<<j | uint32(hi>>4)<<(j+16)
			}
			binary.LittleEndian.PutUint32(b[2:], qh)
		case unit01.Q5_K:
			put(b, d)
			put(b[2:], -m)
			for j := range 12 {
				b[4+j] = 0xFF // every scale and min 63
			}
			for i := range 256 {
				v := q(e+i, 31)
				s, l := i/32, i%32
				b[16+l] |= byte(v>>4) << s
				b[48+32*(s/2)+l] |= byte(v&0xF) << (4 * (s % 2))
			}
		case unit01.Q8_0:
			put(b, d)
			for j := range 32 {
				b[2+j] = byte(q(e+j, 254) - 127)
			}
		case unit01.Q4_K:
			put(b, d)
			put(b[2:], -m)
			for j := range 12 {
				b[4+j] = 0xFF
			}
			for i := range 256 {
				s, l := i/32, i%32
				b[16+32*(s/2)+l] |= byte(q(e+i, 15)) << (4 * (s % 2))
			}
		}
	}
	return w
}

// extremeActivations encodes n activations of type adt (Q8_0 or Q8_K)
// with quants q(i), the scales of the blocks alternating between 1 and
// 1/127, and Q8_K's bsums the sums of its quants.
func extremeActivations(adt unit01.DType, n int, q func(i int) int) []byte {
	a := make([]byte, rowBytes(adt, n))
	bb, bs := adt.BlockBytes(), adt.BlockSize()
	for o, e := 0, 0; o < len(a); o, e = o+bb, e+bs {
		b := a[o : o+bb]
		d := float32(1)
		if e/bs%2 == 1 {
			d = 1.0 / 127
		}
		if adt == unit01.Q8_0 {
			binary.LittleEndian.PutUint16(b, unit01.F32ToF16(d))
			for j := range 32 {
				b[2+j] = byte(int8(q(e + j)))
			}
			continue
		}
		binary.LittleEndian.PutUint32(b, math.Float32bits(d))
		for g := range 16 {
			sum := 0
			for j := 16 * g; j < 16*g+16; j++ {
				b[4+j] = byte(int8(q(e + j)))
				sum += q(e + j)
			}
			binary.LittleEndian.PutUint16(b[260+2*g:], uint16(int16(sum)))
		}
	}
	return a
}
