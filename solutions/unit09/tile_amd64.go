//go:build amd64 && !purego

package unit09

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/unit01"
)

// Tiles: a batch of activation rows against four weight rows at a time.
//
// Decode multiplies one row of activations by every weight, and the
// weights' bytes from memory set its pace. A batch (a prompt's tokens, or
// the decode tokens of many sequences served at once) reads the weights
// once for all its rows, and the pace is then set by the arithmetic per
// pair of rows. The 4-row kernel spends most of that on work that does not
// depend on the pair: unpacking each weight row's nibbles and scales, and
// rearranging each activation group. The tile kernel
// (tile4Q4_0VNNI in dot_amd64.s) does the first once per four activation
// rows, and prepareTile does the second once per MulT.
//
// Tiles exist for Q4_0 on AVX-512 VNNI, the type of most weights of a
// Q4_0 model; other types and levels take the 4-row kernel for every row.

//go:noescape
func tile4Q4_0VNNI(w0, w1, w2, w3, p *byte, quads int, y *float32, ystride int)

// tileBytes returns the size of four prepared rows of activations for a
// matrix of type dt with cols columns, or 0 where there is no tile kernel
// (the type, the CPU, or a row shorter than one group of four blocks).
func tileBytes(dt unit01.DType, cols int) int {
	if level != levelVNNI || dt != unit01.Q4_0 {
		return 0
	}
	return cols / 128 * 1024
}

// prepareTile writes four rows of Q8_0 activations (a[r], of at least
// len(dst)/1024 groups of four blocks) in the tile kernel's layout: per
// group and row, 256 bytes holding elements 0–15 of each of the four
// blocks, then elements 16–31, then −8·Σa for each four-byte lane of those
// (int32), then each lane's block scale d_a (float32). These are the
// registers Q4_0VNNI4_ACTS builds, computed exactly (integers, and f16 to
// f32, which is exact), so the tile's products equal the 4-row kernel's.
func prepareTile(dst []byte, a *[4][]byte) {
	for q := range len(dst) / 1024 {
		for r := range 4 {
			p := dst[q*1024+r*256 : q*1024+r*256+256]
			for b := range 4 {
				blk := a[r][(4*q+b)*34 : (4*q+b)*34+34]
				copy(p[16*b:16*b+16], blk[2:18])
				copy(p[64+16*b:64+16*b+16], blk[18:34])
				d := math.Float32bits(unit01.F16ToF32(binary.LittleEndian.Uint16(blk)))
				for l := 4 * b; l < 4*b+4; l++ {
					var s int32
					for i := 4 * l; i < 4*l+4; i++ {
						s += int32(int8(p[i])) + int32(int8(p[64+i]))
					}
					binary.LittleEndian.PutUint32(p[128+4*l:], uint32(-8*s))
					binary.LittleEndian.PutUint32(p[192+4*l:], d)
				}
			}
		}
	}
}

// tile computes y[r+i][j+c] for i, c in 0–3: the products of activation
// rows r…r+3 (prepared in tile t of k.tiles) with weight rows j…j+3. The
// groups the kernel leaves over take the Go path, row by row, as dot4's do.
func (k *mulTask) tile(j, r int, w *[4][]byte) {
	y, tb := k.y, k.tileBytes
	n := tb / 1024
	p := k.tiles[r/4*tb : r/4*tb+tb]
	_, _, _, _ = w[0][n*72-1], w[1][n*72-1], w[2][n*72-1], w[3][n*72-1]
	_ = y.Data[(r+3)*y.Stride+j+3]
	tile4Q4_0VNNI(&w[0][0], &w[1][0], &w[2][0], &w[3][0], &p[0], n, &y.Data[r*y.Stride+j], 4*y.Stride)
	if n*72 == len(w[0]) {
		return
	}
	for i := range 4 {
		a := k.acts[(r+i)*k.actBytes+n*136 : (r+i+1)*k.actBytes]
		for c := range 4 {
			y.Data[(r+i)*y.Stride+j+c] += dotAsm(unit01.Q4_0, w[c][n*72:], a)
		}
	}
}
