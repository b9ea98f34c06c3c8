package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmforge/forge/internal/docs"
	"github.com/llmforge/forge/internal/workbook"
)

// hintState is what the learner has been shown: challenge id → hints seen.
type hintState map[string]int

func cmdHint(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hint", flag.ContinueOnError)
	level := fs.Int("level", 0, "print hint N again (1 is the gentlest)")
	reset := fs.Bool("reset", false, "forget which hints of this challenge were shown")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("hint takes a unit and a challenge: forge hint 01 1.3 (make hint UNIT=01 CH=1.3)")
	}
	r, err := repo()
	if err != nil {
		return err
	}
	u, err := workbook.ParseUnit(pos[0])
	if err != nil {
		return usagef("%v", err)
	}
	id := pos[1]
	if !strings.Contains(id, ".") {
		id = fmt.Sprintf("%d.%s", int(u), id) // "3" means 1.3 in unit01
	}
	text, err := os.ReadFile(r.DocPath(u))
	if err != nil {
		return usagef("%s is not written yet (no %s)", u, r.DocPath(u))
	}
	c, ok := docs.Parse(string(text)).Challenge(id)
	if !ok {
		return usagef("docs/%s.md has no challenge %s", u.Dir(), id)
	}
	if len(c.Hints) == 0 {
		return fmt.Errorf("challenge %s has no hints", id)
	}
	statePath := filepath.Join(r.Root, ".forge", "hints.json")
	state := hintState{}
	if data, err := os.ReadFile(statePath); err == nil {
		json.Unmarshal(data, &state) // a damaged file just starts over
	}
	key := u.Dir() + "/" + id
	if *reset {
		delete(state, key)
		fmt.Printf("forgot the hints shown for %s; the next is hint 1\n", id)
		return saveHints(statePath, state)
	}
	n := *level
	if n == 0 {
		n = min(state[key]+1, len(c.Hints))
	}
	if n < 1 || n > len(c.Hints) {
		return usagef("challenge %s has hints 1 to %d", id, len(c.Hints))
	}
	h := c.Hints[n-1]
	summary := strings.TrimSpace(strings.TrimPrefix(h.Summary, fmt.Sprintf("Hint %d:", n)))
	fmt.Printf("%s %s: hint %d of %d: %s\n\n%s\n\n", id, c.Title, n, len(c.Hints), summary, h.Body)
	if n < len(c.Hints) {
		fmt.Printf("(`make hint UNIT=%02d CH=%s` again for hint %d)\n", int(u), id, n+1)
	} else {
		fmt.Printf("(that was the last hint; the Reference Solution part of docs/%s.md § %s explains the design once you are through)\n", u.Dir(), id)
	}
	state[key] = max(state[key], n)
	return saveHints(statePath, state)
}

func saveHints(path string, s hintState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(s, "", "  ")
	return os.WriteFile(path, data, 0o644)
}
