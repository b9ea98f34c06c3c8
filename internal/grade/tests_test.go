package grade

import (
	"strings"
	"testing"
)

// ev builds a test2json event.
func ev(action, test, output string) event { return event{Action: action, Test: test, Output: output} }

func TestAbsorb(t *testing.T) {
	const root = "/repo"
	evs := []event{
		ev("run", "TestA", ""),
		ev("output", "TestA", "=== RUN   TestA\n"),
		ev("run", "TestA/sub", ""),
		ev("output", "TestA/sub", "    a_test.go:10: got 2, want 3\n"),
		ev("output", "TestA/sub", "        (check the stride)\n"),
		ev("output", "TestA/sub", "    a_test.go:11: second failure\n"),
		ev("fail", "TestA/sub", ""),
		ev("fail", "TestA", ""),
		ev("run", "TestB", ""),
		ev("pass", "TestB", ""),
		ev("run", "TestS", ""),
		ev("skip", "TestS", ""),
		ev("run", "TestC", ""),
		ev("output", "TestC", "--- FAIL: TestC (0.00s)\n"),
		ev("output", "TestC", "panic: TODO(1.3): write Reshape, see docs/unit01.md [recovered, repanicked]\n"),
		ev("output", "TestC", "goroutine 7 [running]:\n"),
		ev("output", "TestC", "github.com/llmforge/forge/unit01.Tensor.Reshape(...)\n"),
		ev("output", "TestC", "\t/repo/unit01/view.go:12 +0x25\n"),
		ev("fail", "TestC", ""),
	}
	res := map[string]*TestResult{}
	for _, n := range []string{"TestA", "TestB", "TestS", "TestC", "TestD"} {
		res[n] = &TestResult{Name: n, Status: NotRun}
	}
	absorb(evs, res, root)
	want := map[string]struct {
		st     Status
		detail string
	}{
		"TestA": {Fail, "sub: a_test.go:10: got 2, want 3 (check the stride)"},
		"TestB": {Pass, ""},
		"TestS": {Skip, "skipped (a skipped test never counts as a pass)"},
		"TestC": {Todo, "TODO(1.3): write Reshape, see docs/unit01.md"},
		"TestD": {NotRun, ""},
	}
	for n, w := range want {
		if res[n].Status != w.st || res[n].Detail != w.detail {
			t.Errorf("%s: status %s detail %q, want %s %q", n, res[n].Status, res[n].Detail, w.st, w.detail)
		}
	}
	if res["TestC"].TodoID != "1.3" || res["TestC"].Where != "unit01/view.go:12" {
		t.Errorf("TestC: TodoID %q Where %q, want 1.3 and unit01/view.go:12", res["TestC"].TodoID, res["TestC"].Where)
	}
}

func TestAbsorbCrashes(t *testing.T) {
	tests := []struct {
		name   string
		lines  []string
		status Status
		detail string
		where  string
	}{
		{"runtime panic", []string{
			"panic: runtime error: index out of range [3] with length 3 [recovered]",
			"goroutine 5 [running]:",
			"testing.tRunner.func1.2({0x1, 0x2})",
			"\t/usr/local/go/src/testing/testing.go:1974 +0x232",
			"github.com/llmforge/forge/unit01.Tensor.At(...)",
			"\t/repo/unit01/tensor_test.go:40 +0x1",
			"\t/repo/oracle/panic.go:30 +0x1",
			"\t/repo/unit01/tensor.go:88 +0x1",
		}, Panic, "panic: runtime error: index out of range [3] with length 3", "unit01/tensor.go:88"},
		{"timeout", []string{
			"panic: test timed out after 2m0s",
			"\trunning tests:",
			"\t\tTestX (2m0s)",
		}, Timeout, "timed out after 2m0s", ""},
		{"silent exit", []string{"exit status 3"}, Panic, "the test process exited during this test", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := []event{ev("run", "TestX", "")}
			for _, l := range tc.lines {
				evs = append(evs, ev("output", "", l+"\n"))
			}
			res := map[string]*TestResult{"TestX": {Name: "TestX", Status: NotRun}}
			absorb(evs, res, "/repo")
			r := res["TestX"]
			if r.Status != tc.status || r.Detail != tc.detail || r.Where != tc.where {
				t.Errorf("got %s %q at %q, want %s %q at %q", r.Status, r.Detail, r.Where, tc.status, tc.detail, tc.where)
			}
		})
	}
}

func TestGroupTests(t *testing.T) {
	g := GroupTests(1, []string{
		"TestC1_2_Arena", "TestC1_10_Late", "TestC1_1_Shape", "TestC1_2_Full",
		"TestBoss1_ZeroCopy", "BenchmarkBoss1_ZeroCopy", "TestC2_1_Wrong", "TestHelper", "BenchmarkOther", "ExampleX",
	})
	var ids []string
	for _, c := range g.Challenges {
		ids = append(ids, c.ID+":"+strings.Join(c.Tests, ","))
	}
	if got, want := strings.Join(ids, " "), "1.1:TestC1_1_Shape 1.2:TestC1_2_Arena,TestC1_2_Full 1.10:TestC1_10_Late"; got != want {
		t.Errorf("challenges %q, want %q (numeric order of the minor number)", got, want)
	}
	if strings.Join(g.BossTests, ",") != "TestBoss1_ZeroCopy" || strings.Join(g.BossBench, ",") != "BenchmarkBoss1_ZeroCopy" {
		t.Errorf("boss tests %v benches %v", g.BossTests, g.BossBench)
	}
	if strings.Join(g.Stray, ",") != "TestC2_1_Wrong,TestHelper" {
		t.Errorf("stray %v, want the test named for unit 2 and the unconventional one", g.Stray)
	}
}

func TestMerge(t *testing.T) {
	r := func(s ...Status) []TestResult {
		var out []TestResult
		for _, x := range s {
			out = append(out, TestResult{Status: x})
		}
		return out
	}
	tests := []struct {
		in   []TestResult
		want Status
	}{
		{r(Pass, Pass), Pass},
		{r(Pass, Todo, NotRun), Todo},
		{r(Todo, Fail), Fail},
		{r(Pass, Skip), Skip},
		{r(Skip, Fail), Fail}, // a GPU test's SKIP hides no failure
		{r(Skip, Todo, Timeout), Timeout},
		{r(Skip, Todo), Skip},
		{r(Todo, Panic), Panic},
		{nil, NotRun},
	}
	for _, tc := range tests {
		if got := Merge(tc.in); got != tc.want {
			t.Errorf("Merge(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseBench(t *testing.T) {
	evs := []event{
		ev("output", "", "goos: linux\n"),
		ev("output", "BenchmarkBoss1_X", "BenchmarkBoss1_X\n"),
		ev("output", "BenchmarkBoss1_X", "BenchmarkBoss1_X-2   \t       1\t  4324039 ns/op\t         0 allocs/view\t       131.3 ns/view\n"),
		ev("output", "", "BenchmarkBoss1_X-2   \t       1\t  4000000 ns/op\t         2 allocs/view\t       100 ns/view\n"),
		ev("output", "", "BenchmarkBoss1_XY-2 \t 1\t 5 ns/op\t 9 allocs/view\n"),
	}
	figs := ParseBench(evs, "BenchmarkBoss1_X")
	if got := figs["allocs/view"]; len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Errorf("allocs/view = %v, want [0 2] (one per run; other benchmarks ignored)", got)
	}
	if got := figs["ns/view"]; len(got) != 2 || got[0] != 131.3 {
		t.Errorf("ns/view = %v", got)
	}
}

func TestTodoText(t *testing.T) {
	if got := todoText("TODO(1.3): write Reshape, see docs/unit01.md"); got != "write Reshape" {
		t.Errorf("todoText = %q", got)
	}
	if got := todoText("something else"); got != "something else" {
		t.Errorf("todoText of a plain message = %q", got)
	}
}
