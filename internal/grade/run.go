package grade

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Binary is a compiled test binary of one unit.
type Binary struct {
	Path  string // the executable
	Dir   string // the package folder, where it must run (for testdata/)
	Pkg   string // the package's import path
	Tags  string // build tags it was built with ("" or "forgedebug")
	Short bool   // run with -test.short
	// Overlay is the overlay file it was built with ("" for none). The
	// binary runs with it in FORGE_OVERLAY, so that a test that builds
	// more of the engine (unit14's boss builds llm) builds it from the
	// same units.
	Overlay string
}

// Compile builds the test binary of the package in pkgDir (relative to root)
// with the overlay file (may be "") and extra build flags. On a compile error
// it returns the compiler's output, trimmed, as the error text.
func Compile(ctx context.Context, root, pkgDir, overlayPath, out string, flags ...string) (Binary, error) {
	args := []string{"test", "-c", "-o", out}
	if overlayPath != "" {
		args = append(args, "-overlay", overlayPath)
	}
	args = append(args, flags...)
	args = append(args, "./"+filepath.ToSlash(pkgDir))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	output, err := cmd.CombinedOutput()
	if err != nil {
		return Binary{}, &BuildError{Output: strings.TrimSpace(string(output))}
	}
	if _, err := os.Stat(out); err != nil {
		return Binary{}, &BuildError{Output: "go test -c wrote no binary (no test files in " + pkgDir + "?)"}
	}
	b := Binary{Path: out, Dir: filepath.Join(root, pkgDir), Pkg: "github.com/llmforge/forge/" + filepath.ToSlash(pkgDir), Overlay: overlayPath}
	for i, f := range flags {
		if f == "-tags" && i+1 < len(flags) {
			b.Tags = flags[i+1]
		}
	}
	return b, nil
}

// BuildError is a failure to compile a test binary.
type BuildError struct {
	Output string
}

func (e *BuildError) Error() string { return e.Output }

// FirstLines returns the first n lines of the compiler output that point at
// code ("file.go:12:3: ..."), or the first n lines if none do.
func (e *BuildError) FirstLines(n int) []string {
	var code, all []string
	for _, l := range strings.Split(e.Output, "\n") {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		all = append(all, l)
		if codeLineRE.MatchString(l) {
			code = append(code, strings.TrimSpace(l))
		}
	}
	if len(code) == 0 {
		code = all
	}
	return code[:min(n, len(code))]
}

var codeLineRE = regexp.MustCompile(`\.(go|s):\d+(:\d+)?: `)

// List returns the names of the tests and benchmarks in a binary.
func List(ctx context.Context, b Binary) ([]string, error) {
	cmd := exec.CommandContext(ctx, b.Path, "-test.list", ".")
	cmd.Dir = b.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %v", b.Pkg, err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "ok ") {
			names = append(names, l)
		}
	}
	return names, nil
}

// event is one line of test2json output.
type event struct {
	Action string
	Test   string
	Output string
}

// Runner runs test binaries through test2json.
type Runner struct {
	Test2JSON string        // path of the test2json tool (`go tool -n test2json`)
	Timeout   time.Duration // per process
}

// FindTest2JSON returns the path of the go toolchain's test2json.
func FindTest2JSON(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "tool", "-n", "test2json").Output()
	if err != nil {
		return "", fmt.Errorf("locating `go tool test2json`: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// run executes the binary with args under test2json and returns its events
// and whether the process ended abnormally (a panic, a timeout, a failure).
func (r Runner) run(ctx context.Context, b Binary, args ...string) ([]event, error) {
	full := append([]string{"-t", "-p", b.Pkg, b.Path, "-test.v=test2json"}, args...)
	if b.Short {
		full = append(full, "-test.short")
	}
	if r.Timeout > 0 {
		full = append(full, "-test.timeout", r.Timeout.String())
	}
	cmd := exec.CommandContext(ctx, r.Test2JSON, full...)
	cmd.Dir = b.Dir
	if b.Overlay != "" {
		cmd.Env = append(os.Environ(), "FORGE_OVERLAY="+b.Overlay)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var evs []event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			evs = append(evs, e)
		}
	}
	if stderr.Len() > 0 {
		evs = append(evs, event{Action: "output", Output: stderr.String()})
	}
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return evs, fmt.Errorf("running %s: %v", filepath.Base(b.Path), runErr)
	}
	return evs, nil
}

// exactRE is a -test.run pattern matching exactly the given top-level tests.
func exactRE(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}
