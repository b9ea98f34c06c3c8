package mutants

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/llmforge/forge/internal/grade"
	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

// Verdict is the outcome of checking one mutant.
type Verdict struct {
	Mutant Mutant
	Caught bool
	Lines  []string // one per catcher: "1.3 FAIL TestC1_3_Slice: ..." or why it was not caught
}

// Check grades the unit with the mutant swapped in (every other unit from
// the reference) and reports whether each of its Caught-by challenges failed.
// A mutant that does not compile, or that a challenge does not notice,
// is not caught.
func Check(ctx context.Context, r workbook.Repo, m Mutant, short bool) (Verdict, error) {
	v := Verdict{Mutant: m}
	dir, err := os.MkdirTemp("", "forge-mutant-")
	if err != nil {
		return v, err
	}
	defer os.RemoveAll(dir)
	if err := m.Write(r, dir); err != nil {
		return v, err
	}
	boss := grade.BossSkip
	if slices.Contains(m.CaughtBy, "boss") {
		boss = grade.BossQuick
	}
	g, err := grade.New(ctx, grade.Options{
		Repo:       r,
		Run:        catchersRE(m),
		Selection:  overlay.Selection{Units: []workbook.Unit{m.Unit}, Impl: dir, Deps: overlay.Ref},
		Boss:       boss,
		Short:      short,
		BuildFlags: m.BuildFlags,
	})
	if err != nil {
		return v, err
	}
	defer g.Close()
	res, err := g.Unit(ctx, m.Unit)
	if err != nil {
		return v, err
	}
	if res.Build != nil {
		v.Lines = append(v.Lines, "the mutant does not compile: "+firstLine(res.Build.FirstLines(1)))
		return v, nil
	}
	v.Caught = true
	for _, c := range m.CaughtBy {
		status, detail := catcher(res, c)
		caught := status == grade.Fail || status == grade.Panic || status == grade.Timeout
		if !caught {
			v.Caught = false
			detail = "not caught: " + detail
		}
		v.Lines = append(v.Lines, fmt.Sprintf("%-5s %-7s %s", c, status, detail))
	}
	return v, nil
}

// catchersRE selects the tests of the mutant's Caught-by entries: only
// they decide the verdict, so only they run.
func catchersRE(m Mutant) *regexp.Regexp {
	var alts []string
	for _, c := range m.CaughtBy {
		if c == "boss" {
			alts = append(alts, fmt.Sprintf("TestBoss%d_", int(m.Unit)))
			continue
		}
		alts = append(alts, "TestC"+strings.Replace(c, ".", "_", 1)+"_")
	}
	return regexp.MustCompile("^(" + strings.Join(alts, "|") + ")")
}

// catcher finds the result of one Caught-by entry.
func catcher(res grade.UnitResult, id string) (grade.Status, string) {
	if id == "boss" {
		if res.Boss == nil {
			return grade.NotRun, "the unit has no boss"
		}
		return res.Boss.Status, res.Boss.Detail
	}
	for _, c := range res.Challenges {
		if c.ID == id {
			if t, ok := grade.FirstProblem(c.Tests); ok {
				return c.Status, t.Name + ": " + t.Detail
			}
			return c.Status, "every test passed"
		}
	}
	return grade.NotRun, "the unit has no challenge " + id
}

func firstLine(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return ls[0]
}
