package unit09

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// The boss "bandwidth-bound": a decode step reads every weight once, so a
// quantized matrix–vector product is as fast as the memory bus allows or
// it is too slow. On a matrix far larger than the caches, the Q4_0 and
// Q4_K products on one thread reach at least 60% of the read bandwidth
// measured in the same run (bytes of weights per second), and their
// results agree with the float64 oracle. An F16 matrix, half the bytes of
// the same weights in F32, decodes at least as fast as F32 and prefills
// within 1.5× of it (boss_f16_test.go).

// bossRows × bossCols weights: 75 MB in Q4_0 or Q4_K, beyond any L3.
const bossRows, bossCols = 16384, 8192

func bossMatrix(tb testing.TB, dt unit01.DType, rows int) *QMatrix {
	m, err := NewQMatrix(dt, rows, bossCols, randomBlocks(oracle.NewRand(uint64(dt)), dt, rows*bossCols))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestBoss9_BandwidthBound checks the boss's products: on a slice of the
// boss matrices, MulT on one and two threads against the float64 product
// of the dequantized weights with the dequantized activations.
func TestBoss9_BandwidthBound(t *testing.T) {
	g := oracle.NewRand(99)
	p := unit03.NewPool(2)
	defer p.Close()
	for _, dt := range []unit01.DType{unit01.Q4_0, unit01.Q4_K, unit01.Q8_0, unit01.Q6_K} {
		m := bossMatrix(t, dt, 64)
		x := unit03.MatOf(1, bossCols, g.Normal(bossCols, 0, 1))
		_, ad := activations(t, dt, x.Row(0))
		wd := oracle.DequantRow(int(dt), m.Data)
		want, bound := make([]float64, m.Rows), make([]float64, m.Rows)
		for j := range m.Rows {
			abs := 0.0
			for i := range bossCols {
				want[j] += wd[j*bossCols+i] * ad[i]
				abs += math.Abs(wd[j*bossCols+i] * ad[i])
			}
			bound[j] = (4*float64(bossCols/dt.BlockSize()) + 64) * eps32 * abs
		}
		for _, pool := range []*unit03.Pool{nil, p} {
			y := unit03.NewMat(1, m.Rows)
			m.MulT(pool, y, x)
			oracle.AssertBound(t, fmt.Sprintf("%v 64×%d MulT on %d threads", dt, bossCols, pool.Threads()), y.Data, want, bound, nil)
		}
	}
}

func BenchmarkBoss9_BandwidthBound(b *testing.B) {
	g := oracle.NewRand(100)
	x := unit03.MatOf(1, bossCols, g.Normal(bossCols, 0, 1))
	y := unit03.NewMat(1, bossRows)
	p := unit03.NewPool(2) // the engine decodes on every core; CI's machines have two
	defer p.Close()
	figures := map[string]float64{}
	for b.Loop() {
		for _, dt := range []unit01.DType{unit01.Q4_0, unit01.Q4_K} {
			m := bossMatrix(b, dt, bossRows)
			stream := make([]float32, len(m.Data)/4) // as many bytes, read
			for i := range stream {
				stream[i] = 1
			}
			m.MulT(nil, y, x) // warm up
			ratio := bosses.PairedRatio(7, func() { bosses.Read(stream) }, func() { m.MulT(nil, y, x) })
			name := map[unit01.DType]string{unit01.Q4_0: "q4_0", unit01.Q4_K: "q4_k"}[dt]
			figures[name+"-bw-%"] = 100 / ratio
			figures[name+"-GB/s"] = float64(len(m.Data)) / bosses.Seconds(func() { m.MulT(nil, y, x) }) / 1e9
			ratio2 := bosses.PairedRatio(7, func() { bosses.ReadOn(stream, 2) }, func() { m.MulT(p, y, x) })
			figures[name+"-2t-bw-%"] = 100 / ratio2
		}
		for k, v := range f16Figures(b) {
			figures[k] = v
		}
	}
	for k, v := range figures {
		b.ReportMetric(v, k)
	}
}
