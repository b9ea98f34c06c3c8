package main

import (
	"context"
	"flag"
	"os"
	"regexp"

	"github.com/llmforge/forge/internal/ci"
)

func cmdCI(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ci", flag.ContinueOnError)
	staticcheck := fs.String("staticcheck", "", "path of staticcheck (default .tools/bin/staticcheck)")
	only := fs.String("only", "", "run only the steps whose name matches this regular expression")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ci takes no arguments")
	}
	r, err := repo()
	if err != nil {
		return err
	}
	env, err := ci.NewEnv(r, *staticcheck)
	if err != nil {
		return err
	}
	defer env.Close()
	onlyRE, err := regexp.Compile(*only)
	if err != nil {
		return usagef("--only %q: %v", *only, err)
	}
	var steps []ci.Step
	for _, s := range ci.Steps() {
		if onlyRE.MatchString(s.Name) {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return usagef("no step matches --only %q", *only)
	}
	if ci.Run(ctx, os.Stdout, env, steps) > 0 {
		return errFailed
	}
	return nil
}
