// Command forge is the workbook tool: it grades units challenge by challenge,
// swaps in reference solutions or a student's folder without touching any
// file, measures the bosses, hands out hints, and runs the checks of
// `make test`.
//
// Usage:
//
//	forge grade [UNIT...] [--impl mine|ref|DIR] [--deps mine|ref|DIR] [--run REGEX] [-v]
//	forge progress [--impl ...] [--strict]
//	forge boss [UNIT...] [--impl ...] [--count N] [--quick] [-v]
//	forge overlay [UNIT...] [--impl ...] [--deps ...]
//	forge hint UNIT CH [--level N | --reset]
//	forge bars
//	forge mutants [UNIT[/NAME]...] [--write DIR]
//	forge mutation [UNIT...] [-j N] [--sample N --seed S] [--timebox D] [--json FILE] [--triage]
//	forge materialize --impl ref DIR
//	forge check (api|imports|stubs|docs|all)
//	forge ci
//
// Exit status: 0 when everything asked for passed, 1 when something did not,
// 2 for a usage error.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errFailed means the command ran and reported that something did not pass:
// exit status 1, with nothing more to print.
var errFailed = errors.New("not everything passed")

var commands = map[string]func(ctx context.Context, args []string) error{
	"grade":       cmdGrade,
	"progress":    cmdProgress,
	"boss":        cmdBoss,
	"overlay":     cmdOverlay,
	"hint":        cmdHint,
	"bars":        cmdBars,
	"mutants":     cmdMutants,
	"mutation":    cmdMutation,
	"materialize": cmdMaterialize,
	"check":       cmdCheck,
	"ci":          cmdCI,
}

const usage = `forge: the Forge workbook tool

  forge grade [UNIT...] [--impl mine|ref|DIR] [--deps mine|ref|DIR] [--run REGEX] [-v]
        grade units challenge by challenge (default: every written unit)
  forge progress [--impl ...] [--strict]
        one table over all units (make grade)
  forge boss [UNIT...] [--impl ...] [--count N] [--quick] [-v]
        measure boss figures (median of N runs) against their bars
  forge overlay [UNIT...] [--impl ...] [--deps ...]
        write the go -overlay file for a selection and print its path
  forge hint UNIT CH [--level N | --reset]
        print the next hint of a challenge from docs/unitNN.md
  forge bars
        print the table of boss bars
  forge mutants [UNIT[/NAME]...] [--write DIR]
        check that every mutant is caught, or write one as an IMPL folder
  forge mutation [UNIT...] [-j N] [--sample N --seed S] [--timebox D] [--json FILE] [--triage]
        generate mutants of the reference mechanically and grade each one:
        the score (bar 90%) and every survivor with file:line
  forge materialize --impl ref DIR
        copy the repository to DIR with a selection swapped in for real
  forge check api|imports|stubs|docs|all
        the workbook's structural checks
  forge ci
        everything make test checks, with a closing summary line

UNIT is 0..15, 01 or unit01. IMPL: mine (your unitNN/ files, the default),
ref (solutions/), or a folder that mirrors solutions/. DEPS defaults to IMPL.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) < 2 || os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Print(usage)
		return
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "forge: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	err := cmd(ctx, os.Args[2:])
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "forge %s: %v\n", os.Args[1], err)
		os.Exit(2)
	case errors.Is(err, errFailed):
		os.Exit(1)
	default:
		fmt.Fprintf(os.Stderr, "forge %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
