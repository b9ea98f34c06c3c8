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

// TestC9_1_Dequantize decodes random well-formed rows of every type and
// compares with the oracle's float64 decoder, written independently from
// ggml's layout: each element within float32 rounding of its terms.
func TestC9_1_Dequantize(t *testing.T) {
	g := oracle.NewRand(91)
	for _, dt := range allTypes {
		n := 4 * 256
		src := randomBlocks(g, dt, n)
		dst := make([]float32, n)
		if err := DequantizeRow(dt, dst, src); err != nil {
			t.Fatalf("DequantizeRow(%v): %v", dt, err)
		}
		want := oracle.DequantRow(int(dt), src)
		bound := make([]float64, n)
		for i, w := range want {
			// d·sc·q and dmin·m are rounded once each in float32, then
			// subtracted: a few ulps of the larger term.
			bound[i] = 4 * eps32 * (math.Abs(w) + termOf(dt, src, i))
		}
		oracle.AssertBound(t, fmt.Sprintf("DequantizeRow(%v) of %d random elements", dt, n), dst, want, bound, []int{n / dt.BlockSize(), dt.BlockSize()})
	}
}

// termOf bounds the size of the min term of element i, the one a K-quant
// subtracts: dmin·m_s.
func termOf(dt unit01.DType, src []byte, i int) float64 {
	switch dt {
	case unit01.Q4_K, unit01.Q5_K:
		bb := dt.BlockBytes()
		blk := src[i/256*bb : (i/256+1)*bb]
		_, m := oracle.SubScale(int(dt), blk, i%256/32)
		return oracle.F16Value(binary.LittleEndian.Uint16(blk[2:])) * float64(m)
	case unit01.Q4_1:
		blk := src[i/32*20 : (i/32+1)*20]
		return math.Abs(oracle.F16Value(binary.LittleEndian.Uint16(blk[2:])))
	}
	return 0
}

// TestC9_1_Layout builds blocks by hand, every quant placed where ggml's
// layout puts it, with scales that are powers of two, and checks every
// element exactly. The patterns are chosen so that the classic layout
// mistakes (nibbles interleaved pairwise, a fifth bit from the wrong bit,
// sub-blocks in the wrong order, a K-quant scale from the wrong bits)
// change the answer.
func TestC9_1_Layout(t *testing.T) {
	for _, c := range layoutCases() {
		got := make([]float32, len(c.want))
		if err := DequantizeRow(c.dt, got, c.block); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range got {
			if float64(got[i]) != c.want[i] {
				t.Errorf("%s: element %d = %v, want %v (%s)", c.name, i, got[i], c.want[i], c.why)
				break
			}
		}
	}
}

type layoutCase struct {
	name  string
	dt    unit01.DType
	block []byte
	want  []float64
	why   string
}

// f16 of exact values used below.
const (
	half1    = 0x3C00 // 1.0
	halfHalf = 0x3800 // 0.5
	half2    = 0x4000 // 2.0
	halfQtr  = 0x3400 // 0.25
)

func layoutCases() []layoutCase {
	var cases []layoutCase
	le := binary.LittleEndian

	// Q8_0: d = 0.5, q_j = j − 16: element j is (j−16)/2.
	b := make([]byte, 34)
	le.PutUint16(b, halfHalf)
	want := make([]float64, 32)
	for j := range 32 {
		b[2+j] = byte(int8(j - 16))
		want[j] = float64(j-16) / 2
	}
	cases = append(cases, layoutCase{"Q8_0, quants −16…15", unit01.Q8_0, b, want, "d·q with q a signed byte"})

	// Q4_0: d = 2, low nibble of qs[j] = j, high nibble = 15−j: elements
	// 0…15 rise from −16, elements 16…31 fall from 14. Interleaving the
	// nibbles pairwise (2j, 2j+1) would give −16, 14, −14, 12, …
	b = make([]byte, 18)
	le.PutUint16(b, half2)
	want = make([]float64, 32)
	for j := range 16 {
		b[2+j] = byte(j) | byte(15-j)<<4
		want[j] = 2 * float64(j-8)
		want[j+16] = 2 * float64(15-j-8)
	}
	cases = append(cases, layoutCase{"Q4_0, nibbles 0…15 low and 15…0 high", unit01.Q4_0, b, want, "low nibble of qs[j] is element j, high nibble element j+16; x = d·(q−8)"})

	// Q4_1: d = 0.25, m = −1, same nibbles: x = d·q + m.
	b = make([]byte, 20)
	le.PutUint16(b, halfQtr)
	le.PutUint16(b[2:], 0xBC00) // −1
	want = make([]float64, 32)
	for j := range 16 {
		b[4+j] = byte(j) | byte(15-j)<<4
		want[j] = 0.25*float64(j) - 1
		want[j+16] = 0.25*float64(15-j) - 1
	}
	cases = append(cases, layoutCase{"Q4_1, d 0.25, m −1", unit01.Q4_1, b, want, "x = d·q + m, nibbles as Q4_0"})

	// Q5_0: d = 1, every element a distinct 5-bit quant: element j has
	// q = j (0…31); its fifth bit sits at bit j of qh.
	b = make([]byte, 22)
	le.PutUint16(b, half1)
	var qh uint32
	want = make([]float64, 32)
	q5 := func(j int) int { return (j*7 + 3) % 32 } // a permutation of 0…31
	for j := range 16 {
		lo, hi := q5(j), q5(j+16)
		b[6+j] = byte(lo&0xF) | byte(hi&0xF)<<4
		qh |= uint32(lo>>4)<<j | uint32(hi>>4)<<(j+16)
		want[j], want[j+16] = float64(lo-16), float64(hi-16)
	}
	le.PutUint32(b[2:], qh)
	cases = append(cases, layoutCase{"Q5_0, 32 distinct quants", unit01.Q5_0, b, want, "fifth bit of element j is bit j of the little-endian u32 qh"})

	// Q4_K: d = 1, dmin = 0.5, sub-block s has scale s+1 and min 2s+1
	// (packed by hand below), quant of element 64c+l (low nibble) = l%16,
	// of element 64c+32+l (high nibble) = 15−l%16.
	b = make([]byte, 144)
	le.PutUint16(b, half1)
	le.PutUint16(b[2:], halfHalf)
	sc := [8]int{1, 2, 3, 4, 5, 6, 7, 8}
	mn := [8]int{1, 3, 5, 7, 9, 11, 13, 15}
	sc[5], mn[6] = 37, 50 // two codes above 15, so their top bits matter
	packK(b[4:16], sc, mn)
	want = make([]float64, 256)
	for c := range 4 {
		for l := range 32 {
			lo, hi := l%16, 15-l%16
			b[16+32*c+l] = byte(lo) | byte(hi)<<4
			want[64*c+l] = float64(sc[2*c]*lo) - 0.5*float64(mn[2*c])
			want[64*c+32+l] = float64(sc[2*c+1]*hi) - 0.5*float64(mn[2*c+1])
		}
	}
	cases = append(cases, layoutCase{"Q4_K, hand-packed scales and mins", unit01.Q4_K, b, want, "x = d·sc·q − dmin·m; chunk c holds sub-block 2c in its low nibbles, 2c+1 in its high ones; 6-bit scales packed as ggml's get_scale_min_k4 reads them"})

	// Q5_K: Q4_K's scales, distinct 5-bit quants within each sub-block.
	b = make([]byte, 176)
	le.PutUint16(b, half1)
	le.PutUint16(b[2:], halfHalf)
	packK(b[4:16], sc, mn)
	want = make([]float64, 256)
	for c := range 4 {
		for l := range 32 {
			lo, hi := q5(l), q5(31-l)
			b[48+32*c+l] = byte(lo&0xF) | byte(hi&0xF)<<4
			b[16+l] |= byte(lo>>4)<<(2*c) | byte(hi>>4)<<(2*c+1)
			want[64*c+l] = float64(sc[2*c]*lo) - 0.5*float64(mn[2*c])
			want[64*c+32+l] = float64(sc[2*c+1]*hi) - 0.5*float64(mn[2*c+1])
		}
	}
	cases = append(cases, layoutCase{"Q5_K, distinct quants per sub-block", unit01.Q5_K, b, want, "fifth bits: bit 2c of qh[l] for element 64c+l, bit 2c+1 for 64c+32+l"})

	// Q6_K: d = 0.25, scale of sub-block s = s−8 (negative ones too), and
	// element i of the super-block has quant (5i+1) mod 64.
	b = make([]byte, 210)
	le.PutUint16(b[208:], halfQtr)
	for s := range 16 {
		b[192+s] = byte(int8(s - 8))
	}
	want = make([]float64, 256)
	for i := range 256 {
		q := (5*i + 1) % 64
		n, r := i/128, i%128
		l, k := r%32, r/32 // element l + 32k of half n
		lowAt := 64*n + l
		if k == 1 || k == 3 {
			lowAt += 32
		}
		if k < 2 {
			b[lowAt] |= byte(q & 0xF)
		} else {
			b[lowAt] |= byte(q&0xF) << 4
		}
		b[128+32*n+l] |= byte(q>>4) << (2 * k)
		want[i] = 0.25 * float64(i/16-8) * float64(q-32)
	}
	cases = append(cases, layoutCase{"Q6_K, a distinct quant per position", unit01.Q6_K, b, want, "ql low/high nibbles, qh 2-bit fields 0–1, 2–3, 4–5, 6–7 for elements l, l+32, l+64, l+96 of each half; d is the last field"})

	// Q8_K: f32 d = 0.125, q_i = i − 128.
	b = make([]byte, 292)
	le.PutUint32(b, math.Float32bits(0.125))
	want = make([]float64, 256)
	for i := range 256 {
		b[4+i] = byte(int8(i - 128))
		want[i] = 0.125 * float64(i-128)
	}
	cases = append(cases, layoutCase{"Q8_K, f32 d", unit01.Q8_K, b, want, "f32 d then int8 quants"})
	return cases
}

// packK packs 6-bit scales and mins into a K-quant's scales[12]: bytes 0–3
// scales 0–3, bytes 4–7 mins 0–3 (low six bits each); bytes 8–11 the low
// nibbles of scales 4–7 (low half) and mins 4–7 (high half); the top two
// bits of scales 4–7 in the top bits of bytes 0–3, of mins 4–7 in bytes 4–7.
func packK(dst []byte, sc, mn [8]int) {
	for s := range 4 {
		dst[s] = byte(sc[s]) | byte(sc[s+4]>>4)<<6
		dst[s+4] = byte(mn[s]) | byte(mn[s+4]>>4)<<6
		dst[s+8] = byte(sc[s+4]&0xF) | byte(mn[s+4]&0xF)<<4
	}
}

func TestC9_1_Errors(t *testing.T) {
	cases := []struct {
		dt   unit01.DType
		n    int
		size int
		kind error
	}{
		{unit01.Q4_0, 33, 20, unit00.ErrInvalid},      // not a whole block
		{unit01.Q4_0, 33, 0, unit00.ErrInvalid},       // not a whole block, and no bytes (RowBytes' error is the answer, not its 0)
		{unit01.Q4_0, 64, 35, unit00.ErrInvalid},      // 64 elements are 36 bytes
		{unit01.Q4_K, 256, 143, unit00.ErrInvalid},    // one byte short
		{unit01.Q2_K, 256, 84, unit00.ErrUnsupported}, // a type this unit does not read
		{unit01.DType(99), 1, 1, unit00.ErrUnsupported},
	}
	for _, c := range cases {
		err := DequantizeRow(c.dt, make([]float32, c.n), make([]byte, c.size))
		if !errors.Is(err, c.kind) {
			t.Errorf("DequantizeRow(%v, %d elements, %d bytes): error %v, want one wrapping %v", c.dt, c.n, c.size, err, c.kind)
		}
	}
}

// TestC9_1_Supported lists the types this unit reads and writes, and some
// it does not: a type Supported claims must decode, and one it denies is
// what NewQMatrix and Dot refuse.
func TestC9_1_Supported(t *testing.T) {
	for _, dt := range allTypes {
		if !Supported(dt) {
			t.Errorf("Supported(%v) = false, want true: 9.1 reads F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q4_K, Q5_K, Q6_K and Q8_K", dt)
		}
	}
	for _, dt := range []unit01.DType{unit01.Q5_1, unit01.Q8_1, unit01.Q2_K, unit01.Q3_K, unit01.I8, unit01.I32, unit01.F64, unit01.DType(99)} {
		if Supported(dt) {
			t.Errorf("Supported(%v) = true, want false: this unit has no decoder for it", dt)
		}
	}
}

// TestC9_1_Lengths decodes rows of every type and of many lengths, from an
// empty row to one past every loop's first round (1, 2, 3, 5 and 17
// blocks), and compares each with the oracle: a decoder that stops a
// block early, or decodes one block again, shows at the row's end.
func TestC9_1_Lengths(t *testing.T) {
	g := oracle.NewRand(911)
	for _, dt := range allTypes {
		for _, blocks := range []int{0, 1, 2, 3, 5, 17} {
			n := blocks * dt.BlockSize()
			src := randomBlocks(g, dt, n)
			dst := make([]float32, n+1)
			dst[n] = -7 // a sentinel past the row
			if err := DequantizeRow(dt, dst[:n], src); err != nil {
				t.Fatalf("DequantizeRow(%v) of %d blocks (%d elements, %d bytes): %v", dt, blocks, n, len(src), err)
			}
			if dst[n] != -7 {
				t.Fatalf("DequantizeRow(%v) of %d elements wrote past the end of dst", dt, n)
			}
			want := oracle.DequantRow(int(dt), src)
			bound := make([]float64, n)
			for i, w := range want {
				bound[i] = 4 * eps32 * (math.Abs(w) + termOf(dt, src, i))
			}
			oracle.AssertBound(t, fmt.Sprintf("DequantizeRow(%v) of %d blocks", dt, blocks), dst[:n], want, bound, []int{blocks, dt.BlockSize()})
		}
	}
}

// TestC9_1_SizeErrors gives every type a src one byte short and one byte
// long, and every block type a row that is not a whole number of blocks:
// each is an error wrapping unit00.ErrInvalid, and dst is left as it was.
func TestC9_1_SizeErrors(t *testing.T) {
	for _, dt := range allTypes {
		bs, n := dt.BlockSize(), 2*dt.BlockSize()
		good := rowBytes(dt, n)
		type sizeCase struct {
			n, size int
			what    string
		}
		cases := []sizeCase{
			{n, good - 1, "src one byte short"},
			{n, good + 1, "src one byte long"},
			{n, 0, "an empty src"},
		}
		if bs > 1 {
			cases = append(cases, sizeCase{n - 1, good, "a row one element short of whole blocks"},
				sizeCase{n + 1, good, "a row one element past whole blocks"})
		}
		for _, c := range cases {
			dst := make([]float32, c.n)
			for i := range dst {
				dst[i] = -7
			}
			err := DequantizeRow(dt, dst, make([]byte, c.size))
			if !errors.Is(err, unit00.ErrInvalid) {
				t.Errorf("DequantizeRow(%v, %d elements, %d bytes: %s): error %v, want one wrapping unit00.ErrInvalid", dt, c.n, c.size, c.what, err)
				continue
			}
			for i, v := range dst {
				if v != -7 {
					t.Errorf("DequantizeRow(%v, %s) returned an error but wrote dst[%d] = %v: check before writing", dt, c.what, i, v)
					break
				}
			}
		}
	}
}
