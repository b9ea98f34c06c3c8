package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/llmforge/forge/internal/grade"
	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

func cmdGrade(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	var sel selectionFlags
	sel.register(fs)
	run := fs.String("run", "", "grade only the tests whose names match this regular expression")
	verbose := fs.Bool("v", false, "show the whole output of every test that does not pass")
	timeout := fs.Duration("timeout", 5*time.Minute, "time limit of each test process")
	noBoss := fs.Bool("no-boss", false, "skip the boss")
	short := fs.Bool("short", false, "run tests with -test.short")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	r, err := repo()
	if err != nil {
		return err
	}
	units, err := parseUnits(r, pos)
	if err != nil {
		return err
	}
	runRE, err := compileRun(*run)
	if err != nil {
		return err
	}
	s, err := sel.selection(ctx, units)
	if err != nil {
		return err
	}
	mode := grade.BossQuick
	if *noBoss {
		mode = grade.BossSkip
	}
	g, err := grade.New(ctx, grade.Options{Repo: r, Selection: s, Run: runRE, Timeout: *timeout, Boss: mode, Short: *short})
	if err != nil {
		return err
	}
	defer g.Close()
	var results []grade.UnitResult
	ok := true
	for i, u := range units {
		res, err := g.Unit(ctx, u)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Println()
		}
		grade.Render(os.Stdout, res, s.DepsLabel(), *verbose)
		results = append(results, res)
		ok = ok && grade.PassedHere(res)
	}
	if grade.AllTodo(results) {
		fmt.Println()
		fmt.Println(grade.StartingLine)
	}
	if !ok {
		return errFailed
	}
	return nil
}

func cmdProgress(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("progress", flag.ContinueOnError)
	var sel selectionFlags
	sel.register(fs)
	strict := fs.Bool("strict", false, "exit with status 1 unless every written unit passes")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("progress takes no units (it covers them all); use forge grade UNIT for one")
	}
	r, err := repo()
	if err != nil {
		return err
	}
	if _, _, _, special, _ := overlay.ParseDeps(sel.deps); special {
		return usagef("progress grades every unit as --impl names it, on top of the same; --deps %s is for one unit (make unit05 DEPS=%s) or the engine (make engine DEPS=%s)", sel.deps, sel.deps, sel.deps)
	}
	s, err := sel.selection(ctx, nil)
	if err != nil {
		return err
	}
	g, err := grade.New(ctx, grade.Options{Repo: r, Selection: s, Boss: grade.BossQuick})
	if err != nil {
		return err
	}
	defer g.Close()
	var results []grade.UnitResult
	ok := true
	for _, u := range workbook.All() {
		res, err := g.Unit(ctx, u)
		if err != nil {
			return err
		}
		results = append(results, res)
		ok = ok && (!res.Written || grade.Passed(res))
	}
	grade.RenderProgress(os.Stdout, results, s.Impl)
	if *strict && !ok {
		return errFailed
	}
	return nil
}
