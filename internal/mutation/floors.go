package mutation

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// FloorLine is one unit's line of ci/mutation/floors.txt:
//
//	unit05  72.0  85.3  2026-11-25  83.3
//
// the floor (%) that the CI sample must reach, the last full run's score
// (%) and its date, and the CI sample's own score on that tree (%).
type FloorLine struct {
	Unit   workbook.Unit
	Floor  float64
	Full   float64
	Date   string
	Sample float64
	Line   int
}

// String formats the line as floors.txt holds it.
func (f FloorLine) String() string {
	return fmt.Sprintf("%s\t%.1f\t%.1f\t%s\t%.1f", f.Unit.Dir(), f.Floor, f.Full, f.Date, f.Sample)
}

// FloorsFile is where the floors live.
func FloorsFile(r workbook.Repo) string {
	return filepath.Join(r.Root, "ci", "mutation", "floors.txt")
}

// LoadFloors reads floors.txt.
func LoadFloors(path string) (map[workbook.Unit]FloorLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseFloors(path, data)
}

// ParseFloors reads floors.txt's text; name is for error messages.
func ParseFloors(name string, data []byte) (map[workbook.Unit]FloorLine, error) {
	out := map[workbook.Unit]FloorLine{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 fields (unit, floor %%, full-run score %%, its date, CI sample score %%), got %d", name, n, len(f))
		}
		u, err := workbook.ParseUnit(f[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		var nums [3]float64
		for i, s := range []string{f[1], f[2], f[4]} {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || v < 0 || v > 100 {
				return nil, fmt.Errorf("%s:%d: %q is not a percentage", name, n, s)
			}
			nums[i] = v
		}
		if _, dup := out[u]; dup {
			return nil, fmt.Errorf("%s:%d: a second line for %s", name, n, u)
		}
		if nums[0] > nums[1] {
			return nil, fmt.Errorf("%s:%d: the floor %.1f is above the full-run score %.1f", name, n, nums[0], nums[1])
		}
		out[u] = FloorLine{Unit: u, Floor: nums[0], Full: nums[1], Date: f[3], Sample: nums[2], Line: n}
	}
	return out, sc.Err()
}

// SampleScore is the score that the CI's sample (n mutants, seed) would
// get, worked out from a full run's results without running anything: the
// first n scored mutants in the sample's order.
func (r *UnitReport) SampleScore(n int, seed int64) (float64, int) {
	var c Counts
	for _, i := range candidates(r.Results, n, seed) {
		st := r.Results[i].Status
		if st == NotCompiling || st == NotRun {
			continue
		}
		if c.Scored() == n {
			break
		}
		c.add(st)
	}
	return c.Score(), c.Scored()
}

// Gate checks a unit's CI sample against its floors line and returns why
// it fails ("" when it passes).
func Gate(sampled float64, f FloorLine) string {
	switch {
	case sampled < f.Floor:
		return fmt.Sprintf("the sampled score %.1f%% is under the floor %.1f%% (ci/mutation/floors.txt)", sampled, f.Floor)
	case sampled < f.Sample-CIDrop:
		return fmt.Sprintf("the sampled score %.1f%% is more than %d points under the %.1f%% this same sample scored when the floor was set: the tests lost ground", sampled, CIDrop, f.Sample)
	}
	return ""
}
