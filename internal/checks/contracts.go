package checks

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// Contracts checks that a learner can pass every error test from the
// stubs' doc comments: wherever a unit's test expects a sentinel error
// (errors.Is(err, ErrX), require.ErrorIs(t, err, ErrX), assert.ErrorIs)
// from a call of one of the unit's functions or methods, that function's
// doc comment in the stub must name the sentinel. The call is the one
// whose result the test last assigned to err before the check, in the
// same function; checks on errors of helpers, closures or other packages
// are not followed.
func Contracts(r workbook.Repo) []string {
	var probs []string
	for _, u := range r.WrittenUnits() {
		docs, err := stubDocs(r.UnitDir(u))
		if err != nil {
			probs = append(probs, err.Error())
			continue
		}
		tests, _ := filepath.Glob(filepath.Join(r.UnitDir(u), "*_test.go"))
		seen := map[string]bool{}
		for _, path := range tests {
			for _, e := range expectations(path) {
				if _, ok := docs[e.fn]; !ok || names(docs, e.fn, e.sentinel) {
					continue
				}
				key := e.fn + "|" + e.sentinel
				if seen[key] {
					continue
				}
				seen[key] = true
				rel, _ := filepath.Rel(r.Root, path)
				probs = append(probs, fmt.Sprintf("%s: %s's doc comment does not name %s, which %s:%d expects of it: a learner must be able to pass the test from the stub's doc alone",
					u, e.fn, e.sentinel, rel, e.line))
			}
		}
	}
	sort.Strings(probs)
	return probs
}

// names reports whether fn's doc comment names sentinel, itself or
// through another function of the unit it refers to ("Errors as
// DequantizeRow's"), one reference deep.
func names(docs map[string]string, fn, sentinel string) bool {
	doc := docs[fn]
	if strings.Contains(doc, sentinel) {
		return true
	}
	for other, odoc := range docs {
		if other != fn && len(other) > 1 && strings.Contains(doc, other) && strings.Contains(odoc, sentinel) {
			return true
		}
	}
	return false
}

// stubDocs maps each function and method of a unit's own (non-test) files
// to its doc comment; a method is keyed by its name alone, as a call
// site sees it.
func stubDocs(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
				docs[fd.Name.Name] += fd.Doc.Text()
			}
		}
	}
	return docs, nil
}

// expectation is one sentinel a test expects of a function's error.
type expectation struct {
	fn, sentinel string
	line         int
}

// expectations finds, in one test file, each error check against a
// sentinel and the function whose result was last assigned to the error
// variable it checks.
func expectations(path string) []expectation {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil
	}
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		name := strings.Trim(imp.Path.Value, `"`)
		name = name[strings.LastIndex(name, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imported[name] = true
	}
	var out []expectation
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		lastCall := map[string]string{} // error variable → callee of its last assignment
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				name := "" // any other assignment: the error is no longer known to be the unit's
				if len(n.Rhs) == 1 {
					name = callee(n.Rhs[0], imported)
				}
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						lastCall[id.Name] = name
					}
				}
			case *ast.CallExpr:
				v, sentinel, ok := errorCheck(n)
				if ok && lastCall[v] != "" {
					out = append(out, expectation{fn: lastCall[v], sentinel: sentinel, line: fset.Position(n.Pos()).Line})
				}
			}
			return true
		})
	}
	return out
}

// callee is the name of the unit's function or method an expression
// calls; "" for anything else, such as a call into an imported package.
func callee(e ast.Expr, imported map[string]bool) string {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return ""
	}
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok && imported[x.Name] {
			return ""
		}
		return fn.Sel.Name
	}
	return ""
}

// errorCheck recognises errors.Is(v, X), require.ErrorIs(t, v, X) and
// assert.ErrorIs(t, v, X) with X a sentinel (a name starting "Err", bare
// or qualified) and returns v's name and the sentinel's.
func errorCheck(call *ast.CallExpr) (v, sentinel string, ok bool) {
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	if !isSel {
		return "", "", false
	}
	pkg, _ := sel.X.(*ast.Ident)
	var args []ast.Expr
	switch {
	case pkg != nil && pkg.Name == "errors" && sel.Sel.Name == "Is" && len(call.Args) == 2:
		args = call.Args
	case pkg != nil && (pkg.Name == "require" || pkg.Name == "assert") && sel.Sel.Name == "ErrorIs" && len(call.Args) >= 3:
		args = call.Args[1:3]
	default:
		return "", "", false
	}
	id, isIdent := args[0].(*ast.Ident)
	if !isIdent {
		return "", "", false
	}
	switch s := args[1].(type) {
	case *ast.Ident:
		sentinel = s.Name
	case *ast.SelectorExpr:
		sentinel = s.Sel.Name
	}
	if !strings.HasPrefix(sentinel, "Err") {
		return "", "", false
	}
	return id.Name, sentinel, true
}
