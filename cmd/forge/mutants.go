package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/llmforge/forge/internal/mutants"
	"github.com/llmforge/forge/internal/workbook"
)

func cmdMutants(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	write := fs.String("write", "", "write the one mutant named as an IMPL folder (then: make unitNN IMPL=DIR)")
	short := fs.Bool("short", false, "run the tests with -test.short")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	r, err := repo()
	if err != nil {
		return err
	}
	all, err := mutants.Load(r)
	if err != nil {
		return err
	}
	chosen, err := pick(all, pos)
	if err != nil {
		return err
	}
	if *write != "" {
		if len(chosen) != 1 {
			return usagef("--write takes exactly one mutant (UNIT/NAME); %d match", len(chosen))
		}
		if err := chosen[0].Write(r, *write); err != nil {
			return err
		}
		fmt.Printf("wrote mutant %s (%s) to %s; grade it with: make %s IMPL=%s\n",
			chosen[0].ID(), chosen[0].Description, *write, chosen[0].Unit.Dir(), *write)
		return nil
	}
	missed := 0
	for _, m := range chosen {
		v, err := mutants.Check(ctx, r, m, *short)
		if err != nil {
			return err
		}
		verdict := "caught"
		if !v.Caught {
			verdict, missed = "NOT CAUGHT", missed+1
		}
		fmt.Printf("%-40s %s: %s\n", m.ID(), verdict, m.Description)
		for _, l := range v.Lines {
			fmt.Printf("    %s\n", l)
		}
	}
	fmt.Printf("%d of %d mutants caught\n", len(chosen)-missed, len(chosen))
	if missed > 0 {
		return errFailed
	}
	return nil
}

// pick selects mutants by "unit01" or "unit01/name" (or "01/name").
func pick(all []mutants.Mutant, args []string) ([]mutants.Mutant, error) {
	if len(args) == 0 {
		return all, nil
	}
	var out []mutants.Mutant
	for _, a := range args {
		unitArg, name, _ := strings.Cut(a, "/")
		u, err := workbook.ParseUnit(unitArg)
		if err != nil {
			return nil, usagef("%v", err)
		}
		n := 0
		for _, m := range all {
			if m.Unit == u && (name == "" || m.Name == name) {
				out = append(out, m)
				n++
			}
		}
		if n == 0 {
			return nil, usagef("no mutant matches %q (they live in ci/mutants/unitNN/NAME/)", a)
		}
	}
	return out, nil
}
