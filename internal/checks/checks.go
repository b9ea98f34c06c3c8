// Package checks holds the workbook's structural checks, the ones `make
// test` runs besides the tests themselves: every solution offers exactly its
// stub's API, imports respect the layering, stubs are stubs, and the docs
// follow their format and match the tests. Each check returns one line per
// problem; none means it passed.
package checks

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/apicheck"
	"github.com/llmforge/forge/internal/docs"
	"github.com/llmforge/forge/internal/workbook"
)

// API checks that each solutions/unitNN declares the API of unitNN under
// every build configuration, so that every swap compiles.
func API(r workbook.Repo) []string {
	var probs []string
	for _, u := range r.WrittenUnits() {
		if _, err := os.Stat(r.SolutionDir(u)); err != nil {
			probs = append(probs, fmt.Sprintf("%s: no reference solution in solutions/%s", u, u.Dir()))
			continue
		}
		diffs, err := apicheck.CheckDirs(r.UnitDir(u), r.SolutionDir(u), workbook.IsGiven, apicheck.DefaultConfigs)
		if err != nil {
			probs = append(probs, fmt.Sprintf("%s: %v", u, err))
		}
		for _, d := range diffs {
			probs = append(probs, fmt.Sprintf("%s: %s", u, d))
		}
	}
	return probs
}

var unitImportRE = regexp.MustCompile(`^` + regexp.QuoteMeta(workbook.Module) + `/unit(\d\d)$`)

// Imports checks the layering: no solution imports oracle/ (docs/CONTRIBUTING.md),
// and no unit's implementation imports the oracle, the solutions, the
// tooling, or a unit that comes after it.
func Imports(r workbook.Repo) []string {
	var probs []string
	for _, u := range r.WrittenUnits() {
		for _, dir := range []string{r.UnitDir(u), r.SolutionDir(u)} {
			files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
			for _, f := range files {
				isTest := workbook.IsTest(filepath.Base(f))
				for _, imp := range importsOf(f) {
					rel, _ := filepath.Rel(r.Root, f)
					if why := forbidden(u, imp, isTest); why != "" {
						probs = append(probs, fmt.Sprintf("%s imports %s: %s", rel, imp, why))
					}
				}
			}
		}
	}
	return probs
}

// testkitBase is the latest unit each testkit package imports: only the
// tests of later units may use it.
var testkitBase = map[string]int{"testmat": 3, "testmodel": 5}

// forbidden says why unit u's file may not import imp ("" if it may).
func forbidden(u workbook.Unit, imp string, isTest bool) string {
	m := workbook.Module
	switch {
	case isTest && (imp == m+"/oracle" || imp == m+"/bosses"):
		return ""
	case isTest && strings.HasPrefix(imp, m+"/testkit/"):
		// Test helpers shared by units, each built on an earlier unit.
		name := strings.TrimPrefix(imp, m+"/testkit/")
		base, ok := testkitBase[name]
		switch {
		case !ok:
			return "not a testkit package this check knows (add it to testkitBase)"
		case base >= int(u):
			return fmt.Sprintf("testkit/%s is built on unit%02d, which is not earlier than %s", name, base, u)
		}
		return ""
	case imp == m+"/oracle":
		return "only tests may use the oracle"
	case strings.HasPrefix(imp, m+"/testkit/"):
		return "only tests may use the testkit"
	case strings.HasPrefix(imp, m+"/solutions"):
		return "units import each other by their learner paths, never solutions/"
	case imp == m+"/internal/cuda" || imp == m+"/internal/cuda/kernels":
		// The CUDA driver binding and the kernels' PTX are a library the
		// GPU unit stands on, not tooling: only unit15 uses them.
		if u < 15 {
			return "only unit15, the CUDA capstone, drives a GPU"
		}
		return ""
	case strings.HasPrefix(imp, m+"/internal") || strings.HasPrefix(imp, m+"/cmd") || imp == m+"/bosses":
		return "unit code does not depend on the tooling"
	}
	if sm := unitImportRE.FindStringSubmatch(imp); sm != nil {
		if n, _ := strconv.Atoi(sm[1]); n >= int(u) {
			return fmt.Sprintf("a unit may only import earlier units, and unit%02d is not earlier than %s", n, u)
		}
	}
	return ""
}

func importsOf(path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		out = append(out, p)
	}
	return out
}

var todoRE = regexp.MustCompile(`^TODO\((\d+)\.(\d+)\): \S.*, see docs/unit(\d\d)\.md$`)

// Stubs checks that in every unitNN/ implementation file (not given, not a
// test) each function body is a single panic("TODO(N.M): what to build, see
// docs/unitNN.md") naming one of the unit's challenges, and that every
// challenge of the docs has at least one TODO.
func Stubs(r workbook.Repo) []string {
	var probs []string
	for _, u := range r.WrittenUnits() {
		ids := map[string]bool{}
		doc := readDoc(r, u)
		if len(doc.Challenges) == 0 {
			probs = append(probs, fmt.Sprintf("%s: docs/%s.md lists no challenges, so the TODO ids cannot be checked", u, u.Dir()))
			continue
		}
		for _, c := range doc.Challenges {
			ids[c.ID] = false
		}
		names, _ := workbook.ImplFiles(r.UnitDir(u))
		for _, n := range names {
			if filepath.Ext(n) != ".go" {
				probs = append(probs, fmt.Sprintf("%s/%s: a stub folder holds Go stubs only (assembly belongs to the solution)", u, n))
				continue
			}
			probs = append(probs, stubFile(r, u, filepath.Join(r.UnitDir(u), n), ids)...)
		}
		var missing []string
		for id, seen := range ids {
			if !seen {
				missing = append(missing, id)
			}
		}
		sort.Strings(missing)
		for _, id := range missing {
			probs = append(probs, fmt.Sprintf("%s: challenge %s of the docs has no TODO stub", u, id))
		}
	}
	return probs
}

// stubFile checks one stub file and marks the challenges its TODOs name.
func stubFile(r workbook.Repo, u workbook.Unit, path string, ids map[string]bool) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return []string{err.Error()}
	}
	var probs []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		pos := fset.Position(fn.Pos())
		rel, _ := filepath.Rel(r.Root, pos.Filename)
		where := fmt.Sprintf("%s:%d: %s", rel, pos.Line, fn.Name.Name)
		msg, ok := todoPanic(fn.Body)
		if !ok {
			probs = append(probs, where+": a stub body must be exactly panic(\"TODO(N.M): what to build, see docs/unitNN.md\")")
			continue
		}
		m := todoRE.FindStringSubmatch(msg)
		if m == nil || m[1] != strconv.Itoa(int(u)) || m[3] != fmt.Sprintf("%02d", int(u)) {
			probs = append(probs, fmt.Sprintf("%s: TODO message %q must read \"TODO(%d.M): what to build, see docs/%s.md\"", where, msg, int(u), u.Dir()))
			continue
		}
		id := m[1] + "." + m[2]
		if _, known := ids[id]; !known {
			probs = append(probs, fmt.Sprintf("%s: TODO(%s) names a challenge that docs/%s.md does not have", where, id, u.Dir()))
			continue
		}
		ids[id] = true
	}
	return probs
}

// todoPanic returns the message of a body that is exactly panic("...").
func todoPanic(body *ast.BlockStmt) (string, bool) {
	if len(body.List) != 1 {
		return "", false
	}
	es, ok := body.List[0].(*ast.ExprStmt)
	if !ok {
		return "", false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return "", false
	}
	if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "panic" {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func readDoc(r workbook.Repo, u workbook.Unit) docs.Doc {
	text, err := os.ReadFile(r.DocPath(u))
	if err != nil {
		return docs.Doc{}
	}
	return docs.Parse(string(text))
}

var testFuncRE = regexp.MustCompile(`(?m)^func (Test(?:C(\d+)_(\d+)|Boss(\d+))_\w+)\(|^func (Benchmark(?:Boss(\d+))_\w+)\(`)

// Docs checks docs/unitNN.md against its format (docs.Lint) and against the
// unit: the same challenges as the tests, a boss test and benchmark when the
// unit has a boss, and a line for the unit in docs/README.md.
func Docs(r workbook.Repo) []string {
	var probs []string
	index, err := os.ReadFile(filepath.Join(r.Root, "docs", "README.md"))
	if err != nil {
		probs = append(probs, "docs/README.md is missing: it is the course's table of contents")
	}
	for _, u := range r.WrittenUnits() {
		name := "docs/" + u.Dir() + ".md"
		text, err := os.ReadFile(r.DocPath(u))
		if err != nil {
			probs = append(probs, name+" is missing")
			continue
		}
		doc := docs.Parse(string(text))
		probs = append(probs, docs.Lint(name, int(u), doc)...)
		if !strings.Contains(string(index), u.Dir()+".md") {
			probs = append(probs, fmt.Sprintf("docs/README.md does not link %s", name))
		}
		probs = append(probs, matchTests(r, u, doc)...)
	}
	return probs
}

// matchTests compares the docs' challenges with the unit's test names.
func matchTests(r workbook.Repo, u workbook.Unit, doc docs.Doc) []string {
	tested := map[string]bool{}
	bossTest, bossBench := false, false
	files, _ := filepath.Glob(filepath.Join(r.UnitDir(u), "*_test.go"))
	var probs []string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, m := range testFuncRE.FindAllStringSubmatch(string(data), -1) {
			switch {
			case m[2] != "":
				if m[2] != strconv.Itoa(int(u)) {
					probs = append(probs, fmt.Sprintf("%s: %s is named for unit %s", filepath.Base(f), m[1], m[2]))
				}
				tested[m[2]+"."+m[3]] = true
			case m[4] != "":
				bossTest = true
			case m[6] != "":
				bossBench = true
			}
		}
	}
	for _, c := range doc.Challenges {
		if !tested[c.ID] {
			probs = append(probs, fmt.Sprintf("%s: challenge %s has no TestC%s_* test", u, c.ID, strings.Replace(c.ID, ".", "_", 1)))
		}
		delete(tested, c.ID)
	}
	for id := range tested {
		probs = append(probs, fmt.Sprintf("%s: tests exist for challenge %s, which docs/%s.md does not have", u, id, u.Dir()))
	}
	if b, ok := bosses.For(int(u)); ok {
		if !bossBench {
			probs = append(probs, fmt.Sprintf("%s: the boss has no %s", u, b.BenchName()))
		}
		if !bossTest && len(b.Bars) > 0 {
			probs = append(probs, fmt.Sprintf("%s: the boss has no %s (its correctness conditions)", u, b.TestName()))
		}
	}
	sort.Strings(probs)
	return probs
}
