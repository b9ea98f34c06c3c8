package unit12

import (
	"slices"
	"testing"
)

// The measurements behind docs/unit12.md's figures, never graded: `make
// measure UNIT=12` runs them on the reference (BENCH= picks one).

// BenchmarkMeasure12_Gamma is the boss's measurement for γ = 2, 3, 4, 6
// and 8 at temperatures 0 and 0.8, three rounds each, and logs the medians:
// the γ table of 12.5. It takes about four minutes.
func BenchmarkMeasure12_Gamma(b *testing.B) {
	target, draft := bossModels(b)
	for b.Loop() {
	}
	for _, gamma := range []int{2, 3, 4, 6, 8} {
		for _, temp := range []float64{0, 0.8} {
			var fs []bossFigures
			for r := range 3 {
				fs = append(fs, measure(b, target, draft, gamma, 64, temp, uint64(200+r)))
			}
			med := func(get func(bossFigures) float64) float64 {
				v := make([]float64, len(fs))
				for i, f := range fs {
					v[i] = get(f)
				}
				slices.Sort(v)
				return v[len(v)/2]
			}
			speedup := med(func(f bossFigures) float64 { return f.speedup })
			ratio := med(func(f bossFigures) float64 { return f.speedup / f.predicted })
			b.Logf("γ = %d, temperature %.1f: α %.3f, c %.3f, predicted ×%.2f, measured ×%.2f (%.2f of the formula)", gamma, temp,
				med(func(f bossFigures) float64 { return f.alpha }), med(func(f bossFigures) float64 { return f.c }),
				med(func(f bossFigures) float64 { return f.predicted }), speedup, ratio)
		}
	}
}
