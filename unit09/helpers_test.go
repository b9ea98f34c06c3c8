package unit09

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
)

// weightTypes are the weight types a model file holds; Q8_K is only ever
// an activation type.
var weightTypes = []unit01.DType{unit01.F32, unit01.F16, unit01.BF16, unit01.Q8_0, unit01.Q4_0, unit01.Q4_1, unit01.Q5_0, unit01.Q4_K, unit01.Q5_K, unit01.Q6_K}

// allTypes are every type this unit reads and writes.
var allTypes = append(append([]unit01.DType(nil), weightTypes...), unit01.Q8_K)

// eps32 is float32's unit roundoff.
const eps32 = 1.0 / (1 << 24)

// rowBytes is dt.RowBytes(n), which must succeed.
func rowBytes(dt unit01.DType, n int) int {
	b, err := dt.RowBytes(n)
	if err != nil {
		panic(err)
	}
	return b
}

// randomBlocks returns n elements of type dt as random but well-formed
// bytes: every quant random, every scale a finite f16 (or f32) of moderate
// size, so that dequantization neither overflows nor hides a wrong field.
func randomBlocks(g *oracle.Rand, dt unit01.DType, n int) []byte {
	b := make([]byte, rowBytes(dt, n))
	for i := range b {
		b[i] = byte(g.Uint32())
	}
	bb := dt.BlockBytes()
	for o := 0; o < len(b); o += bb {
		blk := b[o : o+bb]
		f16 := func(at int) { binary.LittleEndian.PutUint16(blk[at:], unit01.F32ToF16(float32(0.01+0.2*g.Float64()))) }
		switch dt {
		case unit01.F32:
			binary.LittleEndian.PutUint32(blk, math.Float32bits(float32(4*g.Float64()-2)))
		case unit01.F16, unit01.BF16:
			h := unit01.F32ToF16(float32(4*g.Float64() - 2))
			if dt == unit01.BF16 {
				h = unit01.F32ToBF16(float32(4*g.Float64() - 2))
			}
			binary.LittleEndian.PutUint16(blk, h)
		case unit01.Q8_0, unit01.Q4_0, unit01.Q5_0:
			f16(0)
		case unit01.Q4_1, unit01.Q4_K, unit01.Q5_K:
			f16(0)
			f16(2)
		case unit01.Q6_K:
			f16(208)
		case unit01.Q8_K:
			binary.LittleEndian.PutUint32(blk, math.Float32bits(float32(0.001+0.02*g.Float64())))
			for s := range 16 { // bsums must be the sums of their quants
				sum := 0
				for _, q := range blk[4+16*s : 20+16*s] {
					sum += int(int8(q))
				}
				binary.LittleEndian.PutUint16(blk[260+2*s:], uint16(int16(sum)))
			}
		}
	}
	return b
}

// rows of test data: the shapes of values a model's weights and
// activations take, and the ones that break quantizers.
func testRows(g *oracle.Rand, n int) map[string][]float32 {
	spiky := g.Normal(n, 0, 1)
	for i := 0; i < n; i += 37 {
		spiky[i] *= 40 // outliers, as real activations have
	}
	positive := g.Uniform(n, 0.5, 3)
	negative := g.Uniform(n, -3, -0.5)
	tiny := g.Normal(n, 0, 1e-6)
	constant := make([]float32, n)
	for i := range constant {
		constant[i] = 0.75
	}
	return map[string][]float32{
		"normal": g.Normal(n, 0, 1), "uniform": g.Uniform(n, -1, 1), "spiky": spiky, "positive": positive,
		"negative": negative, "tiny": tiny, "zeros": make([]float32, n), "constant": constant,
	}
}
