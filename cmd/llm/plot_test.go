package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotutil"
)

// svgContent is what a test reads back from an SVG plot: the text of its
// <text> elements, and the colours its paths are stroked with.
type svgContent struct {
	texts   []string
	strokes map[string]bool
}

// readSVG parses path as XML, failing the test if it is not.
func readSVG(t *testing.T, path string) svgContent {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	c := svgContent{strokes: map[string]bool{}}
	stroke := regexp.MustCompile(`stroke:(#[0-9A-F]{6})`)
	d := xml.NewDecoder(f)
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "%s is not well-formed XML", path)
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
			for _, a := range tok.Attr {
				if m := stroke.FindStringSubmatch(a.Value); tok.Name.Local == "path" && a.Name.Local == "style" && m != nil {
					c.strokes[m[1]] = true
				}
			}
		case xml.CharData:
			if inText {
				c.texts = append(c.texts, strings.TrimSpace(string(tok)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	require.NotEmpty(t, c.texts, "%s has no text", path)
	return c
}

// seriesColors is how many of the plot's line colours (plotutil.Color(i),
// i = 0, 1, ...) its paths are stroked with, one after the other.
func (c svgContent) seriesColors() int {
	n := 0
	for {
		r, g, b, _ := plotutil.Color(n).RGBA()
		if !c.strokes[fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)] {
			return n
		}
		n++
	}
}

func TestPlotDepth(t *testing.T) {
	path := tinyModel(t)
	out := filepath.Join(t.TempDir(), "b.svg")
	r := llm("bench", "-m", path, "-p", "8", "-n", "4", "-d", "0,8", "-t", "1,2", "-r", "1", "--plot", out)
	require.Equal(t, 0, r.status, "stderr %q", r.stderr)
	assert.Contains(t, r.stdout, "tg4 @ d8", "the table comes first, as without --plot")
	assert.Equal(t, "llm bench: wrote "+out+"\n", r.stderr)

	svg := readSVG(t, out)
	for _, want := range []string{"pp8 t=1", "pp8 t=2", "tg4 t=1", "tg4 t=2"} {
		assert.Equal(t, 1, countOf(svg.texts, want), "legend entry %q in %q", want, svg.texts)
	}
	assert.Equal(t, 4, svg.seriesColors(), "a line for each test and thread count")
	assert.True(t, slices.ContainsFunc(svg.texts, func(s string) bool { return strings.HasPrefix(s, "llm bench: tiny.gguf (llama ") }),
		"the title names the engine and the model file: %q", svg.texts)
	assert.Contains(t, svg.texts, "depth (tokens in the cache before the test)")
	assert.Contains(t, svg.texts, "tokens per second (t/s)")
	assert.Subset(t, svg.texts, []string{"0", "8"}, "the x axis marks the depths measured")
}

func TestPlotThreads(t *testing.T) {
	path := tinyModel(t)
	out := filepath.Join(t.TempDir(), "b.svg")
	r := llm("bench", "-m", path, "-p", "8", "-n", "4", "-t", "1,2", "-r", "2", "--plot", out, "--json")
	require.Equal(t, 0, r.status, "stderr %q", r.stderr)
	assert.Len(t, strings.Split(strings.TrimSpace(r.stdout), "\n"), 4, "--json is as without --plot")

	svg := readSVG(t, out)
	assert.Equal(t, 1, countOf(svg.texts, "pp8"))
	assert.Equal(t, 1, countOf(svg.texts, "tg4"))
	assert.Equal(t, 2, svg.seriesColors(), "a line for each test")
	assert.Contains(t, svg.texts, "threads")
	assert.NotContains(t, svg.texts, "depth (tokens in the cache before the test)")
}

func countOf(texts []string, s string) int {
	n := 0
	for _, t := range texts {
		if t == s {
			n++
		}
	}
	return n
}

// TestPlotLines: the choice of the x axis, and the lines' names and order.
func TestPlotLines(t *testing.T) {
	names := func(lines []benchSeries) []string {
		var s []string
		for _, l := range lines {
			s = append(s, l.name)
		}
		return s
	}
	// As the bench loops: threads, then depth, then tests.
	var points []benchPoint
	for _, threads := range []int{1, 2} {
		for _, d := range []int{0, 256} {
			for _, test := range []string{"pp512", "tg128"} {
				points = append(points, benchPoint{test: test, depth: d, threads: threads, tps: float64(1000 - d), sd: 1})
			}
		}
	}
	x, lines := benchLines(points)
	assert.Equal(t, "depth (tokens in the cache before the test)", x)
	assert.Equal(t, []string{"pp512 t=1", "pp512 t=2", "tg128 t=1", "tg128 t=2"}, names(lines))
	for _, l := range lines {
		require.Len(t, l.xys, 2)
		assert.Equal(t, []float64{0, 256}, []float64{l.xys[0].X, l.xys[1].X}, "%s: x is the depth, in order", l.name)
	}

	// One depth: against the threads, a line per test.
	x, lines = benchLines([]benchPoint{{test: "pp8", threads: 4, tps: 3}, {test: "pp8", threads: 1, tps: 1}, {test: "tg4", threads: 1, tps: 2}})
	assert.Equal(t, "threads", x)
	assert.Equal(t, []string{"pp8", "tg4"}, names(lines))
	assert.Equal(t, []float64{1, 4}, []float64{lines[0].xys[0].X, lines[0].xys[1].X}, "x is the threads, in order")

	// One depth other than 0: named by it.
	_, lines = benchLines([]benchPoint{{test: "pp8", depth: 64, threads: 1, tps: 3}})
	assert.Equal(t, []string{"pp8 @ d64"}, names(lines))

	// The row's test name, cut back to the test.
	assert.Equal(t, benchPoint{test: "tg4", depth: 40, threads: 2, tps: 5, sd: 1}, pointOf(2, benchTest{name: "tg4 @ d40", depth: 40}, 5, 1))
	assert.Equal(t, "spec16", pointOf(1, benchTest{name: "spec16"}, 5, 1).test)
}

// TestPlotEdges: odd measurements draw without a panic and make a good
// SVG: one point, speeds of zero, speeds the clock could not time, none.
func TestPlotEdges(t *testing.T) {
	dir := t.TempDir()
	for name, points := range map[string][]benchPoint{
		"one":   {{test: "pp8", threads: 1, tps: 123.4}},
		"zero":  {{test: "pp8", threads: 1}, {test: "pp8", threads: 2}, {test: "tg4", depth: 8, threads: 1}},
		"inf":   {{test: "pp8", threads: 1, tps: math.Inf(1), sd: math.NaN()}, {test: "tg4", threads: 1, tps: 5, sd: math.Inf(1)}},
		"nan":   {{test: "pp8", threads: 1, tps: math.NaN()}},
		"none":  nil,
		"wide":  {{test: "pp8", threads: 1, tps: 1, sd: 10}, {test: "pp8", threads: 2, tps: 1e9}},
		"depth": {{test: "tg4", depth: 0, threads: 1, tps: 0}, {test: "tg4", depth: 4096, threads: 1, tps: 0}},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name+".svg")
			pf, err := openPlot(out)
			require.NoError(t, err)
			require.NotPanics(t, func() {
				p, err := benchPlot("llm bench: edge.gguf", points)
				require.NoError(t, err)
				require.NoError(t, pf.write(p))
			})
			readSVG(t, out)
		})
	}
}

// TestPlotUsageErrors: a --plot file that cannot be written is a usage
// error before the model is even read (the model named does not exist, so
// these pass on the stubs too), and leaves nothing behind.
func TestPlotUsageErrors(t *testing.T) {
	const m = "no-such-model.gguf"
	dir := t.TempDir()
	file, sub := filepath.Join(dir, "file"), filepath.Join(dir, "d.svg")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	require.NoError(t, os.Mkdir(sub, 0o755))
	for _, tc := range []struct{ plot, want string }{
		{"b.txt", "--plot b.txt: want a file ending in .eps, .jpeg, .jpg, .pdf, .png, .svg, .tex, .tif or .tiff"},
		{"b", "--plot b: want a file ending in"},
		{"", "--plot : want a file ending in"},
		{filepath.Join(dir, "no-such-dir", "b.svg"), "cannot write it"},
		{filepath.Join(file, "b.svg"), "cannot write it"},
		{sub, "cannot write it"},
	} {
		args := []string{"bench", "-m", m, "-p", "8", "-n", "4", "-r", "1", "--plot", tc.plot}
		checkError(t, args, llm(args...), 2, tc.want)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "only what the test made")
}

// TestPlotUnwritableDirectory: a directory the user may not write to.
func TestPlotUnwritableDirectory(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a directory the user cannot write to: not as root, not on Windows")
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	args := []string{"bench", "-m", "no-such-model.gguf", "--plot", filepath.Join(dir, "b.svg")}
	checkError(t, args, llm(args...), 2, "permission denied")
}

// TestPlotBeforeBenchmark: with a model that runs, a bad --plot still
// stops llm bench before it measures anything (nothing on stdout); and a
// benchmark that fails after the file was opened removes the file it
// created but leaves a file that was there before as it was.
func TestPlotBeforeBenchmark(t *testing.T) {
	path := tinyModel(t)
	dir := t.TempDir()
	for _, plot := range []string{filepath.Join(dir, "b.tiff.txt"), filepath.Join(dir, "no-such-dir", "b.svg")} {
		args := []string{"bench", "-m", path, "-p", "8", "-n", "4", "-r", "1", "--plot", plot}
		checkError(t, args, llm(args...), 2, "--plot "+plot+": ")
	}

	// -p 2000000000 fails when the model is loaded, after --plot is opened.
	created, old := filepath.Join(dir, "new.svg"), filepath.Join(dir, "old.svg")
	require.NoError(t, os.WriteFile(old, []byte("an earlier plot"), 0o644))
	for _, plot := range []string{created, old} {
		r := llm("bench", "-m", path, "-p", "2000000000", "-n", "0", "--plot", plot)
		require.Equal(t, 2, r.status, "stderr %q", r.stderr)
	}
	assert.NoFileExists(t, created)
	b, err := os.ReadFile(old)
	require.NoError(t, err)
	assert.Equal(t, "an earlier plot", string(b))
}

// TestPlotTicks: the speed axis is labelled without padding zeros.
func TestPlotTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var s []string
		for _, tick := range (plainTicks{}).Ticks(lo, hi) {
			if tick.Label != "" {
				s = append(s, tick.Label)
			}
		}
		return s
	}
	assert.Equal(t, []string{"0", "2500", "5000"}, labels(0, 5500))
	assert.Equal(t, []string{"0", "0.4", "0.8"}, labels(0, 0.9))
	assert.Equal(t, []string{"-1", "0", "1"}, labels(-1, 1), "all zeros: the range plot gives them")
}
