package oracle

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Float64 dequantizers of ggml's block formats, written from the layouts and
// formulas that docs/unit09.md (9.1) draws, and its block table. Each
// element is read from its bits by QuantIndex, each scale field is decoded
// exactly (f16 with F16Value, Q8_K's f32 widened), and the formula is
// evaluated in float64. The products involved have at most 11+8+6
// significant bits (and a sum of two such terms spans fewer than 53 bits), so
// every value is exact: the result is the true value of the stored block, not
// a rounding of it.

// ggml type ids (the table of docs/unit09.md, 9.1).
const (
	typeF32  = 0
	typeF16  = 1
	typeQ4_0 = 2
	typeQ4_1 = 3
	typeQ5_0 = 6
	typeQ8_0 = 8
	typeQ4_K = 12
	typeQ5_K = 13
	typeQ6_K = 14
	typeQ8_K = 15
	typeBF16 = 30
)

// geometry holds the elements and bytes per block of each supported type.
var geometry = map[int]struct{ elems, bytes int }{
	typeF32:  {1, 4},
	typeF16:  {1, 2},
	typeQ4_0: {32, 18},
	typeQ4_1: {32, 20},
	typeQ5_0: {32, 22},
	typeQ8_0: {32, 34},
	typeQ4_K: {256, 144},
	typeQ5_K: {256, 176},
	typeQ6_K: {256, 210},
	typeQ8_K: {256, 292},
	typeBF16: {1, 2},
}

// BlockElems returns the number of elements in one block of type typ: 32 for
// Q4_0, Q4_1, Q5_0 and Q8_0, 256 for the K-quants, 1 for F32, F16 and BF16.
// It panics on any other type.
func BlockElems(typ int) int { return geom(typ).elems }

// BlockBytes returns the size in bytes of one block of type typ (18 for Q4_0,
// 144 for Q4_K, 4 for F32, ...). It panics on any other type.
func BlockBytes(typ int) int { return geom(typ).bytes }

func geom(typ int) struct{ elems, bytes int } {
	g, ok := geometry[typ]
	if !ok {
		panic(fmt.Sprintf("oracle: unsupported ggml type %d", typ))
	}
	return g
}

// checkBlock panics unless b is exactly one block of type typ.
func checkBlock(what string, typ int, b []byte) {
	if n := BlockBytes(typ); len(b) != n {
		panic(fmt.Sprintf("oracle: %s: type %d block is %d bytes, got %d", what, typ, n, len(b)))
	}
}

// isQuant reports whether typ is one of the block-quantized types (not F32,
// F16 or BF16).
func isQuant(typ int) bool { return BlockElems(typ) > 1 }

func u16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func u32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// f16 returns the exact value of the little-endian binary16 at b[0:2].
func f16(b []byte) float64 { return F16Value(u16(b)) }

// DequantBlock returns the float64 values of one ggml block of type typ
// (2 Q4_0, 3 Q4_1, 6 Q5_0, 8 Q8_0, 12 Q4_K, 13 Q5_K, 14 Q6_K, 15 Q8_K; also
// 0 F32, 1 F16 and 30 BF16 as one-element blocks). len(b) must be
// BlockBytes(typ); the result has BlockElems(typ) values. With q the raw
// quant of QuantIndex, d (and m, dmin) the decoded scale fields, and s the
// sub-block of the element:
//
//	Q8_0  d·q             Q4_0  (q − 8)·d        Q4_1  q·d + m
//	Q5_0  (q − 16)·d      Q4_K  d·sc_s·q − dmin·m_s (and Q5_K)
//	Q6_K  d·scales[s]·(q − 32)                   Q8_K  d·q (d an f32)
//
// It panics on an unknown type or a wrong length.
func DequantBlock(typ int, b []byte) []float64 {
	checkBlock("DequantBlock", typ, b)
	out := make([]float64, BlockElems(typ))
	switch typ {
	case typeF32:
		out[0] = float64(math.Float32frombits(u32(b)))
	case typeF16:
		out[0] = F16Value(u16(b))
	case typeBF16:
		out[0] = BF16Value(u16(b))
	case typeQ8_0: // f16 d, int8 qs[32]
		d := f16(b[0:])
		for i := range out {
			out[i] = d * float64(QuantIndex(typ, b, i))
		}
	case typeQ4_0: // f16 d, u8 qs[16]
		d := f16(b[0:])
		for i := range out {
			out[i] = float64(QuantIndex(typ, b, i)-8) * d
		}
	case typeQ4_1: // f16 d, f16 m, u8 qs[16]
		d, m := f16(b[0:]), f16(b[2:])
		for i := range out {
			out[i] = float64(QuantIndex(typ, b, i))*d + m
		}
	case typeQ5_0: // f16 d, u8 qh[4], u8 qs[16]
		d := f16(b[0:])
		for i := range out {
			out[i] = float64(QuantIndex(typ, b, i)-16) * d
		}
	case typeQ4_K, typeQ5_K: // f16 d, f16 dmin, u8 scales[12], ...
		d, dmin := f16(b[0:]), f16(b[2:])
		for i := range out {
			sc, m := SubScale(typ, b, i/32) // 8 sub-blocks of 32 elements
			out[i] = d*float64(sc)*float64(QuantIndex(typ, b, i)) - dmin*float64(m)
		}
	case typeQ6_K: // u8 ql[128], u8 qh[64], int8 scales[16], f16 d
		d := f16(b[208:])
		for i := range out {
			sc, _ := SubScale(typ, b, q6kScaleIndex(i))
			out[i] = d * float64(sc) * float64(QuantIndex(typ, b, i)-32)
		}
	case typeQ8_K: // f32 d, int8 qs[256], int16 bsums[16]
		d := float64(math.Float32frombits(u32(b[0:])))
		for i := range out {
			out[i] = d * float64(QuantIndex(typ, b, i))
		}
	}
	return out
}

// DequantRow dequantizes a row of whole blocks of type typ: len(b) must be a
// multiple of BlockBytes(typ), and the result is the concatenation of
// DequantBlock over the blocks. Types 0 (F32, little-endian), 1 (F16) and
// 30 (BF16) are rows of one-element blocks. It panics on an unknown type or a
// length that is not a whole number of blocks.
func DequantRow(typ int, b []byte) []float64 {
	n := BlockBytes(typ)
	if len(b)%n != 0 {
		panic(fmt.Sprintf("oracle: DequantRow: %d bytes is not a whole number of type %d blocks of %d bytes", len(b), typ, n))
	}
	out := make([]float64, 0, len(b)/n*BlockElems(typ))
	for off := 0; off < len(b); off += n {
		out = append(out, DequantBlock(typ, b[off:off+n])...)
	}
	return out
}

// QuantIndex returns the raw quant of element i of one block of type typ,
// read straight from the bits, before any offset or scale: 0..15 for Q4_0,
// Q4_1 and Q4_K, 0..31 for Q5_0 and Q5_K, 0..63 for Q6_K, −128..127 for Q8_0
// and Q8_K. It panics on a type without quants (F32, F16, BF16) or an
// unknown one, a wrong block length, or i outside the block.
func QuantIndex(typ int, b []byte, i int) int {
	checkBlock("QuantIndex", typ, b)
	if !isQuant(typ) {
		panic(fmt.Sprintf("oracle: QuantIndex: type %d has no quants", typ))
	}
	if i < 0 || i >= BlockElems(typ) {
		panic(fmt.Sprintf("oracle: QuantIndex: element %d outside a type %d block", i, typ))
	}
	switch typ {
	case typeQ8_0:
		return int(int8(b[2+i]))
	case typeQ4_0:
		return nibble32(b[2:18], i)
	case typeQ4_1:
		return nibble32(b[4:20], i)
	case typeQ5_0:
		qh := u32(b[2:6]) // little-endian: bit k is the 5th bit of element k
		return nibble32(b[6:22], i) | int(qh>>i&1)<<4
	case typeQ4_K:
		return nibbleK(b[16:144], i)
	case typeQ5_K:
		qh, qs := b[16:48], b[48:176]
		c, r := i/64, i%64 // chunk c; r < 32 is sub-block 2c, r ≥ 32 is 2c+1
		bit := 2 * c
		if r >= 32 {
			bit = 2*c + 1
		}
		return nibbleK(qs, i) | int(qh[r%32]>>bit&1)<<4
	case typeQ6_K:
		return q6kQuant(b, i)
	default: // typeQ8_K
		return int(int8(b[4+i]))
	}
}

// nibble32 returns element i (0..31) of a 16-byte qs of the 32-element types:
// the low nibble of qs[j] is element j, the high nibble is element j+16.
func nibble32(qs []byte, i int) int {
	if i < 16 {
		return int(qs[i] & 0xF)
	}
	return int(qs[i-16] >> 4)
}

// nibbleK returns the 4 low bits of element i (0..255) of a Q4_K/Q5_K qs[128]:
// four 32-byte chunks c; in chunk c the low nibble of byte l is element
// 64c + l and the high nibble is element 64c + 32 + l.
func nibbleK(qs []byte, i int) int {
	c, r := i/64, i%64
	if r < 32 {
		return int(qs[32*c+r] & 0xF)
	}
	return int(qs[32*c+r-32] >> 4)
}

// q6kQuant returns the 6-bit quant of element i of a Q6_K block, by the
// table of docs/unit09.md (9.1): in half n (ql + 64n, qh + 32n), for l = 0..31,
//
//	element l      ql[l] low nibble,    qh[l] bits 0–1
//	element l+32   ql[l+32] low nibble, qh[l] bits 2–3
//	element l+64   ql[l] high nibble,   qh[l] bits 4–5
//	element l+96   ql[l+32] high nibble, qh[l] bits 6–7
func q6kQuant(b []byte, i int) int {
	n, r := i/128, i%128
	ql, qh := b[64*n:64*n+64], b[128+32*n:128+32*n+32]
	row, l := r/32, r%32
	var lo, hi int
	switch row {
	case 0:
		lo, hi = int(ql[l]&0xF), int(qh[l]>>0&3)
	case 1:
		lo, hi = int(ql[l+32]&0xF), int(qh[l]>>2&3)
	case 2:
		lo, hi = int(ql[l]>>4), int(qh[l]>>4&3)
	default:
		lo, hi = int(ql[l+32]>>4), int(qh[l]>>6&3)
	}
	return lo | hi<<4
}

// q6kScaleIndex returns the index into Q6_K's scales[16] of element i: in
// half n, l/16 + 2·row + 8n for element 128n + 32·row + l (the table's
// l/16, l/16 + 2, l/16 + 4, l/16 + 6, offset by 8n).
func q6kScaleIndex(i int) int {
	n, r := i/128, i%128
	row, l := r/32, r%32
	return 8*n + l/16 + 2*row
}

// SubScale returns the scale and min codes (sc, m) of sub-block s of a
// K-quant block. For Q4_K and Q5_K (s in 0..7) they are the 6-bit codes
// packed in scales[12]:
//
//	s < 4: sc = scales[s] & 63;  m = scales[s+4] & 63
//	s ≥ 4: sc = (scales[s+4] & 0xF) | (scales[s−4] >> 6) << 4
//	       m  = (scales[s+4] >> 4)  | (scales[s]   >> 6) << 4
//
// For Q6_K (s in 0..15) sc is the int8 scales[s] and m is 0. It panics on
// any other type, a wrong block length, or s out of range.
func SubScale(typ int, b []byte, s int) (sc, m int) {
	checkBlock("SubScale", typ, b)
	switch typ {
	case typeQ4_K, typeQ5_K:
		if s < 0 || s >= 8 {
			panic(fmt.Sprintf("oracle: SubScale: sub-block %d outside 0..7", s))
		}
		scales := b[4:16]
		if s < 4 {
			return int(scales[s] & 63), int(scales[s+4] & 63)
		}
		sc = int(scales[s+4]&0xF) | int(scales[s-4]>>6)<<4
		m = int(scales[s+4]>>4) | int(scales[s]>>6)<<4
		return sc, m
	case typeQ6_K:
		if s < 0 || s >= 16 {
			panic(fmt.Sprintf("oracle: SubScale: sub-block %d outside 0..15", s))
		}
		return int(int8(b[192+s])), 0
	}
	panic(fmt.Sprintf("oracle: SubScale: type %d is not Q4_K, Q5_K or Q6_K", typ))
}

// Q8KSumsOK reports whether the int16 bsums[16] of a Q8_K block hold the sums
// of their groups of quants: bsums[g] = Σ qs[16g : 16g+16]. The bsums are
// not needed to dequantize, but a dot product with a K-quant uses them for
// its min term. It panics unless b is one Q8_K block.
func Q8KSumsOK(b []byte) bool {
	checkBlock("Q8KSumsOK", typeQ8_K, b)
	qs, bsums := b[4:260], b[260:292]
	for g := range 16 {
		sum := 0
		for _, q := range qs[16*g : 16*g+16] {
			sum += int(int8(q))
		}
		if int(int16(u16(bsums[2*g:]))) != sum {
			return false
		}
	}
	return true
}
