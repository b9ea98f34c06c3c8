package unit09

import (
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// F16 weights at F32's speed: converters write F16 by default, and an F16
// model is half the bytes of the same model in F32, so it must decode at
// least as fast (a decode step streams the weights once) and prefill
// within 1.5× of it (a prefill is compute-bound: the halves are widened,
// then multiplied as float32s). The F32 side is the engine's road for F32
// weights (unit05.Dense): unit03.MatVec for one activation row,
// unit03.MatMulT for several, with the fastest kernel.

// f16Shapes are the engine's matrices (out × in) in a TinyLlama-sized
// model: the attention's square projections and the FFN's gate and up.
var f16Shapes = [][2]int{{2048, 2048}, {5632, 2048}}

// f16Figures measures the F16 products against the same weights in F32,
// one thread, side by side in one run (bosses.PairedRatio):
// "f16-decode-x-f32" is t_f32/t_f16 for one activation row,
// "f16-prefill-x-f32" the same for 64 rows.
func f16Figures(b *testing.B) map[string]float64 {
	g := oracle.NewRand(916)
	var halves []*QMatrix
	var floats []unit03.Mat
	for _, s := range f16Shapes {
		data := randomBlocks(g, unit01.F16, s[0]*s[1])
		m, err := NewQMatrix(unit01.F16, s[0], s[1], data)
		if err != nil {
			b.Fatal(err)
		}
		w := unit03.NewMat(s[0], s[1])
		if err := DequantizeRow(unit01.F16, w.Data, data); err != nil {
			b.Fatal(err)
		}
		halves, floats = append(halves, m), append(floats, w)
	}
	kern := unit03.Best()
	figures := map[string]float64{}
	for _, c := range []struct {
		name   string
		T      int
		repeat int // products per timing, so that one lasts milliseconds
	}{{"f16-decode-x-f32", 1, 8}, {"f16-prefill-x-f32", 64, 1}} {
		in := f16Shapes[0][1]
		x := unit03.MatOf(c.T, in, g.Normal(c.T*in, 0, 1))
		ys := make([]unit03.Mat, len(f16Shapes))
		for i, s := range f16Shapes {
			ys[i] = unit03.NewMat(c.T, s[0])
		}
		f32 := func() {
			for range c.repeat {
				for i, w := range floats {
					if c.T == 1 {
						unit03.MatVec(nil, kern, ys[i].Data, w, x.Data)
					} else {
						unit03.MatMulT(nil, kern, ys[i], x, w)
					}
				}
			}
		}
		f16 := func() {
			for range c.repeat {
				for i, m := range halves {
					m.MulT(nil, ys[i], x)
				}
			}
		}
		f32() // warm up both, and the scratch they keep
		f16()
		figures[c.name] = 1 / bosses.PairedRatio(9, f32, f16)
	}
	return figures
}
