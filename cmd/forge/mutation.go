package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/llmforge/forge/internal/mutation"
)

func cmdMutation(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	jobs := fs.Int("j", runtime.NumCPU(), "mutants graded at once")
	sample := fs.Int("sample", 0, "grade a deterministic sample of N mutants per unit (0: all)")
	seed := fs.Int64("seed", 1, "the seed that draws the sample")
	timebox := fs.Duration("timebox", 0, "stop launching mutants after this long, over all units (0: no limit)")
	jsonPath := fs.String("json", "", "also write the results as JSON to this file")
	long := fs.Bool("long", false, "run the tests without -test.short (the bosses' long checks too)")
	triage := fs.Bool("triage", false, "print the survivors as lines for ci/mutation/unitNN.txt (reason to fill in)")
	quiet := fs.Bool("q", false, "no progress notes on stderr")
	files := fs.String("files", "", "mutate only these files of the solution, comma-separated base names (new code, graded without the whole unit); no floors line")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *sample < 0 || *jobs < 1 {
		return usagef("--sample must be 0 or more and -j 1 or more")
	}
	r, err := repo()
	if err != nil {
		return err
	}
	units, err := parseUnits(r, pos)
	if err != nil {
		return err
	}
	var deadline time.Time
	if *timebox > 0 {
		deadline = time.Now().Add(*timebox)
	}
	var log io.Writer = os.Stderr
	if *quiet {
		log = nil
	}
	var reports []mutation.JSONReport
	var lines []string
	below := 0
	for _, u := range units {
		if !r.Written(u) {
			return usagef("%s is not written yet", u)
		}
		rep, err := mutation.Run(ctx, mutation.Options{
			Repo: r, Unit: u, Jobs: *jobs, Sample: *sample, Seed: *seed,
			Deadline: deadline, Long: *long, Log: log, OtherBuilds: true, Files: fileList(*files),
		})
		if err != nil {
			return err
		}
		rep.Render(os.Stdout)
		fmt.Println()
		if *triage {
			for _, x := range rep.With(mutation.Survived, mutation.NotCovered) {
				fmt.Println(mutation.TriageLine(x.Mutant, "REASON"))
			}
			fmt.Println()
		}
		if *sample == 0 && !rep.TimedOut && *files == "" {
			sampled, _ := rep.SampleScore(mutation.CISample, mutation.CISeed)
			c := rep.Total()
			fl := mutation.FloorLine{Unit: u, Floor: mutation.Floor(mutation.CISample, c.Score(), mutation.CIAlpha),
				Full: c.Score(), Date: time.Now().UTC().Format("2006-01-02"), Sample: sampled}
			fmt.Printf("floors line for this tree (ci/mutation/floors.txt; floors only go up):\n%s\n\n", fl)
		}
		reports = append(reports, rep.JSON())
		lines = append(lines, rep.ScoreLine())
		if rep.Total().Score() < mutation.Bar {
			below++
		}
	}
	if len(lines) > 1 {
		for _, l := range lines {
			fmt.Println(l)
		}
	}
	if *jsonPath != "" {
		data, err := json.MarshalIndent(reports, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonPath, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	if below > 0 {
		return errFailed
	}
	return nil
}

// fileList splits --files' comma-separated names; "" is none.
func fileList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
