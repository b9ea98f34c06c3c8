//go:build amd64 && !purego

package unit09

import (
	"encoding/binary"

	"github.com/llmforge/forge/unit01"
)

// Sixteen rows at a time: Q4_0, Q5_0, Q8_0, Q4_K and Q6_K weights repacked
// for AVX-512 VNNI (Q5_0, Q8_0 and Q4_K in rows16_more_amd64.s).
//
// In the file's layout each row is a run of blocks, and a SIMD dot product
// of one row spreads its sums over the lanes of a register, to be added
// across lanes at the end, block scale by block scale. Repacked so that one
// register holds four quants of each of sixteen rows (rows16_amd64.s),
// every lane is one row's dot product from start to end: the activations'
// four bytes are broadcast to all lanes, a Q4_0 block costs eight VPDPBUSD,
// one conversion, one multiply and one FMA for sixteen rows, and nothing
// crosses lanes. Decode (one activation row, rows16x1) and batches (eight
// or four rows, rows16x8 and rows16x4, each block unpacked once for all of
// them) run through the same per-lane arithmetic, so a row's result does
// not depend on its batch.
//
// The batch kernels prefetch the next group of rows into L2 (PREFETCHT1)
// while they compute this one: a batch of decode steps then streams the
// weights from memory as fast as one step does. Prefetched into L1
// instead, the next group pushed out this group and the activations, and
// four rows took half again as long as one.
//
// The packed copy is made at a matrix's first MulT, so loading a model
// stays a mapping of its file, and costs as much memory as the weights
// (Q4_K's 3% more: its scales as bytes; llama.cpp repacks the same way).
// Other types (Q4_1, Q5_K, the float ones) and CPUs take dot4.

//go:noescape
func rows16x4Q4_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x8Q4_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x1Q4_0(w *byte, blocks int, a *byte, s *byte, y *float32)

//go:noescape
func rows16x4Q6_K(w *byte, supers int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x1Q6_K(w *byte, supers int, a *byte, s *byte, y *float32)

//go:noescape
func rows16x8Q8_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x4Q8_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x1Q8_0(w *byte, blocks int, a *byte, s *byte, y *float32)

//go:noescape
func rows16x8Q4_K(w *byte, supers int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x4Q4_K(w *byte, supers int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x1Q4_K(w *byte, supers int, a *byte, s *byte, y *float32)

//go:noescape
func rows16x8Q5_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x4Q5_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x1Q5_0(w *byte, blocks int, a *byte, s *byte, y *float32)

// packs16 reports whether MulT runs weights of type dt packed sixteen rows
// at a time on this CPU.
func packs16(dt unit01.DType) bool {
	return level == levelVNNI && (dt == unit01.Q4_0 || dt == unit01.Q6_K || dt == unit01.Q8_0 || dt == unit01.Q4_K || dt == unit01.Q5_0)
}

// packedBlock returns the bytes of one packed block (sixteen rows' blocks
// of m's type) and of one block's prepared sums per activation row.
func packedBlock(dt unit01.DType) (wb, sb int) {
	switch dt {
	case unit01.Q6_K:
		return 16 * 210, 64
	case unit01.Q8_0:
		return 16 * 34, 8
	case unit01.Q4_K:
		return 16 * 148, 16
	case unit01.Q5_0:
		return 16 * 22, 8
	}
	return 16 * 18, 8
}

// pack16 returns m's rows packed sixteen at a time, one packed block per
// group of sixteen rows and block column; a last group of fewer rows is
// padded with zero blocks.
func pack16(m *QMatrix) []byte {
	nb := m.Cols / m.Type.BlockSize()
	wb, _ := packedBlock(m.Type)
	out := make([]byte, (m.Rows+15)/16*nb*wb)
	for j := range m.Rows {
		g, i, row := j/16, j%16, m.row(j)
		for b := range nb {
			dst := out[(g*nb+b)*wb : (g*nb+b+1)*wb]
			switch m.Type {
			case unit01.Q6_K:
				pack16Q6_K(dst, i, row[210*b:210*b+210])
			case unit01.Q8_0:
				pack16Q8_0(dst, i, row[34*b:34*b+34])
			case unit01.Q4_K:
				pack16Q4_K(dst, i, row[144*b:144*b+144])
			case unit01.Q5_0:
				pack16Q5_0(dst, i, row[22*b:22*b+22])
			default:
				pack16Q4_0(dst, i, row[18*b:18*b+18])
			}
		}
	}
	return out
}

// pack16Q4_0 writes a Q4_0 block as row i of a packed block: the sixteen
// rows' f16 scales, then chunk c = 0…3 holding bytes 4c…4c+3 of each row's
// quants (row i at 4i).
func pack16Q4_0(dst []byte, i int, src []byte) {
	copy(dst[2*i:2*i+2], src[:2])
	for c := range 4 {
		copy(dst[32+64*c+4*i:36+64*c+4*i], src[2+4*c:6+4*c])
	}
}

// pack16Q8_0 writes a Q8_0 block as row i of a packed block: the sixteen
// rows' f16 scales, then chunk c = 0…7 holding quants 4c…4c+3 of each row
// (row i at 4i), each XOR 0x80: q+128, the unsigned operand VPDPBUSD
// wants, made once here rather than at every product.
func pack16Q8_0(dst []byte, i int, src []byte) {
	copy(dst[2*i:2*i+2], src[:2])
	for c := range 8 {
		binary.LittleEndian.PutUint32(dst[32+64*c+4*i:], binary.LittleEndian.Uint32(src[2+4*c:])^0x80808080)
	}
}

// pack16Q5_0 writes a Q5_0 block as row i of a packed block: the sixteen
// rows' f16 scales and their low nibbles as pack16Q4_0 lays out Q4_0's
// (chunk c at 32+64c, bytes 4c…4c+3 of each row's qs), then eight 64-bit
// masks of the fifth bits at 288+8k: bit 4i+b of mask k is the fifth bit
// of element 4k+b of row i (bit 4k+b of its qh), the byte of the k-th
// register of quants (rows16_more_amd64.s) in which it belongs. Still 22
// bytes a row.
func pack16Q5_0(dst []byte, i int, src []byte) {
	copy(dst[2*i:2*i+2], src[:2])
	for c := range 4 {
		copy(dst[32+64*c+4*i:36+64*c+4*i], src[6+4*c:10+4*c])
	}
	qh := binary.LittleEndian.Uint32(src[2:])
	for k := range 8 {
		b, sh := &dst[288+8*k+i/2], 4*(i%2)
		*b = *b&^(0xF<<sh) | byte(qh>>(4*k)&0xF)<<sh
	}
}

// pack16Q4_K writes a Q4_K super-block as row i of a packed block: the
// sixteen rows' f16 d (32 bytes), their f16 dmin (32 bytes); their
// sub-block scales unpacked to bytes, sub-block s of every row together
// (64+16s+i); their mins likewise, as pairs: bytes 192+32k+2i and +1 hold
// row i's mins 2k and 2k+1; then for each chunk c = 0…3 of the file's
// quants eight chunks of 64 bytes, 320+512c+64t holding bytes 4t…4t+3 of
// each row's chunk c (row i at 4i). Masked with 0x0F such a chunk is
// elements 4t…4t+3 of sub-block 2c of all sixteen rows; masked with 0xF0,
// sixteen times those of sub-block 2c+1. 148 bytes a row, four more than
// the file's: the scales and mins, twelve bytes of six bits there, are
// bytes here.
func pack16Q4_K(dst []byte, i int, src []byte) {
	copy(dst[2*i:2*i+2], src[:2])
	copy(dst[32+2*i:34+2*i], src[2:4])
	for s := range 8 {
		sc, m := scaleMin(src[4:16], s)
		dst[64+16*s+i] = byte(sc)
		dst[192+32*(s/2)+2*i+s%2] = byte(m)
	}
	for c := range 4 {
		for t := range 8 {
			copy(dst[320+512*c+64*t+4*i:324+512*c+64*t+4*i], src[16+32*c+4*t:20+32*c+4*t])
		}
	}
}

// pack16Q6_K writes a Q6_K super-block as row i of a packed block: the
// sixteen rows' f16 scales d (32 bytes); the int8 scales, sub-block s of
// every row together (16s+i); then per sub-block s three chunks of 64
// bytes, row i at 4i, holding its sixteen 6-bit quants q[16s+k] so that
// for t = 0…3
//
//	chunk 0, byte t: q[t]   low nibble, q[t+8]  high nibble
//	chunk 1, byte t: q[t+4] low nibble, q[t+12] high nibble
//	chunk 2, byte t: the top two bits of q[t], q[t+4], q[t+8], q[t+12]
//
// (bits 0–1, 2–3, 4–5, 6–7). Still six bits a weight: the same bytes as
// the file, in the order the kernel takes them.
func pack16Q6_K(dst []byte, i int, src []byte) {
	copy(dst[2*i:2*i+2], src[208:210])
	var q [256]byte
	for n := range 2 { // ggml's order: see dotQ6_KGo
		ql, qh := src[64*n:64*n+64], src[128+32*n:160+32*n]
		for l := range 32 {
			q[128*n+l] = ql[l]&0xF | (qh[l]&3)<<4
			q[128*n+l+32] = ql[l+32]&0xF | (qh[l]>>2&3)<<4
			q[128*n+l+64] = ql[l]>>4 | (qh[l]>>4&3)<<4
			q[128*n+l+96] = ql[l+32]>>4 | (qh[l]>>6&3)<<4
		}
	}
	for s := range 16 {
		dst[32+16*s+i] = src[192+s]
		sub, c := q[16*s:16*s+16], dst[288+192*s+4*i:]
		for t := range 4 {
			c[t] = sub[t]&0xF | sub[t+8]<<4
			c[64+t] = sub[t+4]&0xF | sub[t+12]<<4
			c[128+t] = sub[t]>>4 | sub[t+4]>>4<<2 | sub[t+8]>>4<<4 | sub[t+12]>>4<<6
		}
	}
}

// prepareSums writes what the kernels start each block's sum from, for a
// row a of activations: per Q8_0 block −8·Σa (Q4_0 weights), −16·Σa
// (Q5_0) or −128·Σa (Q8_0 weights, stored q+128) as int32 and d_a
// (float32), 8 bytes; per Q8_K super-block, for Q6_K weights −32·Σa of
// each of its sixteen sub-blocks (int32), 64 bytes, and for Q4_K weights
// Σa of each of its eight sub-blocks of 32 (int16, bsums[2s] +
// bsums[2s+1]), what the mins multiply, 16 bytes.
func prepareSums(dt unit01.DType, dst, a []byte) {
	if dt == unit01.Q4_K {
		for b := range len(a) / 292 {
			_, _, bsum := q8K(a[292*b:])
			for s := range 8 {
				binary.LittleEndian.PutUint16(dst[16*b+2*s:], uint16(int16(bsum(2*s)+bsum(2*s+1))))
			}
		}
		return
	}
	if dt == unit01.Q6_K {
		for b := range len(a) / 292 {
			_, _, bsum := q8K(a[292*b:])
			for s := range 16 {
				binary.LittleEndian.PutUint32(dst[64*b+4*s:], uint32(int32(-32*bsum(s))))
			}
		}
		return
	}
	// In assembly (acts_amd64.s): run once per activation row on the
	// calling goroutine before the pool starts, the Go loop over every
	// quant was a serial share of each product in a batch.
	if n := len(a) / 34; n > 0 {
		_, _ = dst[8*n-1], a[34*n-1]
		k := -8
		switch dt {
		case unit01.Q5_0:
			k = -16
		case unit01.Q8_0:
			k = -128
		}
		sumsQ8_0AVX512(&dst[0], &a[0], n, k)
	}
}

// rows16 computes weight rows 16g…16g+15 (those that exist) for every
// activation row: eight at a time (all types but Q6_K), then four at a
// time, then one at a time. A last group of fewer than sixteen rows goes
// through out and only its rows are copied.
func (k *mulTask) rows16(g int, out *[8][16]float32) {
	dt, y, ab := k.m.Type, k.y, k.actBytes
	nb := k.m.Cols / dt.BlockSize()
	wb, sb := packedBlock(dt)
	sb *= nb
	w := k.m.packed[g*nb*wb : (g+1)*nb*wb]
	n := min(16, k.m.Rows-16*g) // rows of the group that exist
	for t := 0; t < y.Rows; {
		rows, real := 1, 1 // the kernel's rows; those of them that exist
		switch {
		case dt != unit01.Q6_K && t+8 <= y.Rows:
			rows, real = 8, 8
		case t+4 <= y.Rows:
			rows, real = 4, 4
		case t+2 <= y.Rows: // the last two or three, and padding MulT made room for
			rows, real = 4, y.Rows-t
		}
		a, s := k.acts[t*ab:(t+rows)*ab], k.sums[t*sb:(t+rows)*sb]
		if n == 16 && real == rows {
			_ = y.Data[(t+rows-1)*y.Stride+16*g+15]
			rows16xN(dt, rows, &w[0], nb, &a[0], ab, &s[0], sb, &y.Data[t*y.Stride+16*g], 4*y.Stride)
		} else {
			rows16xN(dt, rows, &w[0], nb, &a[0], ab, &s[0], sb, &out[0][0], 64)
			for r := range real {
				copy(y.Data[(t+r)*y.Stride+16*g:(t+r)*y.Stride+16*g+n], out[r][:n])
			}
		}
		t += real
	}
}

// rows16xN runs the kernel of type dt for rows (8, 4 or 1) activation
// rows; Q6_K has no eight-row kernel.
func rows16xN(dt unit01.DType, rows int, w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int) {
	switch dt {
	case unit01.Q6_K:
		if rows == 4 {
			rows16x4Q6_K(w, blocks, a, astride, s, sstride, y, ystride)
		} else {
			rows16x1Q6_K(w, blocks, a, s, y)
		}
	case unit01.Q4_K:
		switch rows {
		case 8:
			rows16x8Q4_K(w, blocks, a, astride, s, sstride, y, ystride)
		case 4:
			rows16x4Q4_K(w, blocks, a, astride, s, sstride, y, ystride)
		default:
			rows16x1Q4_K(w, blocks, a, s, y)
		}
	case unit01.Q5_0:
		switch rows {
		case 8:
			rows16x8Q5_0(w, blocks, a, astride, s, sstride, y, ystride)
		case 4:
			rows16x4Q5_0(w, blocks, a, astride, s, sstride, y, ystride)
		default:
			rows16x1Q5_0(w, blocks, a, s, y)
		}
	case unit01.Q8_0:
		switch rows {
		case 8:
			rows16x8Q8_0(w, blocks, a, astride, s, sstride, y, ystride)
		case 4:
			rows16x4Q8_0(w, blocks, a, astride, s, sstride, y, ystride)
		default:
			rows16x1Q8_0(w, blocks, a, s, y)
		}
	default:
		switch rows {
		case 8:
			rows16x8Q4_0(w, blocks, a, astride, s, sstride, y, ystride)
		case 4:
			rows16x4Q4_0(w, blocks, a, astride, s, sstride, y, ystride)
		default:
			rows16x1Q4_0(w, blocks, a, s, y)
		}
	}
}
