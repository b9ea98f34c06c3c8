package unit08

import (
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// AttendRows computes attention for the T rows of q at positions
// pos0 … pos0+T−1 over keys and values that k and v keep (unit13's paged
// cache), as Attend does over float32 rows: Decode's road for one row,
// Prefill's for more, each block of keys and of values read once through
// ReadRows, into the worker's scratch where the rows do not lie together.
// The first call gives f's workers that scratch; later ones allocate
// nothing. It panics (unit00.Check) when k or v holds fewer than pos0+T
// rows, on shapes that do not fit, or on heads other than New's.
func (f *Flash) AttendRows(p *unit03.Pool, out, q unit03.Mat, k, v RowReader, heads, kvHeads, pos0 int) {
	unit00.Check(k != nil && v != nil, "AttendRows: k and v must not be nil")
	f.blockScratch()
	kr, vr := kv{ext: k, rows: k.Len()}, kv{ext: v, rows: v.Len()}
	if q.Rows == 1 {
		f.decode(p, out, q, kr, vr, heads, kvHeads, pos0)
		return
	}
	f.prefill(p, out, q, kr, vr, heads, kvHeads, pos0)
}
