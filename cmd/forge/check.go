package main

import (
	"context"
	"fmt"

	"github.com/llmforge/forge/internal/checks"
	"github.com/llmforge/forge/internal/workbook"
)

// structural are the checks of `forge check`, by name, in the order `all` runs them.
var structural = []struct {
	name string
	what string
	run  func(workbook.Repo) []string
}{
	{"api", "each solution declares exactly its stub's API", checks.API},
	{"imports", "solutions never import oracle/; units import only earlier units", checks.Imports},
	{"stubs", "every stub body is a TODO panic naming its challenge and doc", checks.Stubs},
	{"docs", "docs follow the seven-part format, match the tests, and link only to files in the repo", checks.DocsAndLinks},
	{"testdata", "every testdata file matches its SHA256SUMS manifest", checks.Testdata},
	{"asm", "no legacy-SSE instruction runs with dirty upper vector halves (amd64 assembly)", checks.AsmSSE},
	{"contracts", "every sentinel error a test expects is named in the stub's doc comment", checks.Contracts},
}

func cmdCheck(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usagef("check takes one of: api, imports, stubs, docs, testdata, asm, contracts, all")
	}
	r, err := repo()
	if err != nil {
		return err
	}
	ran, failed := 0, 0
	for _, c := range structural {
		if args[0] != "all" && args[0] != c.name {
			continue
		}
		ran++
		probs := c.run(r)
		if len(probs) == 0 {
			fmt.Printf("ok    %-8s %s\n", c.name, c.what)
			continue
		}
		failed++
		fmt.Printf("FAIL  %-8s %s\n", c.name, c.what)
		for _, p := range probs {
			fmt.Printf("      %s\n", p)
		}
	}
	if ran == 0 {
		return usagef("unknown check %q: want api, imports, stubs, docs, testdata, asm, contracts or all", args[0])
	}
	if failed > 0 {
		return errFailed
	}
	return nil
}
