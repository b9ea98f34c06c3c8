package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/grade"
)

func cmdBoss(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("boss", flag.ContinueOnError)
	var sel selectionFlags
	sel.register(fs)
	count := fs.Int("count", 5, "benchmark runs per figure (the median is reported)")
	quick := fs.Bool("quick", false, "CI's quick mode: 3 runs, benchmarks with -test.short")
	verbose := fs.Bool("v", false, "show the output of a boss that does not pass")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *count < 1 {
		return usagef("--count %d: want at least 1", *count)
	}
	r, err := repo()
	if err != nil {
		return err
	}
	units, err := parseUnits(r, pos)
	if err != nil {
		return err
	}
	s, err := sel.selection(ctx, units)
	if err != nil {
		return err
	}
	opt := grade.Options{Repo: r, Selection: s, Boss: grade.BossFull, BenchCount: *count, OnlyBoss: true}
	if *quick {
		opt.BenchCount, opt.Short = 3, true
	}
	g, err := grade.New(ctx, opt)
	if err != nil {
		return err
	}
	defer g.Close()
	ok := true
	for _, u := range units {
		if _, has := bosses.For(int(u)); !has || !r.Written(u) {
			fmt.Printf("%s · %s: no boss yet\n", u, u.Title())
			continue
		}
		res, err := g.Unit(ctx, u)
		if err != nil {
			return err
		}
		fmt.Printf("%s · %s   (impl %s, %d runs, median)\n", u, u.Title(), s.For(u), opt.BenchCount)
		switch {
		case res.Build != nil:
			fmt.Printf("  the tests do not compile: `make %s` shows why\n", u)
			ok = false
		case res.Boss != nil:
			grade.RenderBoss(os.Stdout, u, *res.Boss, *verbose)
			ok = ok && (res.Boss.Status == grade.Pass || grade.NeedsGPUOnly(*res.Boss))
		}
	}
	if !ok {
		return errFailed
	}
	return nil
}

func cmdBars(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("bars takes no arguments")
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "unit\tboss\tmetric\tbar\thow it is measured")
	for _, b := range bosses.Table {
		for _, g := range b.Gates {
			fmt.Fprintf(w, "%02d\t%s\tgate %s\tpasses\t%s\n", b.Unit, b.Title, g, gateHow[g])
		}
		for _, bar := range b.Bars {
			v := fmt.Sprintf("%s %g", bar.Cmp, bar.Value)
			if bar.Cmp == bosses.Info {
				v = "(reported)"
			}
			fmt.Fprintf(w, "%02d\t%s\t%s\t%s\t%s\n", b.Unit, b.Title, bar.Metric, v, bar.How)
		}
	}
	return w.Flush()
}

var gateHow = map[bosses.Gate]string{
	bosses.GateGofmt: "every Go file of the unit is gofmt-formatted",
	bosses.GateVet:   "go vet is clean, with and without -tags forgedebug",
	bosses.GateRace:  "the unit's tests pass under go test -race",
}
