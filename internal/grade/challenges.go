package grade

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

var (
	challengeTestRE = regexp.MustCompile(`^TestC(\d+)_(\d+)_\w+$`)
	bossTestRE      = regexp.MustCompile(`^TestBoss(\d+)_\w+$`)
	bossBenchRE     = regexp.MustCompile(`^BenchmarkBoss(\d+)_\w+$`)
)

// Group is the tests of one challenge.
type Group struct {
	ID    string // "1.3"
	Minor int    // 3
	Tests []string
}

// Grouped is a unit's tests sorted into challenges and the boss.
type Grouped struct {
	Challenges []Group  // in challenge order
	BossTests  []string // TestBossN_*
	BossBench  []string // BenchmarkBossN_*
	Stray      []string // Test* names that follow neither convention
}

// GroupTests sorts test names by the naming convention of docs/CONTRIBUTING.md:
// TestCN_M_What belongs to challenge N.M, TestBossN_What and
// BenchmarkBossN_What to the boss. Names for another unit are stray.
func GroupTests(unit int, names []string) Grouped {
	var g Grouped
	byID := map[string]*Group{}
	for _, n := range names {
		switch {
		case challengeTestRE.MatchString(n):
			m := challengeTestRE.FindStringSubmatch(n)
			u, _ := strconv.Atoi(m[1])
			minor, _ := strconv.Atoi(m[2])
			if u != unit {
				g.Stray = append(g.Stray, n)
				continue
			}
			id := fmt.Sprintf("%d.%d", u, minor)
			if byID[id] == nil {
				byID[id] = &Group{ID: id, Minor: minor}
			}
			byID[id].Tests = append(byID[id].Tests, n)
		case bossTestRE.MatchString(n) && bossTestRE.FindStringSubmatch(n)[1] == strconv.Itoa(unit):
			g.BossTests = append(g.BossTests, n)
		case bossBenchRE.MatchString(n) && bossBenchRE.FindStringSubmatch(n)[1] == strconv.Itoa(unit):
			g.BossBench = append(g.BossBench, n)
		case strings.HasPrefix(n, "Test"):
			g.Stray = append(g.Stray, n)
		}
	}
	for _, grp := range byID {
		g.Challenges = append(g.Challenges, *grp)
	}
	sort.Slice(g.Challenges, func(i, j int) bool { return g.Challenges[i].Minor < g.Challenges[j].Minor })
	return g
}
