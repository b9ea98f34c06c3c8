package overlay

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmforge/forge/internal/workbook"
)

// ParseDeps reads a dependency choice beyond mine, ref and a folder:
//
//	ref:03,04   units 03 and 04 from the reference, every other one yours
//	auto        each unit yours where its tests pass, else the reference
//
// It returns the Deps value the rest falls back to and the explicit picks
// (nil for auto, which Auto resolves); ok is false for any other form.
func ParseDeps(deps string) (base string, pick map[workbook.Unit]string, auto, ok bool, err error) {
	if deps == "auto" {
		return Mine, nil, true, true, nil
	}
	list, found := strings.CutPrefix(deps, Ref+":")
	if !found {
		return "", nil, false, false, nil
	}
	pick = map[workbook.Unit]string{}
	for _, f := range strings.Split(list, ",") {
		u, err := workbook.ParseUnit(strings.TrimSpace(f))
		if err != nil {
			return "", nil, false, true, fmt.Errorf("DEPS=%s: %v (want e.g. ref:03,04)", deps, err)
		}
		pick[u] = Ref
	}
	return Mine, pick, false, true, nil
}

// Auto picks, for every written unit below the highest of s.Units (every
// written unit when s.Units is empty) that is not itself under test, the
// learner's implementation if its own tests pass on top of the picks made
// for the units before it, and the reference otherwise. Go's test cache
// makes a second call with unchanged files quick. Each choice and its
// reason is written to log, one line per unit.
func Auto(ctx context.Context, r workbook.Repo, s Selection, log io.Writer) (map[workbook.Unit]string, error) {
	// Units import only earlier units, so those below the highest unit
	// under test are all that matter.
	limit := workbook.Unit(workbook.NumUnits)
	if len(s.Units) > 0 {
		limit = slices.Max(s.Units)
	}
	pick := map[workbook.Unit]string{}
	tmp, err := os.MkdirTemp("", "forge-auto-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, u := range r.WrittenUnits() {
		if u >= limit {
			break
		}
		if underTest(s, u) {
			continue
		}
		ok, why, err := passes(ctx, r, pick, u, tmp)
		if err != nil {
			return nil, err
		}
		pick[u] = Ref
		if ok {
			pick[u] = Mine
		}
		fmt.Fprintf(log, "deps auto: %s %-4s (%s)\n", u, pick[u], why)
	}
	return pick, nil
}

func underTest(s Selection, u workbook.Unit) bool {
	for _, t := range s.Units {
		if t == u {
			return true
		}
	}
	return false
}

// passes runs unit u's tests on the learner's files, with the units below
// it as picked so far.
func passes(ctx context.Context, r workbook.Repo, pick map[workbook.Unit]string, u workbook.Unit, tmp string) (bool, string, error) {
	ov, err := Build(r, Selection{Units: []workbook.Unit{u}, Impl: Mine, Deps: Mine, Pick: pick})
	if err != nil {
		return false, "", err
	}
	path, err := ov.Write(tmp, "overlay-"+strconv.Itoa(int(u))+".json")
	if err != nil {
		return false, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-overlay", path, "-timeout", "9m", "./"+u.Dir())
	cmd.Dir = r.Root
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return false, "its tests ran past 10 minutes", nil
	}
	if err == nil {
		return true, "your tests pass", nil
	}
	if strings.Contains(string(out), "TODO(") {
		return false, "a stub is still TODO", nil
	}
	if strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "[setup failed]") {
		return false, "it does not compile", nil
	}
	return false, "a test fails: make " + u.Dir() + " says which", nil
}
