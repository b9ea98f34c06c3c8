package checks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/llmforge/forge/internal/workbook"
)

func TestForbidden(t *testing.T) {
	m := workbook.Module
	tests := []struct {
		unit   workbook.Unit
		imp    string
		isTest bool
		ok     bool
	}{
		{1, m + "/unit00", false, true},
		{1, m + "/unit01", false, false},
		{1, m + "/unit02", false, false},
		{1, m + "/oracle", false, false},
		{1, m + "/oracle", true, true},
		{1, m + "/bosses", true, true},
		{1, m + "/bosses", false, false},
		{3, m + "/solutions/unit02", false, false},
		{3, m + "/internal/grade", true, false},
		{3, "fmt", false, true},
		{3, "golang.org/x/sys/cpu", false, true},
		{4, m + "/testkit/testmat", true, true},
		{3, m + "/testkit/testmat", true, false}, // built on unit03
		{6, m + "/testkit/testmodel", true, true},
		{5, m + "/testkit/testmodel", true, false}, // built on unit05
		{8, m + "/testkit/testmat", false, false},  // tests only
		{8, m + "/testkit/other", true, false},
		{15, m + "/internal/cuda", false, true},
		{15, m + "/internal/cuda/kernels", true, true},
		{14, m + "/internal/cuda", false, false},
		{15, m + "/internal/gpu", false, false},
	}
	for _, tc := range tests {
		if got := forbidden(tc.unit, tc.imp, tc.isTest) == ""; got != tc.ok {
			t.Errorf("unit%02d importing %s (test %v): allowed %v, want %v", int(tc.unit), tc.imp, tc.isTest, got, tc.ok)
		}
	}
}

func TestTodoPanic(t *testing.T) {
	tests := []struct {
		body string
		msg  string
		ok   bool
	}{
		{`panic("TODO(1.3): write Reshape, see docs/unit01.md")`, "TODO(1.3): write Reshape, see docs/unit01.md", true},
		{`panic("x"); return`, "", false},
		{`return 1`, "", false},
		{`panic(fmt.Sprint("TODO"))`, "", false},
		{`println("TODO(1.1): x, see docs/unit01.md")`, "", false},
	}
	for _, tc := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\nfunc f() {"+tc.body+"}", 0)
		if err != nil {
			t.Fatal(err)
		}
		msg, ok := todoPanic(f.Decls[0].(*ast.FuncDecl).Body)
		if ok != tc.ok || msg != tc.msg {
			t.Errorf("todoPanic({%s}) = %q, %v; want %q, %v", tc.body, msg, ok, tc.msg, tc.ok)
		}
	}
	for msg, ok := range map[string]bool{
		"TODO(1.3): write Reshape, see docs/unit01.md": true,
		"TODO(1.3): see docs/unit01.md":                false,
		"TODO(1.3): write Reshape":                     false,
		"TODO: write Reshape, see docs/unit01.md":      false,
	} {
		if got := todoRE.MatchString(msg); got != ok {
			t.Errorf("todoRE on %q = %v, want %v", msg, got, ok)
		}
	}
}
