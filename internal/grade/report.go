package grade

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/workbook"
)

// Render writes the grade table of one unit, its boss line and the next step.
// verbose adds the whole output of every test that did not pass.
func Render(w io.Writer, r UnitResult, deps string, verbose bool) {
	fmt.Fprintf(w, "%s · %s   (impl %s, deps %s)\n", r.Unit, r.Unit.Title(), r.Impl, deps)
	if !r.Written {
		fmt.Fprintf(w, "  not yet written\n")
		return
	}
	if r.Build != nil {
		fmt.Fprintf(w, "  the tests do not compile:\n")
		for _, l := range r.Build.FirstLines(5) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	for _, c := range r.Challenges {
		fmt.Fprintf(w, "  %-4s %-34s %-8s %s\n", c.ID, clip(c.Title, 34), c.Status, challengeDetail(c))
		if verbose {
			writeOutput(w, c.Tests)
		}
	}
	if len(r.Challenges) == 0 && r.Build == nil {
		fmt.Fprintf(w, "  (no tests selected)\n")
	}
	for _, s := range r.Stray {
		fmt.Fprintf(w, "  note: %s is not named TestCN_M_What or TestBossN_What, so no challenge counts it\n", s)
	}
	if r.Boss != nil {
		RenderBoss(w, r.Unit, *r.Boss, verbose)
	}
	fmt.Fprintf(w, "  next: %s\n", NextStep(r))
}

// RenderBoss writes a boss's line, its gates and its figures against their bars.
func RenderBoss(w io.Writer, u workbook.Unit, b BossResult, verbose bool) {
	label := "boss " + b.Boss.Title
	switch b.Status {
	case Todo:
		why := todoText(b.Detail)
		if t, ok := FirstTodo(b.Tests); ok && t.TodoID != "" {
			why = "its test still hits TODO(" + t.TodoID + "): " + why
		}
		fmt.Fprintf(w, "  %-39s not attempted (%s)\n", clip(label, 39), why)
		return
	case Pass, Fail, Skip:
		detail := b.Detail
		if b.Status != Pass && b.Boss.After != "" {
			detail = fmt.Sprintf("(a boss for after %s, whose SIMD kernels it needs) %s", b.Boss.After, detail)
		}
		fmt.Fprintf(w, "  %-39s %-8s %s\n", clip(label, 39), b.Status, detail)
	default:
		fmt.Fprintf(w, "  %-39s %-8s %s\n", clip(label, 39), b.Status, b.Detail)
		if verbose {
			writeOutput(w, b.Tests)
		}
		return
	}
	for _, gr := range b.Gates {
		mark := "ok"
		if !gr.OK {
			mark = "FAIL: " + gr.Detail
		}
		fmt.Fprintf(w, "       gate %-8s %s\n", gr.Gate, mark)
	}
	for _, f := range b.Figures {
		fmt.Fprintf(w, "       %s\n", figureText(f))
	}
	if len(b.Figures) > 0 && b.Runs == 1 {
		fmt.Fprintf(w, "       (one run; `make boss%02d` takes the median of several)\n", int(u))
	}
	if verbose {
		writeOutput(w, b.Tests)
	}
}

// figureText renders "allocs/view 0   bar <= 0   met".
func figureText(f Figure) string {
	if !f.Found {
		return fmt.Sprintf("%-20s (not reported)   bar %s %g", f.Bar.Metric, f.Bar.Cmp, f.Bar.Value)
	}
	if f.Bar.Cmp == bosses.Info {
		return fmt.Sprintf("%-20s %-10.4g (reported, no bar)", f.Bar.Metric, f.Value)
	}
	verdict := "met"
	switch {
	case f.NotHere != "":
		verdict = "not measurable here (" + f.NotHere + ")"
	case f.ReportedOnly:
		verdict = "MISSED (a hardware bar: reported, not gated here)"
	case !f.Met:
		verdict = "MISSED"
	}
	if f.Bar.Value != 0 && f.NotHere == "" {
		verdict += fmt.Sprintf(", margin %+.0f%%", 100*f.Bar.Margin(f.Value))
	}
	return fmt.Sprintf("%-20s %-10.4g bar %s %-8g %s", f.Bar.Metric, f.Value, f.Bar.Cmp, f.Bar.Value, verdict)
}

// challengeDetail is the one-line reason shown beside a challenge's status.
func challengeDetail(c ChallengeResult) string {
	if r, ok := FirstProblem(c.Tests); ok {
		name := r.Name
		if r.Tags != "" {
			name += " (-tags " + r.Tags + ")"
		}
		d := name + ": " + r.Detail
		if r.Where != "" {
			d += " at " + r.Where
		}
		return d
	}
	if r, ok := FirstTodo(c.Tests); ok {
		d := todoText(r.Detail)
		if r.TodoID != "" && r.TodoID != c.ID {
			d = "needs " + r.TodoID + " first: " + d
		}
		if r.Where != "" {
			d += " (" + r.Where + ")"
		}
		if n := countStatus(c.Tests, Pass); n > 0 {
			d = fmt.Sprintf("%d of %d tests pass; %s", n, len(c.Tests), d)
		}
		return d
	}
	return ""
}

// todoText shortens "TODO(1.3): write Reshape, see docs/unit01.md" to "write Reshape".
func todoText(detail string) string {
	if i := strings.Index(detail, "): "); i >= 0 && strings.HasPrefix(detail, "TODO(") {
		detail = detail[i+3:]
	}
	if i := strings.LastIndex(detail, ", see docs/"); i >= 0 {
		detail = detail[:i]
	}
	return detail
}

func countStatus(rs []TestResult, s Status) int {
	n := 0
	for _, r := range rs {
		if r.Status == s {
			n++
		}
	}
	return n
}

func writeOutput(w io.Writer, rs []TestResult) {
	for _, r := range rs {
		if r.Status == Pass {
			continue
		}
		for _, l := range r.Output {
			fmt.Fprintf(w, "        | %s\n", l)
		}
	}
}

func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// NextStep says what the learner should do next, naming a command or a doc section.
func NextStep(r UnitResult) string {
	u := int(r.Unit)
	doc := fmt.Sprintf("docs/%s.md", r.Unit.Dir())
	if r.Build != nil {
		return fmt.Sprintf("fix the compile error above, then run `make unit%02d`", u)
	}
	var needGPU []string // what passes but for tests that need a GPU
	for _, c := range r.Challenges {
		switch {
		case c.Status == Pass:
			continue
		case c.Status == Skip && onlyNoGPU(c.Tests):
			needGPU = append(needGPU, c.ID)
			continue
		case c.Status == Todo:
			id, dir := c.ID, r.Unit.Dir()
			if t, ok := FirstTodo(c.Tests); ok && t.TodoID != "" {
				id = t.TodoID
				var tu int
				if _, err := fmt.Sscanf(id, "%d.", &tu); err == nil && tu != u {
					// The stub hit belongs to an earlier unit.
					dir = fmt.Sprintf("unit%02d", tu)
					return fmt.Sprintf("this needs %s first: read docs/%s.md § %s and fill in its TODOs in %s/, or grade on the reference with `make unit%02d DEPS=ref`", id, dir, id, dir, u)
				}
			}
			return fmt.Sprintf("read %s § %s, fill in its TODOs in %s/, then run `make unit%02d`", doc, id, dir, u)
		default:
			return fmt.Sprintf("`make unit%02d RUN=C%d_%s V=1` shows the whole failure; %s § %s explains the task, `make hint UNIT=%02d CH=%s` gives a nudge",
				u, u, strings.SplitN(c.ID, ".", 2)[1], doc, c.ID, u, c.ID)
		}
	}
	if r.Boss != nil && NeedsGPUOnly(*r.Boss) {
		needGPU = append(needGPU, "the boss")
	} else if r.Boss != nil && r.Boss.Status != Pass {
		return fmt.Sprintf("the boss: %s § Boss sets the bar, `make boss%02d V=1` measures it", doc, u)
	}
	if len(needGPU) > 0 {
		return fmt.Sprintf("all that runs here passes; %s also need an NVIDIA GPU (not measured here, never a pass): run `make unit%02d` on a machine with one", strings.Join(needGPU, " and "), u)
	}
	if len(r.Challenges) == 0 {
		return fmt.Sprintf("`make unit%02d` runs every challenge", u)
	}
	switch {
	case r.Next >= 0:
		return fmt.Sprintf("%s is done. On to %s: docs/%s.md", r.Unit.Dir(), r.Next.Dir(), r.Next.Dir())
	case u+1 < workbook.NumUnits:
		return fmt.Sprintf("%s is done, and so is every unit written so far.", r.Unit.Dir())
	}
	return "the course is done."
}

// Passed reports whether everything graded in r passed.
func Passed(r UnitResult) bool {
	if !r.Written || r.Build != nil {
		return false
	}
	for _, c := range r.Challenges {
		if c.Status != Pass {
			return false
		}
	}
	return r.Boss == nil || r.Boss.Status == Pass
}

// PassedHere reports whether r passed as far as this machine can tell:
// Passed, or every test and bar that did not pass was skipped for want of
// a GPU (unit15's device tests and GPU bars, SKIP and never PASS). The
// grader exits 0 then, and its lines still say SKIP.
func PassedHere(r UnitResult) bool {
	if Passed(r) {
		return true
	}
	if !r.Written || r.Build != nil {
		return false
	}
	for _, c := range r.Challenges {
		if c.Status != Pass && !(c.Status == Skip && onlyNoGPU(c.Tests)) {
			return false
		}
	}
	return r.Boss == nil || r.Boss.Status == Pass || NeedsGPUOnly(*r.Boss)
}

// AllTodo reports whether every challenge of every written unit is a stub:
// the starting line of a fresh clone.
func AllTodo(rs []UnitResult) bool {
	n := 0
	for _, r := range rs {
		if !r.Written {
			continue
		}
		if r.Build != nil {
			return false
		}
		for _, c := range r.Challenges {
			if c.Status != Todo {
				return false
			}
			n++
		}
	}
	return n > 0
}

// StartingLine is printed when every challenge is still a stub.
const StartingLine = `Every challenge is TODO: this is the starting line, not a failure.
Begin with docs/unit00.md (challenge 0.1), fill in unit00/close.go, then run ` + "`make unit00`."

// onlyNoGPU reports whether the tests that did not pass were all skipped
// for want of a GPU ("not measured: no GPU", unit15's line).
func onlyNoGPU(tests []TestResult) bool {
	skipped := false
	for _, t := range tests {
		switch {
		case t.Status == Pass:
		case t.Status == Skip && strings.Contains(t.Detail, "no GPU"):
			skipped = true
		default:
			return false
		}
	}
	return skipped
}

// NeedsGPUOnly reports whether a boss is SKIP only for bars that need a
// GPU, which CI never has: its other bars are all met.
func NeedsGPUOnly(b BossResult) bool {
	if b.Status != Skip {
		return false
	}
	for _, f := range b.Figures {
		if f.NotHere != "" && f.Bar.Needs != "gpu" {
			return false
		}
	}
	return true
}
