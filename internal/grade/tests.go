package grade

import (
	"context"
	"regexp"
	"strings"
)

// Status is the outcome of a test, a challenge or a boss.
type Status string

const (
	Pass    Status = "PASS"
	Fail    Status = "FAIL"    // an assertion failed
	Todo    Status = "TODO"    // a stub's TODO panic was hit
	Panic   Status = "PANIC"   // some other panic
	Timeout Status = "TIMEOUT" // the test ran past the time limit
	Skip    Status = "SKIP"    // skipped: never counts as a pass
	NotRun  Status = "NOT RUN"
	Build   Status = "BUILD" // the test binary did not compile
)

// TestResult is the outcome of one top-level test.
type TestResult struct {
	Name   string
	Status Status
	Detail string   // one line: the first failure, or the panic message
	TodoID string   // for Todo: the challenge id in "TODO(1.3)"
	Where  string   // for Todo and Panic: the first frame in the repository outside tests, "unit01/view.go:42"
	Output []string // every output line of the test and its subtests
	Tags   string   // build tags of the binary it ran in ("" or "forgedebug")
}

var (
	todoPanicRE = regexp.MustCompile(`^panic: (TODO\((\d+\.\d+)\): .*?)(?: \[recovered.*\])?$`)
	panicRE     = regexp.MustCompile(`^panic: (.*?)(?: \[recovered.*\])?$`)
	timeoutRE   = regexp.MustCompile(`^panic: test timed out after (\S+)`)
	failLineRE  = regexp.MustCompile(`^\s*([\w.-]+\.go:\d+: .*)$`)
	// budgetNoteRE matches the note oracle.AssertClose and AssertBound log
	// for a check that passed (tests always run verbose under the grader):
	// it is never the reason a test failed.
	budgetNoteRE = regexp.MustCompile(`: worst element used \S+ of its (budget|bound)$`)
	frameFileRE  = regexp.MustCompile(`^\t(.+\.(?:go|s)):(\d+)`)
)

// RunTests runs the named top-level tests of b and returns one result per
// name, in order. A panic or a timeout ends a test process; the tests it did
// not reach are run again in a fresh one, so one crash hides nothing.
func (r Runner) RunTests(ctx context.Context, b Binary, names []string, repoRoot string) ([]TestResult, error) {
	results := make(map[string]*TestResult, len(names))
	for _, n := range names {
		results[n] = &TestResult{Name: n, Status: NotRun}
	}
	pending := names
	for len(pending) > 0 {
		evs, err := r.run(ctx, b, "-test.run", exactRE(pending), "-test.count", "1")
		if err != nil {
			return nil, err
		}
		absorb(evs, results, repoRoot)
		var next []string
		progressed := false
		for _, n := range pending {
			if results[n].Status == NotRun {
				next = append(next, n)
			} else {
				progressed = true
			}
		}
		if !progressed {
			break // nothing ran at all: do not loop forever
		}
		pending = next
	}
	out := make([]TestResult, len(names))
	for i, n := range names {
		out[i] = *results[n]
	}
	return out, nil
}

// absorb folds one process's events into the results of the tests it ran.
func absorb(evs []event, results map[string]*TestResult, repoRoot string) {
	var last *TestResult // the test that started last: the one a crash belongs to
	var loose []string   // output not attributed to any test
	var cont *TestResult // the test whose first failure message may continue on the next line
	var indent int       // that message's indentation
	for _, e := range evs {
		top, _, _ := strings.Cut(e.Test, "/")
		res := results[top]
		if res == nil {
			if e.Action == "output" {
				loose = append(loose, splitLines(e.Output)...)
			}
			continue
		}
		switch e.Action {
		case "run":
			if e.Test == top {
				last = res
				res.Output = nil
			}
		case "output":
			for _, l := range splitLines(e.Output) {
				res.Output = append(res.Output, l)
				switch {
				case res.Detail == "":
					if m := failLineRE.FindStringSubmatch(l); m != nil && !budgetNoteRE.MatchString(l) {
						res.Detail = prefixSubtest(e.Test, top) + m[1]
						cont, indent = res, indentOf(l)
					}
				case cont == res && indentOf(l) > indent && !failLineRE.MatchString(l):
					// A multi-line message: its later lines are indented deeper.
					if len(res.Detail) < maxDetail {
						res.Detail += " " + strings.TrimSpace(l)
					}
				default:
					cont = nil
				}
			}
		case "pass", "fail", "skip":
			if e.Test == top {
				res.Status = map[string]Status{"pass": Pass, "fail": Fail, "skip": Skip}[e.Action]
			}
		}
	}
	if last != nil {
		last.Output = append(last.Output, loose...)
		classifyCrash(last, repoRoot)
	}
	for _, res := range results {
		if res.Status == Skip && res.Detail == "" {
			res.Detail = "skipped (a skipped test never counts as a pass)"
		}
		if res.Status == Fail && res.Detail == "" {
			res.Detail = "failed without a message"
		}
	}
}

// maxDetail bounds the one-line failure shown in the grade table.
const maxDetail = 300

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// prefixSubtest returns "Sub/Name: " for a subtest's output, "" for the test itself.
func prefixSubtest(test, top string) string {
	if test == top {
		return ""
	}
	return strings.TrimPrefix(test, top+"/") + ": "
}

// classifyCrash looks for a panic or a timeout in the output of the last test
// to start and marks that test with it.
func classifyCrash(last *TestResult, repoRoot string) {
	for i, l := range last.Output {
		if m := timeoutRE.FindStringSubmatch(l); m != nil {
			// Unit tests never run in parallel, so the last test to start
			// is the one that ran out of time.
			last.Status, last.Detail = Timeout, "timed out after "+m[1]
			return
		}
		if m := todoPanicRE.FindStringSubmatch(l); m != nil {
			last.Status, last.Detail, last.TodoID = Todo, m[1], m[2]
			last.Where = firstRepoFrame(last.Output[i:], repoRoot)
			return
		}
		if m := panicRE.FindStringSubmatch(l); m != nil {
			last.Status, last.Detail = Panic, "panic: "+m[1]
			last.Where = firstRepoFrame(last.Output[i:], repoRoot)
			return
		}
	}
	if last.Status == NotRun { // the process died without a word
		last.Status, last.Detail = Panic, "the test process exited during this test"
	}
}

// firstRepoFrame returns "dir/file.go:line" of the first stack frame inside
// the repository that is not a test file or a test helper: where the panic
// was raised in the code under test.
func firstRepoFrame(lines []string, repoRoot string) string {
	for _, l := range lines {
		m := frameFileRE.FindStringSubmatch(l)
		if m == nil || !strings.HasPrefix(m[1], repoRoot) {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(m[1], repoRoot), "/")
		if strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "oracle/") {
			continue
		}
		return rel + ":" + m[2]
	}
	return ""
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
