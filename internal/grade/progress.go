package grade

import (
	"fmt"
	"io"
	"strings"
)

// RenderProgress writes one table over all units: each challenge's status in
// a row per unit, the boss, and a closing line.
func RenderProgress(w io.Writer, rs []UnitResult, impl string) {
	fmt.Fprintf(w, "Forge progress (impl %s)\n\n", impl)
	fmt.Fprintf(w, "%-4s  %-24s  %-14s  %s\n", "unit", "topic", "boss", "challenges")
	passed, total, bossPassed, bossTotal := 0, 0, 0, 0
	for _, r := range rs {
		var cells []string
		boss := ""
		switch {
		case !r.Written:
			cells = []string{"not yet written"}
		case r.Build != nil:
			cells = []string{"does not compile: `make " + r.Unit.Dir() + "` shows why"}
		default:
			for _, c := range r.Challenges {
				cells = append(cells, fmt.Sprintf("%s %s", c.ID, c.Status))
				total++
				if c.Status == Pass {
					passed++
				}
			}
		}
		if r.Boss != nil {
			bossTotal++
			boss = string(r.Boss.Status)
			switch r.Boss.Status {
			case Pass:
				bossPassed++
			case Todo:
				boss = "not attempted"
			}
			if r.Boss.Status != Pass && r.Boss.Boss.After != "" {
				boss = "after " + r.Boss.Boss.After
			}
		}
		fmt.Fprintf(w, "%-4s  %-24s  %-14s  %s\n", r.Unit.Dir()[4:], clip(r.Unit.Title(), 24), boss, strings.Join(cells, " · "))
	}
	fmt.Fprintf(w, "\n%d of %d challenges pass, %d of %d bosses beaten.\n", passed, total, bossPassed, bossTotal)
	if AllTodo(rs) {
		fmt.Fprintln(w, StartingLine)
		return
	}
	for _, r := range rs {
		if r.Written && !Passed(r) {
			fmt.Fprintf(w, "Next: %s\n", NextStep(r))
			return
		}
	}
}
