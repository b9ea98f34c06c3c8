//go:build amd64 && !purego

package unit09

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/unit01"
)

// Sixteen rows at a time: Q4_0 weights repacked for AVX-512 VNNI.
//
// In the file's layout each row is a run of blocks, and a SIMD dot product
// of one row spreads its sums over the lanes of a register, to be added
// across lanes at the end, block scale by block scale. Repacked so that one
// register holds four quants of each of sixteen rows (rows16_amd64.s),
// every lane is one row's dot product from start to end: the activations'
// four bytes are broadcast to all lanes, a block costs eight VPDPBUSD, one
// conversion, one multiply and one FMA for sixteen rows, and nothing crosses
// lanes. Both decode (one activation row, rows16x1) and batches (four
// rows, rows16x4, each block unpacked once for the four) run through the
// same per-lane arithmetic, so a row's result does not depend on its batch.
//
// The packed copy is made at a matrix's first MulT, so loading a model
// stays a mapping of its file, and costs as much memory as the weights
// (llama.cpp repacks the same way). Other types and CPUs take dot4.

//go:noescape
func rows16x4Q4_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)

//go:noescape
func rows16x1Q4_0(w *byte, blocks int, a *byte, s *byte, y *float32)

// packs16 reports whether MulT runs weights of type dt packed sixteen rows
// at a time on this CPU.
func packs16(dt unit01.DType) bool { return level == levelVNNI && dt == unit01.Q4_0 }

// pack16 returns m's rows packed sixteen at a time: for each group of
// sixteen rows and each block, the rows' sixteen f16 scales, then chunk c
// = 0…3 holding bytes 4c…4c+3 of each row's quants (row i at 4i). A last
// group of fewer rows is padded with zero blocks.
func pack16(m *QMatrix) []byte {
	nb := m.Cols / 32
	out := make([]byte, (m.Rows+15)/16*nb*288)
	for j := range m.Rows {
		g, i, row := j/16, j%16, m.row(j)
		for b := range nb {
			src, dst := row[18*b:18*b+18], out[(g*nb+b)*288:(g*nb+b+1)*288]
			copy(dst[2*i:2*i+2], src[:2])
			for c := range 4 {
				copy(dst[32+64*c+4*i:36+64*c+4*i], src[2+4*c:6+4*c])
			}
		}
	}
	return out
}

// prepareSums writes, for each block of a row a of Q8_0 activations, the
// kernels' −8·Σa (int32) and d_a (float32) into dst, 8 bytes per block.
func prepareSums(dst, a []byte) {
	for b := range len(a) / 34 {
		blk := a[34*b : 34*b+34]
		var s int32
		for _, q := range blk[2:] {
			s += int32(int8(q))
		}
		binary.LittleEndian.PutUint32(dst[8*b:], uint32(-8*s))
		binary.LittleEndian.PutUint32(dst[8*b+4:], math.Float32bits(half(blk)))
	}
}

// rows16 computes weight rows 16g…16g+15 (those that exist) for every
// activation row: four at a time, then one at a time. A last group of
// fewer than sixteen rows goes through out and only its rows are copied.
func (k *mulTask) rows16(g int, out *[4][16]float32) {
	nb, y, ab := k.m.Cols/32, k.y, k.actBytes
	sb := 8 * nb
	w := k.m.packed[g*nb*288 : (g+1)*nb*288]
	n := min(16, k.m.Rows-16*g) // rows of the group that exist
	t := 0
	for ; t+4 <= y.Rows; t += 4 {
		a, s := k.acts[t*ab:(t+4)*ab], k.sums[t*sb:(t+4)*sb]
		if n == 16 {
			_ = y.Data[(t+3)*y.Stride+16*g+15]
			rows16x4Q4_0(&w[0], nb, &a[0], ab, &s[0], sb, &y.Data[t*y.Stride+16*g], 4*y.Stride)
			continue
		}
		rows16x4Q4_0(&w[0], nb, &a[0], ab, &s[0], sb, &out[0][0], 64)
		for r := range 4 {
			copy(y.Data[(t+r)*y.Stride+16*g:(t+r)*y.Stride+16*g+n], out[r][:n])
		}
	}
	for ; t < y.Rows; t++ {
		a, s := k.acts[t*ab:(t+1)*ab], k.sums[t*sb:(t+1)*sb]
		if n == 16 {
			_ = y.Data[t*y.Stride+16*g+15]
			rows16x1Q4_0(&w[0], nb, &a[0], &s[0], &y.Data[t*y.Stride+16*g])
			continue
		}
		rows16x1Q4_0(&w[0], nb, &a[0], &s[0], &out[0][0])
		copy(y.Data[t*y.Stride+16*g:t*y.Stride+16*g+n], out[0][:n])
	}
}
