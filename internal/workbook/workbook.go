// Package workbook knows the layout of the Forge repository: where the units,
// their reference solutions and their docs live, and which files of a unit
// are the learner's, which are given, and which are tests.
package workbook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Module is the Go module path of the workbook.
const Module = "github.com/llmforge/forge"

// NumUnits is the number of units in the course, unit00 to unit15.
const NumUnits = 16

// Unit is a unit number, 0 to 15.
type Unit int

// Titles are the units' topics, as the course plan names them.
var Titles = [NumUnits]string{
	"tooling & test helpers",
	"tensor & arena",
	"math kernels",
	"GEMM, naive to SIMD",
	"tokenizers",
	"transformer",
	"mixture of experts",
	"KV cache",
	"flash attention",
	"quantization",
	"GGUF",
	"sampling & generation",
	"speculative decoding",
	"serving",
	"performance",
	"CUDA capstone",
}

// Dir is the unit's folder name, e.g. "unit03".
func (u Unit) Dir() string { return fmt.Sprintf("unit%02d", int(u)) }

// Title is the unit's topic.
func (u Unit) Title() string { return Titles[u] }

// ImportPath is the unit's learner package path.
func (u Unit) ImportPath() string { return Module + "/" + u.Dir() }

// String is the unit's folder name.
func (u Unit) String() string { return u.Dir() }

// ParseUnit accepts "3", "03" or "unit03".
func ParseUnit(s string) (Unit, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "unit"))
	if err != nil || n < 0 || n >= NumUnits {
		return 0, fmt.Errorf("unknown unit %q: want 00 to %02d (or unit00 to unit%02d)", s, NumUnits-1, NumUnits-1)
	}
	return Unit(n), nil
}

// All returns every unit of the course, written or not.
func All() []Unit {
	us := make([]Unit, NumUnits)
	for i := range us {
		us[i] = Unit(i)
	}
	return us
}

// Repo is a checkout of the workbook.
type Repo struct {
	Root string // absolute path of the folder holding go.mod
}

// FindRoot walks up from dir to the folder whose go.mod declares Module.
func FindRoot(dir string) (Repo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, err
	}
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module "+Module+"\n")) {
			return Repo{Root: d}, nil
		}
		if filepath.Dir(d) == d {
			return Repo{}, fmt.Errorf("no Forge checkout (a go.mod with module %s) in %s or above it", Module, dir)
		}
	}
}

// UnitDir is the absolute path of the learner's folder of u.
func (r Repo) UnitDir(u Unit) string { return filepath.Join(r.Root, u.Dir()) }

// SolutionDir is the absolute path of u's reference solution.
func (r Repo) SolutionDir(u Unit) string { return filepath.Join(r.Root, "solutions", u.Dir()) }

// DocPath is the absolute path of u's course text.
func (r Repo) DocPath(u Unit) string { return filepath.Join(r.Root, "docs", u.Dir()+".md") }

// Written reports whether u exists in this checkout (its folder is there).
func (r Repo) Written(u Unit) bool {
	fi, err := os.Stat(r.UnitDir(u))
	return err == nil && fi.IsDir()
}

// WrittenUnits returns the units that exist in this checkout, in order.
func (r Repo) WrittenUnits() []Unit {
	var us []Unit
	for _, u := range All() {
		if r.Written(u) {
			us = append(us, u)
		}
	}
	return us
}

// IsTest reports whether a file name is a Go test file.
func IsTest(name string) bool { return strings.HasSuffix(name, "_test.go") }

// IsSource reports whether a file name is compiled into a package: Go,
// assembly, or a header included by assembly.
func IsSource(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".s", ".h":
		return true
	}
	return false
}

// IsGiven reports whether a file is scaffolding that stays in unitNN/ in
// every swap: its name, without the extension and the _GOOS/_GOARCH
// suffixes, ends with "_given" (errors_given.go, cpu_given_amd64.go).
func IsGiven(name string) bool {
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	stem = strings.TrimSuffix(stem, "_test")
	parts := strings.Split(stem, "_")
	for len(parts) > 1 && (knownOS[parts[len(parts)-1]] || knownArch[parts[len(parts)-1]]) {
		parts = parts[:len(parts)-1]
	}
	stem = strings.Join(parts, "_")
	return strings.HasSuffix(stem, "_given")
}

// IsImpl reports whether a file is part of an implementation that a swap
// replaces: a non-test source file that is not given.
func IsImpl(name string) bool { return IsSource(name) && !IsTest(name) && !IsGiven(name) }

// ImplFiles lists the base names of the implementation files in dir.
func ImplFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && IsImpl(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "illumos": true,
	"ios": true, "js": true, "linux": true, "netbsd": true, "openbsd": true, "plan9": true,
	"solaris": true, "wasip1": true, "windows": true,
}

var knownArch = map[string]bool{
	"386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true, "mips": true,
	"mips64": true, "mips64le": true, "mipsle": true, "ppc64": true, "ppc64le": true,
	"riscv64": true, "s390x": true, "wasm": true,
}
