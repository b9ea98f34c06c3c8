// Command roofline draws the picture of docs/unit14.md: the roofline of one
// core of this machine (its float32 FMA peak and its read bandwidth, both
// measured here, and the 8-bit integer roof of VPDPBUSD, four times the FMA
// rate in operations where the CPU has AVX-512 VNNI) with TinyLlama 1.1B's
// forward passes in Q4_0 placed on it by unit14's cost model (PassCost): a
// decode step at depth 0 and at depth 4096, and prompts of 64 and 512
// tokens. It is how 14.1 reads: the decode steps sit left of the ridge,
// bound by memory; the prompts far right of it, bound by arithmetic.
//
//	go run -overlay "$(go run ./cmd/forge overlay --impl ref)" ./ci/roofline -o docs/unit14-roofline.svg
//
// The figures are this machine's: run it on another and the roof moves.
package main

import (
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
	"github.com/llmforge/forge/unit14"
)

func main() {
	out := flag.String("o", "docs/unit14-roofline.svg", "the picture to write (.svg, .png, .pdf)")
	flag.Parse()
	peak, isa := bosses.Peak(300 * time.Millisecond)
	bw := bandwidth()
	roof := unit14.Roof{Ops: peak * 1e9, Bytes: bw}
	fmt.Printf("one core: FMA peak %.1f GFLOP/s (%s probe), read bandwidth %.1f GB/s, ridge %.1f op/byte\n", peak, isa, bw/1e9, roof.Ridge())
	// The integer roof: a 512-bit VPDPBUSD does 64 multiply-adds (128
	// operations) where a 512-bit FMA does 16 (32), and both issue one a
	// cycle on Zen 4 and on Sapphire Rapids' AVX-512 port (unit13's boss
	// measured eight independent VPDPBUSD in 8 cycles). Unit09's Q4_0 and
	// Q8_0 kernels run on it.
	var int8Roof *unit14.Roof
	if bosses.Has("avx512vnni") {
		int8Roof = &unit14.Roof{Ops: 4 * roof.Ops, Bytes: bw}
		fmt.Printf("int8 roof (VPDPBUSD): %.0f Gop/s, ridge %.1f op/byte\n", int8Roof.Ops/1e9, int8Roof.Ridge())
	}
	kernels := roof
	if int8Roof != nil {
		kernels = *int8Roof
	}

	c, w := tinyLlama()
	var points []point
	for _, p := range []struct {
		name     string
		T, depth int
	}{{"decode", 1, 0}, {"decode @ 4096", 1, 4096}, {"prompt of 64", 64, 0}, {"prompt of 512", 512, 0}} {
		cost, err := unit14.PassCost(c, w, p.T, p.depth, 2)
		if err != nil {
			log.Fatal(err)
		}
		i := cost.Intensity()
		points = append(points, point{p.name, i, kernels.Attainable(i)})
		fmt.Printf("%-14s %8.1f MB %10.2f Gop  %7.2f op/byte  at most %6.1f Gop/s\n", p.name, cost.Bytes/1e6, cost.Ops/1e9, i, kernels.Attainable(i)/1e9)
	}
	if err := drawRoofline(*out, roof, int8Roof, points); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", *out)
}

// bandwidth measures one core's read bandwidth in bytes per second: the best
// of five passes over 1 GiB, far more than the caches hold.
func bandwidth() float64 {
	x := make([]float32, 1<<28)
	for i := range x {
		x[i] = 1
	}
	best := math.Inf(1)
	for range 5 {
		best = min(best, bosses.Seconds(func() { bosses.Read(x) }))
	}
	return 4 * float64(len(x)) / best
}

// tinyLlama is TinyLlama 1.1B's shape with Q4_0 matrices and a Q6_K output,
// room for 4608 positions. The blocks are zeros: the cost model reads only
// shapes and types, and pages never touched cost nothing.
func tinyLlama() (unit05.Config, *unit05.Weights) {
	c := unit05.Config{Dim: 2048, Layers: 22, Heads: 32, KVHeads: 4, HeadDim: 64, FFN: 5632, Vocab: 32000, MaxSeq: 4608,
		RopeBase: 10000, RMSEps: 1e-5}
	q := func(dt unit01.DType, rows, cols int) unit05.Matrix {
		rb, err := dt.RowBytes(cols)
		if err != nil {
			log.Fatal(err)
		}
		m, err := unit09.NewQMatrix(dt, rows, cols, make([]byte, rows*rb))
		if err != nil {
			log.Fatal(err)
		}
		return m
	}
	w := &unit05.Weights{Output: q(unit01.Q6_K, c.Vocab, c.Dim)}
	for range c.Layers {
		w.Layers = append(w.Layers, unit05.Layer{Wq: q(unit01.Q4_0, c.QDim(), c.Dim), Wk: q(unit01.Q4_0, c.KVDim(), c.Dim),
			Wv: q(unit01.Q4_0, c.KVDim(), c.Dim), Wo: q(unit01.Q4_0, c.Dim, c.QDim()),
			Gate: q(unit01.Q4_0, c.FFN, c.Dim), Up: q(unit01.Q4_0, c.FFN, c.Dim), Down: q(unit01.Q4_0, c.Dim, c.FFN)})
	}
	return c, w
}

// point is a forward pass on the roofline.
type point struct {
	name      string
	intensity float64 // op/byte
	ops       float64 // op/s at most
}

// drawRoofline plots the roofs and the points on log-log axes; int8 may be
// nil (no VNNI).
func drawRoofline(path string, roof unit14.Roof, int8 *unit14.Roof, points []point) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("One core: %.0f GFLOP/s FMA peak, %.1f GB/s read; TinyLlama 1.1B in Q4_0 by unit14.PassCost", roof.Ops/1e9, roof.Bytes/1e9)
	p.X.Label.Text = "arithmetic intensity (operations per byte)"
	p.Y.Label.Text = "attainable G operations/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(10), -vg.Points(10)

	top := roof.Ops
	if err := addRoof(p, roof, "float32 FMA roof", nil); err != nil {
		return err
	}
	if int8 != nil {
		top = int8.Ops
		if err := addRoof(p, *int8, "8-bit integer roof (VPDPBUSD: 4 × the FMA's operations)", []vg.Length{vg.Points(6), vg.Points(3)}); err != nil {
			return err
		}
	}

	var xys plotter.XYs
	for _, pt := range points {
		xys = append(xys, plotter.XY{X: pt.intensity, Y: pt.ops / 1e9})
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	s.GlyphStyle.Radius = vg.Points(4)
	s.Color = color.RGBA{R: 200, A: 255}
	p.Add(s)
	// One label per point, each placed where it does not cover another.
	for i, pt := range points {
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys[i : i+1], Labels: []string{fmt.Sprintf("%s: %.1f op/B", pt.name, pt.intensity)}})
		if err != nil {
			return err
		}
		switch i {
		case 0, 1: // the decode steps, close together: below and to the right, one under the other
			lab.TextStyle[0].XAlign = draw.XLeft
			lab.Offset = vg.Point{X: vg.Points(8), Y: -vg.Points(16 + 14*float64(i))}
		case 2: // the short prompt: above, to the left
			lab.TextStyle[0].XAlign = draw.XRight
			lab.Offset = vg.Point{X: -vg.Points(4), Y: vg.Points(10)}
		default: // the long prompt: above, to the right
			lab.TextStyle[0].XAlign = draw.XLeft
			lab.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(10)}
		}
		p.Add(lab)
	}
	p.X.Min, p.X.Max = 0.1, 2000
	p.Y.Min, p.Y.Max = 0.1*roof.Bytes/1e9, 3*top/1e9
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}

// addRoof draws one roof, its ridge marked, as a line of the legend.
func addRoof(p *plot.Plot, r unit14.Roof, name string, dashes []vg.Length) error {
	var line plotter.XYs
	for i := 0.1; i <= 2000; i *= 1.05 {
		line = append(line, plotter.XY{X: i, Y: r.Attainable(i) / 1e9})
	}
	l, err := plotter.NewLine(line)
	if err != nil {
		return err
	}
	l.Width, l.Dashes = vg.Points(2), dashes
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("%s: %.0f G/s, ridge %.1f op/B", name, r.Ops/1e9, r.Ridge()), l)
	ridge, err := plotter.NewLine(plotter.XYs{{X: r.Ridge(), Y: 0.1 * r.Bytes / 1e9}, {X: r.Ridge(), Y: r.Ops / 1e9}})
	if err != nil {
		return err
	}
	ridge.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
	ridge.Color = color.Gray{Y: 150}
	p.Add(ridge)
	return nil
}
