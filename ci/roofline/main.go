// Command roofline draws the picture of docs/unit14.md: the roofline of one
// core of this machine (its FMA peak and its read bandwidth, both measured
// here) with TinyLlama 1.1B's forward passes in Q4_0 placed on it by
// unit14's cost model (PassCost): a decode step at depth 0 and at depth
// 4096, and prompts of 64 and 512 tokens. It is how 14.1 reads: the decode
// steps sit far left of the ridge, bound by memory; the prompts right of
// it, bound by arithmetic.
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
		points = append(points, point{p.name, i, roof.Attainable(i)})
		fmt.Printf("%-14s %8.1f MB %10.2f Gop  %7.2f op/byte  at most %6.1f Gop/s\n", p.name, cost.Bytes/1e6, cost.Ops/1e9, i, roof.Attainable(i)/1e9)
	}
	if err := drawRoofline(*out, roof, points); err != nil {
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

// drawRoofline plots the roof and the points on log-log axes.
func drawRoofline(path string, roof unit14.Roof, points []point) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("One core's roofline: peak %.0f GFLOP/s, %.1f GB/s; TinyLlama 1.1B Q4_0 passes (unit14.PassCost)", roof.Ops/1e9, roof.Bytes/1e9)
	p.X.Label.Text = "arithmetic intensity (operations per byte)"
	p.Y.Label.Text = "attainable GFLOP/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}

	var line plotter.XYs
	for i := 0.1; i <= 2000; i *= 1.05 {
		line = append(line, plotter.XY{X: i, Y: roof.Attainable(i) / 1e9})
	}
	l, err := plotter.NewLine(line)
	if err != nil {
		return err
	}
	l.Width = vg.Points(2)
	p.Add(l)
	ridge, err := plotter.NewLine(plotter.XYs{{X: roof.Ridge(), Y: 0.1 * roof.Bytes / 1e9}, {X: roof.Ridge(), Y: roof.Ops / 1e9}})
	if err != nil {
		return err
	}
	ridge.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	ridge.Color = color.Gray{Y: 128}
	p.Add(ridge)

	var xys plotter.XYs
	var labels []string
	for _, pt := range points {
		xys = append(xys, plotter.XY{X: pt.intensity, Y: pt.ops / 1e9})
		labels = append(labels, fmt.Sprintf("%s (%.1f op/B)", pt.name, pt.intensity))
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	s.GlyphStyle.Radius = vg.Points(4)
	s.Color = color.RGBA{R: 200, A: 255}
	p.Add(s)
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign = draw.XRight
		lab.Offset = vg.Point{X: -vg.Points(6), Y: vg.Points(4)}
	}
	p.Add(lab)
	p.X.Min, p.X.Max = 0.1, 2000
	p.Y.Min, p.Y.Max = 0.1*roof.Bytes/1e9, 2*roof.Ops/1e9
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}
