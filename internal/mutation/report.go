package mutation

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// Bar is the project's mutation score target, in percent.
const Bar = 90.0

// Counts tallies mutants by status.
type Counts struct {
	Killed       int `json:"killed"`
	Survived     int `json:"survived"` // not-covered included
	NotCovered   int `json:"not_covered"`
	Timeout      int `json:"timeout"`
	NotCompiling int `json:"not_compiling"`
	Equivalent   int `json:"equivalent"`
	NotRun       int `json:"not_run"`
}

func (c *Counts) add(s Status) {
	switch s {
	case Killed:
		c.Killed++
	case Survived:
		c.Survived++
	case NotCovered:
		c.Survived++
		c.NotCovered++
	case Timeout:
		c.Timeout++
	case NotCompiling:
		c.NotCompiling++
	case Equivalent:
		c.Equivalent++
	case NotRun:
		c.NotRun++
	}
}

// Scored is the score's denominator: killed, timed out and survived.
func (c Counts) Scored() int { return c.Killed + c.Timeout + c.Survived }

// Score is the percentage of scored mutants killed (timeouts count as
// killed); 100 when nothing was scored.
func (c Counts) Score() float64 {
	if c.Scored() == 0 {
		return 100
	}
	return 100 * float64(c.Killed+c.Timeout) / float64(c.Scored())
}

// Total counts every status.
func (r *UnitReport) Total() Counts {
	var c Counts
	for _, x := range r.Results {
		c.add(x.Status)
	}
	return c
}

// ByOperator counts per operator.
func (r *UnitReport) ByOperator() map[Operator]Counts {
	m := map[Operator]Counts{}
	for _, x := range r.Results {
		c := m[x.Mutant.Op]
		c.add(x.Status)
		m[x.Mutant.Op] = c
	}
	return m
}

// With returns the results with one of the statuses, sorted by file and line.
func (r *UnitReport) With(st ...Status) []Result {
	var out []Result
	for _, x := range r.Results {
		for _, s := range st {
			if x.Status == s {
				out = append(out, x)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Mutant, out[j].Mutant
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

// Render writes the report: counts per operator, the score, then each
// survivor and timeout with file:line.
func (r *UnitReport) Render(w io.Writer) {
	tot := r.Total()
	fmt.Fprintf(w, "%s: %d mutants in %v (the reference's tests: %v)\n", r.Unit, len(r.Results), r.Elapsed.Round(time.Second), r.RefTime.Round(10*time.Millisecond))
	fmt.Fprintf(w, "  %-24s %7s %9s %12s %8s %14s %11s\n", "operator", "killed", "survived", "not-covered", "timeout", "not-compiling", "equivalent")
	byOp := r.ByOperator()
	for _, op := range Operators {
		c, ok := byOp[op]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "  %-24s %7d %9d %12d %8d %14d %11d\n", op, c.Killed, c.Survived, c.NotCovered, c.Timeout, c.NotCompiling, c.Equivalent)
	}
	fmt.Fprintf(w, "  %-24s %7d %9d %12d %8d %14d %11d\n", "total", tot.Killed, tot.Survived, tot.NotCovered, tot.Timeout, tot.NotCompiling, tot.Equivalent)
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "  not graded here: %s\n", s)
	}
	for _, e := range r.Stale {
		fmt.Fprintf(w, "  stale triage entry (matches no mutant; delete or update it): %s line %d: %s %s %s: %s -> %s #%d\n",
			r.Unit.Dir()+".txt", e.Line, e.Key.File, e.Key.Func, e.Key.Op, e.Key.Orig, e.Key.Mut, e.Key.Occ)
	}
	for _, x := range r.With(Equivalent) {
		fmt.Fprintf(w, "  equivalent (triaged): %s: %s\n", x.Mutant, x.Detail)
	}
	if sv := r.With(Survived, NotCovered); len(sv) > 0 {
		fmt.Fprintf(w, "  survivors (%d):\n", len(sv))
		for _, x := range sv {
			note := ""
			if x.Status == NotCovered {
				note = " [not covered]"
			}
			fmt.Fprintf(w, "  %s%s\n", x.Mutant, note)
		}
	}
	if to := r.With(Timeout); len(to) > 0 {
		fmt.Fprintf(w, "  timeouts, counted as killed (%d):\n", len(to))
		for _, x := range to {
			fmt.Fprintf(w, "  %s\n", x.Mutant)
		}
	}
	fmt.Fprintf(w, "%s\n", r.ScoreLine())
}

// ScoreLine is the one-line verdict, e.g.
// "unit05 score: 85.8% (412 of 480 killed, 3 timeouts among them; 12 not compiling, 2 equivalent) below the 90% bar".
func (r *UnitReport) ScoreLine() string {
	c := r.Total()
	s := fmt.Sprintf("%s score: %.1f%% (%d of %d killed, %d timeouts among them; %d not compiling, %d equivalent)",
		r.Unit, c.Score(), c.Killed+c.Timeout, c.Scored(), c.Timeout, c.NotCompiling, c.Equivalent)
	if r.Sample > 0 {
		s += fmt.Sprintf(", sample of %d (seed %d)", r.Sample, r.Seed)
	}
	if r.TimedOut {
		s += fmt.Sprintf(", TIME BOX reached with %d not run", c.NotRun)
	}
	if c.Scored() == 0 {
		return s + ": no mutant graded, no score"
	}
	if c.Score() < Bar {
		s += fmt.Sprintf(": below the %.0f%% bar", Bar)
	} else {
		s += fmt.Sprintf(": meets the %.0f%% bar", Bar)
	}
	return s
}

// JSONReport is the machine-readable form of a unit's run (--json).
type JSONReport struct {
	Unit       string              `json:"unit"`
	Score      float64             `json:"score"`
	Counts     Counts              `json:"counts"`
	ByOperator map[Operator]Counts `json:"by_operator"`
	Sample     int                 `json:"sample,omitempty"`
	Seed       int64               `json:"seed,omitempty"`
	TimedOut   bool                `json:"timed_out,omitempty"`
	ElapsedS   float64             `json:"elapsed_s"`
	Skipped    []string            `json:"skipped_files,omitempty"`
	Stale      []TriageEntry       `json:"stale_triage,omitempty"`
	Mutants    []JSONMutant        `json:"mutants"`
}

// JSONMutant is one graded mutant in a JSONReport (not-run ones are left out).
type JSONMutant struct {
	File   string   `json:"file"`
	Line   int      `json:"line"`
	Func   string   `json:"func"`
	Op     Operator `json:"operator"`
	Orig   string   `json:"original"`
	Mut    string   `json:"mutated"`
	Occ    int      `json:"occurrence"`
	Status Status   `json:"status"`
	Detail string   `json:"detail,omitempty"`
	Triage string   `json:"triage_line,omitempty"` // for survivors: the line to add if it is equivalent
}

// JSON returns the report's machine-readable form.
func (r *UnitReport) JSON() JSONReport {
	j := JSONReport{
		Unit: r.Unit.Dir(), Score: r.Total().Score(), Counts: r.Total(), ByOperator: r.ByOperator(),
		Sample: r.Sample, Seed: r.Seed, TimedOut: r.TimedOut, ElapsedS: r.Elapsed.Seconds(),
		Skipped: r.Skipped, Stale: r.Stale, Mutants: []JSONMutant{},
	}
	for _, x := range r.Results {
		if x.Status == NotRun {
			continue
		}
		m := x.Mutant
		jm := JSONMutant{File: m.File, Line: m.Line, Func: m.Func, Op: m.Op, Orig: m.Orig, Mut: m.Mut, Occ: m.Occ, Status: x.Status, Detail: x.Detail}
		if x.Status == Survived || x.Status == NotCovered {
			jm.Triage = TriageLine(m, "REASON")
		}
		j.Mutants = append(j.Mutants, jm)
	}
	return j
}
