// Package ci runs everything `make test` checks, one step after another, and
// closes with one summary line: "make test: N passed, M failed".
package ci

import (
	"bytes"
	"context"
	"fmt"
	"go/build/constraint"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

// Step is one check.
type Step struct {
	Name string
	Run  func(ctx context.Context, e *Env) error
}

// Env is what the steps share.
type Env struct {
	Repo        workbook.Repo
	RefOverlay  string // overlay file selecting every reference solution
	Staticcheck string // path of the staticcheck binary
	Tmp         string
	out         *bytes.Buffer // the running step's output
	report      *bytes.Buffer // what the running step shows even when it passes
}

// Run runs steps in order, printing a line per step to w (and the output
// of failed steps), then the closing summary. It returns the number failed.
func Run(ctx context.Context, w io.Writer, e *Env, steps []Step) int {
	passed, failed := 0, 0
	start := time.Now()
	for _, s := range steps {
		e.out, e.report = &bytes.Buffer{}, &bytes.Buffer{}
		t0 := time.Now()
		fmt.Fprintf(w, "==> %s\n", s.Name)
		err := s.Run(ctx, e)
		took := time.Since(t0).Round(100 * time.Millisecond)
		if err != nil {
			failed++
			fmt.Fprintf(w, "    FAIL after %v: %v\n", took, err)
			for _, l := range tail(e.out.String(), 60) {
				fmt.Fprintf(w, "    | %s\n", l)
			}
			continue
		}
		passed++
		fmt.Fprintf(w, "    ok (%v)\n", took)
		for _, l := range strings.Split(strings.TrimRight(e.report.String(), "\n"), "\n") {
			if l != "" {
				fmt.Fprintf(w, "    | %s\n", l)
			}
		}
	}
	fmt.Fprintf(w, "\nmake test: %d passed, %d failed (%v)\n", passed, failed, time.Since(start).Round(time.Second))
	return failed
}

// Go runs a go command in the repository with extra environment variables,
// capturing its output in the step's log.
func (e *Env) Go(ctx context.Context, env []string, args ...string) error {
	return e.Cmd(ctx, env, "go", args...)
}

// Cmd runs a command in the repository root, logging its output.
func (e *Env) Cmd(ctx context.Context, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = e.Repo.Root
	cmd.Env = append(os.Environ(), env...)
	fmt.Fprintf(e.out, "$ %s %s %s\n", strings.Join(env, " "), name, strings.Join(args, " "))
	cmd.Stdout, cmd.Stderr = e.out, e.out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v", name, firstArgs(args), err)
	}
	return nil
}

// Reportf writes to the running step's report, which is shown whether
// the step passes or not (its log is shown only when it fails).
func (e *Env) Reportf(format string, args ...any) {
	if e.report == nil { // outside Run, as in a step's own test
		e.report = &bytes.Buffer{}
	}
	fmt.Fprintf(e.report, format, args...)
	e.Logf(format, args...)
}

// Logf writes to the running step's log.
func (e *Env) Logf(format string, args ...any) {
	if e.out == nil {
		e.out = &bytes.Buffer{}
	}
	fmt.Fprintf(e.out, format, args...)
}

// UnitPkgs returns "./unit00", "./unit01", … for the written units.
func (e *Env) UnitPkgs() []string {
	var pkgs []string
	for _, u := range e.Repo.WrittenUnits() {
		pkgs = append(pkgs, "./"+u.Dir())
	}
	return pkgs
}

// DebugPkgs lists unit00 and the written units whose reference solution
// mentions unit00.Assert or unit00.Debug: the packages the forgedebug tag
// changes.
func (e *Env) DebugPkgs() ([]string, error) {
	var pkgs []string
	for _, u := range e.Repo.WrittenUnits() {
		if u == 0 {
			pkgs = append(pkgs, "./"+u.Dir())
			continue
		}
		files, err := filepath.Glob(filepath.Join(e.Repo.SolutionDir(u), "*.go"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if bytes.Contains(src, []byte("unit00.Assert")) || bytes.Contains(src, []byte("unit00.Debug")) {
				pkgs = append(pkgs, "./"+u.Dir())
				break
			}
		}
	}
	return pkgs, nil
}

// ArchPkgs splits the written units in two: those with code of their own
// for some architectures or systems (an assembly file, or a Go file with a
// //go:build line, in the unit's folder or its solution's) and the rest,
// which are the same Go everywhere.
func (e *Env) ArchPkgs() (arch, portable []string, err error) {
	for _, u := range e.Repo.WrittenUnits() {
		specific := false
		for _, dir := range []string{e.Repo.UnitDir(u), e.Repo.SolutionDir(u)} {
			files, err := filepath.Glob(filepath.Join(dir, "*"))
			if err != nil {
				return nil, nil, err
			}
			for _, f := range files {
				if workbook.IsTest(filepath.Base(f)) {
					continue
				}
				switch filepath.Ext(f) {
				case ".s":
					specific = true
				case ".go":
					src, err := os.ReadFile(f)
					if err != nil {
						return nil, nil, err
					}
					if archSpecific(filepath.Base(f), src) {
						specific = true
					}
				}
			}
		}
		if specific {
			arch = append(arch, "./"+u.Dir())
		} else {
			portable = append(portable, "./"+u.Dir())
		}
	}
	return arch, portable, nil
}

// NewEnv prepares a temporary folder and the reference overlay.
func NewEnv(r workbook.Repo, staticcheck string) (*Env, error) {
	tmp, err := os.MkdirTemp("", "forge-ci-")
	if err != nil {
		return nil, err
	}
	ov, err := overlay.Build(r, overlay.Selection{Impl: overlay.Ref, Deps: overlay.Ref})
	if err != nil {
		return nil, err
	}
	path, err := ov.Write(tmp, "ref.json")
	if err != nil {
		return nil, err
	}
	if staticcheck == "" {
		staticcheck = filepath.Join(r.Root, ".tools", "bin", "staticcheck")
	}
	return &Env{Repo: r, RefOverlay: path, Staticcheck: staticcheck, Tmp: tmp}, nil
}

// Close removes the temporary folder.
func (e *Env) Close() error { return os.RemoveAll(e.Tmp) }

func tail(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… %d lines before", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return lines
}

func firstArgs(args []string) string {
	if len(args) > 3 {
		return strings.Join(args[:3], " ") + " …"
	}
	return strings.Join(args, " ")
}

// archTags are the build tags that choose code by architecture: the
// GOARCH values Forge builds for, and purego (the pure-Go fallbacks of
// the assembly).
var archTags = map[string]bool{"amd64": true, "arm64": true, "386": true, "arm": true, "purego": true}

// archSpecific reports whether a Go file is built for some architectures
// only: its name ends in _GOARCH, or its build line names an architecture
// or purego. A file built for some operating systems only (unit15's CUDA
// driver, Linux's) is not: the same Go runs on every architecture there.
func archSpecific(name string, src []byte) bool {
	stem := strings.TrimSuffix(name, ".go")
	for tag := range archTags {
		if strings.HasSuffix(stem, "_"+tag) {
			return true
		}
	}
	for _, line := range strings.Split(string(src), "\n") {
		if !constraint.IsGoBuild(line) {
			continue
		}
		expr, err := constraint.Parse(line)
		if err != nil {
			return true // a line the tools cannot read: test it everywhere
		}
		return namesArch(expr)
	}
	return false
}

// namesArch reports whether a build expression names an architecture tag
// anywhere in it.
func namesArch(x constraint.Expr) bool {
	switch x := x.(type) {
	case *constraint.TagExpr:
		return archTags[x.Tag]
	case *constraint.NotExpr:
		return namesArch(x.X)
	case *constraint.AndExpr:
		return namesArch(x.X) || namesArch(x.Y)
	case *constraint.OrExpr:
		return namesArch(x.X) || namesArch(x.Y)
	}
	return true
}
