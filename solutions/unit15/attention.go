package unit15

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
)

// The flash attention kernel of 15.4: unit08's tiles and online softmax on
// a GPU, for one head.

// QueryTile is the number of query rows a block of FlashAttention
// computes: the height of its block of threads, a warp per row.
const QueryTile = 16

// KeyTile is the number of keys FlashAttention scores per step: the width
// of its block, a thread per key.
const KeyTile = WarpSize

// MaxHeadDim is the widest head FlashAttention takes: each thread keeps
// MaxHeadDim/KeyTile elements of its row's output in registers.
const MaxHeadDim = 128

// FlashAttention sets o = softmax(q·kᵀ/√d)·v for one head: q and o are nq
// rows of d, k and v nk rows of d, all row-major. With causal, query row
// i sits at position nk−nq+i (the last nq of nk positions, as in a
// decode step or a prompt after a cached prefix) and sees keys 0 to that
// position; without, every key. A block of KeyTile × QueryTile threads
// computes QueryTile rows of o: it copies its queries into shared memory
// once, then, a tile of KeyTile keys and values at a time, copies the
// tile, scores it (thread x of row y: query y against key x), and folds
// the scores into each row's running maximum, sum and output (the online
// softmax), each thread for the output columns x, x+32, …. The shared
// memory holds the queries, one tile of keys, one of values and one of
// scores, whatever nk is; tiles past a block's last visible key are not
// read. A row of a tile is the head padded with zeros to a multiple of
// 32 words, and one word more: the threads of a warp then take the same
// path through every copy and every sum (a warp does not diverge), and the
// 32 keys a warp scores, rows an odd number of words apart, lie in 32
// different banks.
// Sizes that are not positive, d above MaxHeadDim, causal with nq > nk,
// or buffers that do not hold the sizes are an error wrapping
// unit00.ErrInvalid.
func FlashAttention(o, q, k, v *Global, nq, nk, d int, causal bool) (Stats, error) {
	if err := checkAttention(o, q, k, v, nq, nk, d, causal); err != nil {
		return Stats{}, err
	}
	width := (d + KeyTile - 1) / KeyTile * KeyTile // the head, padded
	stride := width + 1
	ks := QueryTile * stride  // where the keys' tile starts
	vs := ks + KeyTile*stride // the values'
	ss := vs + KeyTile*stride // the scores'
	shared := ss + QueryTile*KeyTile
	scale := float32(1 / math.Sqrt(float64(d)))
	grid := Dim3{(nq + QueryTile - 1) / QueryTile, 1, 1}
	return Launch(grid, Dim3{KeyTile, QueryTile, 1}, shared, func(t *Thread) {
		tx, ty := t.Idx.X, t.Idx.Y
		row := t.BlockIdx.X*QueryTile + ty // this thread's query
		end := nk                          // the keys the block's rows see
		if causal {
			end = min(nk, nk-nq+t.BlockIdx.X*QueryTile+QueryTile)
		}
		for c := tx; c < width; c += KeyTile {
			t.SharedStore(ty*stride+c, loadOr0(t, q, row, c, nq, d))
		}
		m, l := float32(math.Inf(-1)), float32(0)
		var acc [MaxHeadDim / KeyTile]float32
		for j0 := 0; j0 < end; j0 += KeyTile {
			for r := ty; r < KeyTile; r += QueryTile { // rows ty and ty+16 of the tiles
				for c := tx; c < width; c += KeyTile {
					t.SharedStore(ks+r*stride+c, loadOr0(t, k, j0+r, c, nk, d))
					t.SharedStore(vs+r*stride+c, loadOr0(t, v, j0+r, c, nk, d))
				}
			}
			t.SyncThreads()
			var dot float32
			for c := range d {
				dot += t.SharedLoad(ty*stride+c) * t.SharedLoad(ks+tx*stride+c)
			}
			s := dot * scale
			if key := j0 + tx; key >= nk || causal && key > nk-nq+row {
				s = float32(math.Inf(-1))
			}
			t.SharedStore(ss+ty*KeyTile+tx, s)
			t.SyncThreads()
			mNew := m
			for j := range KeyTile {
				mNew = max(mNew, t.SharedLoad(ss+ty*KeyTile+j))
			}
			alpha := exp32(m - mNew) // rescales what was summed under the old maximum
			l *= alpha
			for i := range acc {
				acc[i] *= alpha
			}
			for j := range KeyTile {
				p := exp32(t.SharedLoad(ss+ty*KeyTile+j) - mNew)
				l += p
				for i, c := 0, tx; c < width; i, c = i+1, c+KeyTile {
					acc[i] += p * t.SharedLoad(vs+j*stride+c)
				}
			}
			m = mNew
			t.SyncThreads()
		}
		if row < nq {
			for i, c := 0, tx; c < d; i, c = i+1, c+KeyTile {
				t.Store(o, row*d+c, acc[i]/l)
			}
		}
	})
}

// exp32 is e^x in float32; e^−∞ is 0.
func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }

func checkAttention(o, q, k, v *Global, nq, nk, d int, causal bool) error {
	if nq < 1 || nk < 1 || d < 1 || d > MaxHeadDim || causal && nq > nk ||
		len(q.Data) != nq*d || len(o.Data) != nq*d || len(k.Data) != nk*d || len(v.Data) != nk*d {
		return fmt.Errorf("attention: nq %d, nk %d, d %d (causal %v) with q of %d, k of %d, v of %d and o of %d words: want positive sizes, d ≤ %d, nq ≤ nk when causal, q and o nq·d words, k and v nk·d: %w",
			nq, nk, d, causal, len(q.Data), len(k.Data), len(v.Data), len(o.Data), MaxHeadDim, unit00.ErrInvalid)
	}
	return nil
}
