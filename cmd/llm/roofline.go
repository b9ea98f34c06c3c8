package main

import (
	"fmt"
	"io"

	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit08"
	"github.com/llmforge/forge/unit14"
)

// The roofline of a benchmark (llm bench --roofline): for each test, what
// one forward pass costs by unit14's model (the bytes it must move, the
// operations it must do) and what the measured speed makes of it, the
// bandwidth and the arithmetic rate the engine reached. A decode step
// that moves its bytes at the machine's read bandwidth cannot go faster;
// a prompt far below the FMA peak has room.

// rooflineRow is one test's line.
type rooflineRow struct {
	threads    int
	test       string
	bytes, ops float64 // per forward pass
	seconds    float64 // per forward pass, measured
}

// passCost is the cost of one forward pass of test t: the whole prompt of
// a pp test, or one decode step of a tg test at the middle of its depths
// (attention's cost grows linearly with the depth, so the mean of the
// steps' costs is the cost at the mean depth: the two ends averaged).
func passCost(net *unit05.Model, t benchTest, kvBytes float64) (unit14.Cost, error) {
	c, w := net.Config, net.Weights
	if t.prompt {
		return unit14.PassCost(c, w, t.n, t.depth, kvBytes)
	}
	first, err := unit14.PassCost(c, w, 1, t.prefix(), kvBytes)
	if err != nil {
		return unit14.Cost{}, err
	}
	last, err := unit14.PassCost(c, w, 1, t.prefix()+t.n-1, kvBytes)
	if err != nil {
		return unit14.Cost{}, err
	}
	return unit14.Cost{Ops: (first.Ops + last.Ops) / 2, Bytes: (first.Bytes + last.Bytes) / 2}, nil
}

// cacheBytes is the bytes per element of a KV cache type: a row of one
// block (32 elements, Q8_0's block) over its length.
func cacheBytes(t unit08.CacheType) float64 {
	return float64(t.RowBytes(unit08.Q8Block)) / unit08.Q8Block
}

// newRooflineRow measures test t at tps tokens per second.
func newRooflineRow(net *unit05.Model, threads int, t benchTest, tps float64, kv cacheTypes) (rooflineRow, error) {
	kvBytes := (cacheBytes(kv.k) + cacheBytes(kv.v)) / 2
	cost, err := passCost(net, t, kvBytes)
	if err != nil {
		return rooflineRow{}, err
	}
	perPass := 1 / tps // a decode step makes one token
	if t.prompt {
		perPass = float64(t.n) / tps
	}
	return rooflineRow{threads: threads, test: t.name, bytes: cost.Bytes, ops: cost.Ops, seconds: perPass}, nil
}

// writeRoofline prints the rows as a table.
func writeRoofline(w io.Writer, rows []rooflineRow) {
	fmt.Fprintln(w, "\nroofline (unit14.PassCost): what one forward pass moves and computes, and the rates this run reached")
	fmt.Fprintf(w, "| %7s | %14s | %10s | %10s | %9s | %8s | %9s |\n", "threads", "test", "MB/pass", "Gop/pass", "op/byte", "GB/s", "Gop/s")
	fmt.Fprintln(w, "| ------: | -------------: | ---------: | ---------: | --------: | -------: | --------: |")
	for _, r := range rows {
		fmt.Fprintf(w, "| %7d | %14s | %10.1f | %10.3f | %9.2f | %8.2f | %9.2f |\n", r.threads, r.test, r.bytes/1e6, r.ops/1e9,
			unit14.Cost{Ops: r.ops, Bytes: r.bytes}.Intensity(), r.bytes/r.seconds/1e9, r.ops/r.seconds/1e9)
	}
}
