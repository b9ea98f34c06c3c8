package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgsvg" // SVG, the format the help shows, even in a minimal build of plot
)

// llm bench --plot: the table's tokens per second drawn with gonum/plot.

// plotWidth and plotHeight are the size of a --plot image: 6×4 inches,
// 432×288 points in an SVG or PDF, 576×384 pixels in a PNG (vgimg draws
// at 96 dpi).
const plotWidth, plotHeight = 6 * vg.Inch, 4 * vg.Inch

// plotMargin is the blank border around a --plot image.
const plotMargin = 0.15 * vg.Inch

// plotFormat returns the format of a --plot file, its extension without
// the dot and in lower case ("svg"), or the error that names the
// extensions plot.Save takes: the formats registered with vg/draw.
func plotFormat(path string) (string, error) {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	formats := draw.Formats()
	if slices.Contains(formats, format) {
		return format, nil
	}
	want := ""
	for i, f := range formats {
		switch {
		case i == 0:
		case i == len(formats)-1:
			want += " or "
		default:
			want += ", "
		}
		want += "." + f
	}
	return "", fmt.Errorf("want a file ending in %s", want)
}

// A plotFile is the --plot file, opened before the benchmark so that a
// path that cannot be written is a usage error at once, not after
// minutes of measuring.
type plotFile struct {
	path, format string
	f            *os.File
	created      bool // the file did not exist: discard removes it
	closed       bool // written or discarded
}

// openPlot opens path for writing without truncating it: a benchmark
// that fails or is interrupted leaves an earlier plot of that name as it
// was (and removes the empty file it created). A path that cannot be
// opened, or has an extension plot.Save does not take, is a usage error.
func openPlot(path string) (*plotFile, error) {
	format, err := plotFormat(path)
	if err != nil {
		return nil, usagef("--plot %s: %v", path, err)
	}
	created := true
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		created = false
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return nil, usagef("--plot %s: cannot write it: %v", path, err)
	}
	return &plotFile{path: path, format: format, f: f, created: created}, nil
}

// discard closes the file unwritten, and removes it if openPlot created
// it. Once the file is written or discarded it does nothing, so that a
// deferred discard cleans up after any failure.
func (pf *plotFile) discard() {
	if pf == nil || pf.closed {
		return
	}
	pf.closed = true
	pf.f.Close()
	if pf.created {
		os.Remove(pf.path)
	}
}

// write draws p into the file, replacing what it held, and closes it.
// On an error the file is discarded.
func (pf *plotFile) write(p *plot.Plot) error {
	err := pf.draw(p)
	if err == nil {
		err = pf.f.Close()
		pf.closed = err == nil
	}
	if err != nil {
		pf.discard()
		return fmt.Errorf("--plot %s: %w", pf.path, err)
	}
	return nil
}

// draw is plot.Save's drawing, inside a margin: gonum/plot draws the
// title and the last tick labels flush with the edges, where a glyph's
// top or half of "512" would be cut off.
func (pf *plotFile) draw(p *plot.Plot) error {
	w, err := draw.NewFormattedCanvas(plotWidth, plotHeight, pf.format)
	if err != nil {
		return err
	}
	const m = plotMargin
	p.Draw(draw.Crop(draw.New(w), m, -m, m, -m))
	if err := pf.f.Truncate(0); err != nil {
		return err
	}
	_, err = w.WriteTo(pf.f)
	return err
}

// A benchPoint is one row of llm bench's table.
type benchPoint struct {
	test    string // the test without its depth: "pp512", "tg128"
	depth   int
	threads int
	tps, sd float64 // mean tokens per second and its standard deviation
}

// pointOf is the point of a row: the test's name is cut back to what it
// is at every depth, so that a line joins its depths.
func pointOf(threads int, t benchTest, mean, sd float64) benchPoint {
	return benchPoint{test: strings.TrimSuffix(t.name, fmt.Sprintf(" @ d%d", t.depth)), depth: t.depth,
		threads: threads, tps: mean, sd: sd}
}

// A benchSeries is one line of the plot, its points in the order of x.
type benchSeries struct {
	name string
	xys  plotter.XYs
	errs plotter.YErrors
}

// byDepth reports whether the plot's x axis is the depth: when more than
// one depth was measured. With one (-d 0, the default) it is the threads,
// the one thing left that varies.
func byDepth(points []benchPoint) bool {
	return slices.ContainsFunc(points, func(p benchPoint) bool { return p.depth != points[0].depth })
}

// benchLines groups the points into lines: one per test and thread count
// against the depth, or one per test against the threads (see byDepth).
// The lines come in the order of the tests, then of the threads. A point
// whose speed is not finite (a test too fast for the clock) cannot be
// drawn and is left out.
func benchLines(points []benchPoint) (xLabel string, lines []benchSeries) {
	depth := byDepth(points)
	type key struct {
		test    string
		threads int
	}
	var keys []key
	group := map[key][]benchPoint{}
	for _, p := range points {
		if math.IsNaN(p.tps) || math.IsInf(p.tps, 0) {
			continue
		}
		k := key{test: p.test}
		if depth {
			k.threads = p.threads
		}
		if group[k] == nil {
			keys = append(keys, k)
		}
		group[k] = append(group[k], p)
	}
	order := map[string]int{}
	for _, k := range keys {
		if _, ok := order[k.test]; !ok {
			order[k.test] = len(order)
		}
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		if c := order[a.test] - order[b.test]; c != 0 {
			return c
		}
		return a.threads - b.threads
	})
	for _, k := range keys {
		name := k.test
		if depth {
			name = fmt.Sprintf("%s t=%d", k.test, k.threads)
		} else if d := group[k][0].depth; d > 0 {
			name = fmt.Sprintf("%s @ d%d", k.test, d)
		}
		lines = append(lines, seriesOf(name, group[k], depth))
	}
	if depth {
		return "depth (tokens in the cache before the test)", lines
	}
	return "threads", lines
}

// seriesOf is a line through points, x their depth or their threads.
func seriesOf(name string, points []benchPoint, depth bool) benchSeries {
	x := func(p benchPoint) float64 {
		if depth {
			return float64(p.depth)
		}
		return float64(p.threads)
	}
	points = slices.Clone(points)
	slices.SortStableFunc(points, func(a, b benchPoint) int { return cmp.Compare(x(a), x(b)) })
	s := benchSeries{name: name}
	for _, p := range points {
		sd := p.sd
		if math.IsNaN(sd) || math.IsInf(sd, 0) {
			sd = 0
		}
		s.xys = append(s.xys, plotter.XY{X: x(p), Y: p.tps})
		s.errs = append(s.errs, struct{ Low, High float64 }{sd, sd})
	}
	return s
}

// errorBars is a line's points with their errors, as plotter.NewYErrorBars
// takes them.
type errorBars struct {
	plotter.XYs
	plotter.YErrors
}

// benchPlot draws the points: title above, tokens per second against the
// depth or the threads (benchLines), the standard deviations as error
// bars where there are any.
func benchPlot(title string, points []benchPoint) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	xLabel, lines := benchLines(points)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = "tokens per second (t/s)"
	p.Legend.Top = true
	var xs []float64
	for i, s := range lines {
		if err := addLine(p, i, s); err != nil {
			return nil, err
		}
		for _, xy := range s.xys {
			xs = append(xs, xy.X)
		}
	}
	scaleAxes(p, xs, len(lines))
	return p, nil
}

// addLine adds the i-th line: its points joined, marked, with error bars
// if it has any, and its entry in the legend.
func addLine(p *plot.Plot, i int, s benchSeries) error {
	line, marks, err := plotter.NewLinePoints(s.xys)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	line.Color, line.Dashes = plotutil.Color(i), plotutil.Dashes(i)
	marks.Color, marks.Shape = plotutil.Color(i), plotutil.Shape(i)
	p.Add(line, marks)
	if slices.ContainsFunc(s.errs, func(e struct{ Low, High float64 }) bool { return e.High > 0 }) {
		bars, err := plotter.NewYErrorBars(errorBars{s.xys, s.errs})
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		bars.Color = plotutil.Color(i)
		p.Add(bars)
	}
	p.Legend.Add(s.name, line, marks)
	return nil
}

// scaleAxes starts the speed at 0, so that lines compare by their
// heights, leaves room above them for the legend's entries, and marks the
// x axis at the values measured (thread counts and depths are the -t and
// -d lists, not a continuum) unless there are too many to label.
func scaleAxes(p *plot.Plot, xs []float64, entries int) {
	p.Y.Min = min(p.Y.Min, 0)
	p.Y.Tick.Marker = plainTicks{}
	if p.Y.Max > p.Y.Min {
		p.Y.Max += (p.Y.Max - p.Y.Min) * min(0.08*float64(entries), 0.8)
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	if len(xs) == 0 || len(xs) > 12 {
		return
	}
	ticks := make(plot.ConstantTicks, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)}
	}
	p.X.Tick.Marker = ticks
}

// plainTicks are gonum/plot's default ticks, labelled without the zeros
// it pads them with: "2500", not "2500.00".
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if strings.Contains(t.Label, ".") && !strings.ContainsAny(t.Label, "eE") {
			ticks[i].Label = strings.TrimSuffix(strings.TrimRight(t.Label, "0"), ".")
		}
	}
	return ticks
}
