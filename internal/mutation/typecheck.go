package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// typeChecker type-checks a unit's package with one file swapped for a
// mutant's text, in-process: a mutant that cannot compile ("a" - "b",
// break outside a loop, an index -1) is found in milliseconds instead of
// a second of the go command. The dependencies come from their export
// data, built by `go list -export` under the same overlay and tags.
type typeChecker struct {
	fset    *token.FileSet
	imp     types.Importer
	pkgPath string
	names   []string             // the package's non-test files, given and solution
	files   map[string]*ast.File // parsed, by base name
}

// newTypeChecker prepares the unit's package as the reference overlay
// builds it with tags. It fails if the reference itself does not check.
func newTypeChecker(ctx context.Context, root, pkgDir, pkgPath, solDir, overlayPath, tags string) (*typeChecker, error) {
	exports, err := listExports(ctx, root, "./"+pkgDir, overlayPath, tags)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	tc := &typeChecker{
		fset:    fset,
		pkgPath: pkgPath,
		files:   map[string]*ast.File{},
		imp: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			f, ok := exports[path]
			if !ok || f == "" {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(f)
		}),
	}
	bctx := build.Default
	bctx.BuildTags = strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ' ' })
	add := func(dir, name string) error {
		if ok, err := bctx.MatchFile(dir, name); err != nil || !ok {
			return err
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		tc.names = append(tc.names, name)
		tc.files[name] = f
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(root, pkgDir))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && workbook.IsGiven(n) {
			if err := add(filepath.Join(root, pkgDir), n); err != nil {
				return nil, err
			}
		}
	}
	sol, err := os.ReadDir(solDir)
	if err != nil {
		return nil, err
	}
	for _, e := range sol {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !workbook.IsGiven(n) {
			if err := add(solDir, n); err != nil {
				return nil, err
			}
		}
	}
	if err := tc.check("", nil); err != nil {
		return nil, fmt.Errorf("the reference of %s does not type-check with tags %q: %v", pkgDir, tags, err)
	}
	return tc, nil
}

// check type-checks the package with file name holding src ("" for none
// replaced) and returns the first error.
func (tc *typeChecker) check(name string, src []byte) error {
	files := make([]*ast.File, 0, len(tc.names))
	for _, n := range tc.names {
		f := tc.files[n]
		if n == name {
			var err error
			if f, err = parser.ParseFile(tc.fset, n, src, parser.SkipObjectResolution); err != nil {
				return err
			}
		}
		files = append(files, f)
	}
	var first error
	conf := types.Config{Importer: tc.imp, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	conf.Check(tc.pkgPath, tc.fset, files, nil)
	return first
}

// has reports whether the checked file set holds a file.
func (tc *typeChecker) has(name string) bool { _, ok := tc.files[name]; return ok }

// listExports maps every dependency of pkg to its export data file.
func listExports(ctx context.Context, root, pkg, overlayPath, tags string) (map[string]string, error) {
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Export", "-tags", tags}
	if overlayPath != "" {
		args = append(args, "-overlay", overlayPath)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export %s: %v\n%s", pkg, err, strings.TrimSpace(stderr.String()))
	}
	m := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		m[p.ImportPath] = p.Export
	}
	return m, nil
}
