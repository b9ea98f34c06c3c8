package main

import (
	"context"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

// parseInterleaved parses flags that may come before, between or after the
// positional arguments ("forge grade 01 --impl ref"), and returns the
// positionals.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usagef("%v", err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// selectionFlags are the flags that choose implementations.
type selectionFlags struct {
	impl, deps string
}

func (s *selectionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.impl, "impl", overlay.Mine, "implementation of the units named: mine, ref or a folder mirroring solutions/")
	fs.StringVar(&s.deps, "deps", "", "implementation of the other units: mine, ref, a folder, ref:03,04 (those from the reference, the rest yours) or auto (yours where your tests pass); default: the same as --impl")
}

// selection builds the overlay selection for the units named. Besides
// mine, ref and a folder, --deps takes ref:03,04 (those units from the
// reference, the others yours) and auto (each unit yours where its tests
// pass, else the reference: see overlay.Auto).
func (s *selectionFlags) selection(ctx context.Context, units []workbook.Unit) (overlay.Selection, error) {
	impl, deps := strings.TrimSpace(s.impl), strings.TrimSpace(s.deps)
	if impl == "" {
		impl = overlay.Mine
	}
	if deps == "" {
		deps = impl
	}
	base, pick, auto, special, err := overlay.ParseDeps(deps)
	if err != nil {
		return overlay.Selection{}, usagef("%v", err)
	}
	if special {
		deps = base
	}
	for _, v := range []string{impl, deps} {
		if v == overlay.Mine || v == overlay.Ref {
			continue
		}
		if fi, err := os.Stat(v); err != nil || !fi.IsDir() {
			return overlay.Selection{}, usagef("implementation %q: want mine, ref or an existing folder that mirrors solutions/ (and for --deps also ref:03,04 or auto)", v)
		}
	}
	sel := overlay.Selection{Units: units, Impl: impl, Deps: deps, Pick: pick}
	if auto {
		r, err := repo()
		if err != nil {
			return overlay.Selection{}, err
		}
		if sel.Pick, err = overlay.Auto(ctx, r, sel, os.Stderr); err != nil {
			return overlay.Selection{}, err
		}
	}
	return sel, nil
}

// parseUnits turns positional arguments into units; none means every
// written unit when all is true.
func parseUnits(repo workbook.Repo, args []string) ([]workbook.Unit, error) {
	if len(args) == 0 {
		return repo.WrittenUnits(), nil
	}
	var us []workbook.Unit
	for _, a := range args {
		u, err := workbook.ParseUnit(a)
		if err != nil {
			return nil, usagef("%v", err)
		}
		us = append(us, u)
	}
	return us, nil
}

// compileRun compiles a --run pattern; "" means all.
func compileRun(s string) (*regexp.Regexp, error) {
	if s == "" {
		return nil, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, usagef("--run %q: %v", s, err)
	}
	return re, nil
}

func repo() (workbook.Repo, error) {
	wd, err := os.Getwd()
	if err != nil {
		return workbook.Repo{}, err
	}
	return workbook.FindRoot(wd)
}
