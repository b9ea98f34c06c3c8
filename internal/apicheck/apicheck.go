// Package apicheck checks, without compiling anything, that a reference
// solution declares exactly the API of the learner stub it stands in for.
//
// Solutions are swapped in place of a stub's files with go build -overlay, so
// a mismatch would otherwise surface as a compile error somewhere in the
// unit's tests. Instead, both packages are parsed and their top-level
// declarations compared as normalized text (see Decl): parameter names, field
// grouping, comments and layout do not matter; kinds, types and values do.
// Nothing is type-checked, so two spellings of one type or value (an alias
// and its target, 8 and 4*2) count as different.
package apicheck

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Decl is one top-level declaration in normalized, comparable form.
//
// Sig is the declaration printed on one line from its syntax tree, without
// comments and with canonical spacing, after these rewrites:
//
//   - func:   func[TP](P1, P2) (R1, R2): parameter and result names dropped,
//     one entry per parameter ("a, b int" becomes "int, int"), variadic
//     parameters kept as ...T, type parameters kept as written, one per name.
//   - method: (*T) func(P1) R, the receiver first with its name dropped; the
//     receiver's type parameters are renamed, by position, to those of the
//     type's declaration, as they are local to the method.
//   - type:   type Name[TP] Type or, for aliases, type Name[TP] = Type.
//   - const:  const Name Type = Expr with the type and expression in effect
//     after Go's implicit repetition in a parenthesized group, followed by
//     " [iota=N]" when Expr mentions iota. Expressions are compared as text,
//     not evaluated: B = iota at iota 1 differs from B = 1.
//   - var:    var Name Type = Expr with whichever of Type and Expr is
//     present; in var a, b = f() each name gets "= f() [value i of n]".
//
// In every type, field lists hold one name per field ("a, b int" in a struct
// becomes "a int; b int", struct tags kept), parameter and result names of
// function types are dropped, and function literals are left as written.
// Line breaks become "; " where Go would insert a semicolon and braces hug
// their contents, so any layout of a struct prints as, for example,
// "type Shape struct{rank int; dims [MaxRank]int}".
type Decl struct {
	Name     string // "Transpose" for funcs, "Tensor.Transpose" for methods (receiver base type name), "Shape" for types, consts and vars by name
	Kind     string // "func", "method", "type", "const", "var"
	Sig      string // normalized text, see above
	Exported bool   // the name is exported; for methods, the receiver's base type name too
	Pos      string // "view.go:40" (base file name:line) for messages
}

// Config is a build configuration under which a package's files are selected.
type Config struct {
	GOOS, GOARCH string
	Tags         []string // extra build tags, e.g. "forgedebug"
}

// String returns "GOOS/GOARCH" followed by the tags, if any, as in
// "windows/amd64 forgedebug".
func (c Config) String() string {
	s := c.GOOS + "/" + c.GOARCH
	if len(c.Tags) > 0 {
		s += " " + strings.Join(c.Tags, ",")
	}
	return s
}

// DefaultConfigs are linux/amd64, linux/arm64, darwin/arm64 and
// windows/amd64, each without tags and with the tag "forgedebug".
var DefaultConfigs = []Config{
	{GOOS: "linux", GOARCH: "amd64"},
	{GOOS: "linux", GOARCH: "amd64", Tags: []string{"forgedebug"}},
	{GOOS: "linux", GOARCH: "arm64"},
	{GOOS: "linux", GOARCH: "arm64", Tags: []string{"forgedebug"}},
	{GOOS: "darwin", GOARCH: "arm64"},
	{GOOS: "darwin", GOARCH: "arm64", Tags: []string{"forgedebug"}},
	{GOOS: "windows", GOARCH: "amd64"},
	{GOOS: "windows", GOARCH: "amd64", Tags: []string{"forgedebug"}},
}

// Load parses the non-test .go files of dir that build under cfg (by
// //go:build lines and _GOOS_GOARCH file name suffixes, with cgo off),
// skipping any file for which skip(baseName) is true (skip may be nil), and
// returns its top-level declarations keyed by Decl.Name.
//
// Declarations that can repeat or cannot be referred to, init functions and
// the blank identifier _, are left out. A name declared twice is an error
// naming both positions.
func Load(dir string, cfg Config, skip func(name string) bool) (map[string]Decl, error) {
	fset := token.NewFileSet()
	files, err := parseDir(fset, dir, cfg, skip)
	if err != nil {
		return nil, err
	}
	decls := make(map[string]Decl)
	for _, d := range collect(fset, files) {
		if old, ok := decls[d.Name]; ok {
			return nil, fmt.Errorf("apicheck: %s (%s): %s declared twice, at %s and %s", dir, cfg, d.Name, old.Pos, d.Pos)
		}
		decls[d.Name] = d
	}
	return decls, nil
}

// parseDir parses, in file name order, the files of dir that Load reads.
func parseDir(fset *token.FileSet, dir string, cfg Config, skip func(string) bool) ([]*ast.File, error) {
	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH = cfg.GOOS, cfg.GOARCH
	ctxt.BuildTags = cfg.Tags
	ctxt.CgoEnabled = false
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("apicheck: %w", err)
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || skip != nil && skip(name) {
			continue
		}
		// MatchFile also drops files whose names start with _ or ., as go build does.
		ok, err := ctxt.MatchFile(dir, name)
		if err != nil {
			return nil, fmt.Errorf("apicheck: %w", err)
		}
		if !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("apicheck: %w", err)
		}
		files = append(files, f)
	}
	return files, nil
}

// Compare reports how impl differs from stub, one human-readable line per
// difference, sorted. Every exported declaration of either side must exist
// on the other side with the same Kind and Sig. Every unexported declaration
// of stub must exist in impl with the same Kind and Sig, since tests in the
// package may use it; impl may add unexported declarations freely. The lines
// read:
//
//	missing in solution: method Tensor.Slice(int, int, int) (Tensor, error)   [stub view.go:40]
//	extra exported in solution: func Helper(int) int   [solution util.go:3]
//	differs: func Zeros: stub func(DType, Shape) (Tensor, error) [tensor.go:12], solution func(DType, ...int) Tensor [tensor.go:20]
func Compare(stub, impl map[string]Decl) []string {
	var diffs []string
	for name, s := range stub {
		i, ok := impl[name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("missing in solution: %s   [stub %s]", describe(s), s.Pos))
		case i.Kind != s.Kind || i.Sig != s.Sig:
			diffs = append(diffs, fmt.Sprintf("differs: %s %s: stub %s [%s], solution %s [%s]",
				s.Kind, name, s.Sig, s.Pos, i.Sig, i.Pos))
		}
	}
	for name, i := range impl {
		if _, ok := stub[name]; !ok && i.Exported {
			diffs = append(diffs, fmt.Sprintf("extra exported in solution: %s   [solution %s]", describe(i), i.Pos))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// describe renders d as its kind, name and signature, the way Go spells a
// function or method expression: "func Zeros(DType) Tensor",
// "method (*Tensor).Slice(int) Tensor", "type Shape struct{...}".
func describe(d Decl) string {
	switch d.Kind {
	case "func":
		return "func " + d.Name + strings.TrimPrefix(d.Sig, "func")
	case "method":
		// A receiver, T, *T, T[A] or *T[A], cannot contain ") func".
		recv, fn, ok := strings.Cut(d.Sig, ") func")
		if !ok {
			break
		}
		recv = strings.TrimPrefix(recv, "(")
		if strings.HasPrefix(recv, "*") {
			recv = "(" + recv + ")"
		}
		return "method " + recv + "." + d.Name[strings.LastIndex(d.Name, ".")+1:] + fn
	}
	if strings.HasPrefix(d.Sig, d.Kind+" ") {
		return d.Sig // types, consts and vars already start with kind and name
	}
	return d.Kind + " " + d.Name + " " + d.Sig
}

// CheckDirs runs Load on both dirs and Compare for each config, and returns
// the union of the differences, sorted by difference. A difference that does
// not appear under every config is prefixed with the configs it appears
// under, named as briefly as possible: by tag set ("[forgedebug] ",
// "[untagged] "), by platform, standing for all its configs
// ("[linux/arm64, darwin/arm64] "), or config by config
// ("[windows/amd64 forgedebug] ", "[linux/arm64 untagged] ").
func CheckDirs(stubDir, implDir string, skip func(name string) bool, configs []Config) ([]string, error) {
	var lines []string
	hits := make(map[string][]bool) // difference -> the configs it appears under
	for ci, cfg := range configs {
		stub, err := Load(stubDir, cfg, skip)
		if err != nil {
			return nil, err
		}
		impl, err := Load(implDir, cfg, skip)
		if err != nil {
			return nil, err
		}
		for _, d := range Compare(stub, impl) {
			if hits[d] == nil {
				hits[d] = make([]bool, len(configs))
				lines = append(lines, d)
			}
			hits[d][ci] = true
		}
	}
	// Sort by the difference itself so that one declaration's lines stay together.
	sort.Strings(lines)
	out := make([]string, len(lines))
	for i, d := range lines {
		out[i] = d
		if l := label(hits[d], configs); l != "" {
			out[i] = "[" + l + "] " + d
		}
	}
	return out, nil
}

// label names the configs for which hit is true: "" if that is all of them,
// else a list of platforms or of tag sets, whichever is shorter, in which a
// platform or tag set only partly hit is replaced by its hit configs.
func label(hit []bool, configs []Config) string {
	all := true
	for _, h := range hit {
		all = all && h
	}
	if all {
		return ""
	}
	byPlatform := group(hit, configs, platform)
	byTags := group(hit, configs, tags)
	if len(byTags) < len(byPlatform) {
		return byTags
	}
	return byPlatform
}

func platform(c Config) string { return c.GOOS + "/" + c.GOARCH }

func tags(c Config) string {
	if len(c.Tags) == 0 {
		return "untagged"
	}
	return strings.Join(c.Tags, ",")
}

// group lists the hit configs, in order, by key: a key all of whose configs
// are hit stands for them all; the others are listed config by config, as
// "platform tags", never as a bare platform, which would read as a key.
func group(hit []bool, configs []Config, key func(Config) string) string {
	full := make(map[string]bool)
	for i, c := range configs {
		k := key(c)
		if _, seen := full[k]; !seen {
			full[k] = true
		}
		full[k] = full[k] && hit[i]
	}
	var parts []string
	listed := make(map[string]bool)
	for i, c := range configs {
		switch k := key(c); {
		case !hit[i]:
		case !full[k]:
			parts = append(parts, platform(c)+" "+tags(c))
		case !listed[k]:
			parts = append(parts, k)
			listed[k] = true
		}
	}
	return strings.Join(parts, ", ")
}
