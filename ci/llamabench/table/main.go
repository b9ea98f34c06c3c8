// Command table joins the JSON lines of `llm bench --json` and of
// ci/llamabench/bench.mjs into one Markdown table: per model, thread count
// and test, both engines' tokens per second (mean ± standard deviation) and
// Forge's speed as a fraction of llama.cpp's. run.sh calls it:
//
//	go run ./ci/llamabench/table FORGE.jsonl LLAMACPP.jsonl
//
// Lines that are not JSON objects are skipped. Rows follow the order of
// the first file; a test only one engine ran shows "—" for the other.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// result is one line of `llm bench --json`.
type result struct {
	Model     string  `json:"model"`
	Threads   int     `json:"threads"`
	Test      string  `json:"test"`
	NTokens   int     `json:"n_tokens"`
	TPS       float64 `json:"tps"`
	TPSStddev float64 `json:"tps_stddev"`
}

// key identifies a row; the model by its file name, so that the two
// engines may spell its path differently.
type key struct {
	model   string
	threads int
	test    string
}

func (r result) key() key { return key{filepath.Base(r.Model), r.Threads, r.Test} }

func read(path string) ([]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var r result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		rs = append(rs, r)
	}
	return rs, sc.Err()
}

func speed(r *result) string {
	if r == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f ± %.2f", r.TPS, r.TPSStddev)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("table: ")
	if len(os.Args) != 3 {
		log.Fatal("usage: table FORGE.jsonl LLAMACPP.jsonl")
	}
	forge, err := read(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	llama, err := read(os.Args[2])
	if err != nil {
		log.Fatal(err)
	}

	var order []key
	rows := map[key][2]*result{}
	add := func(rs []result, engine int) {
		for i := range rs {
			k := rs[i].key()
			row, seen := rows[k]
			if !seen {
				order = append(order, k)
			}
			row[engine] = &rs[i]
			rows[k] = row
		}
	}
	add(forge, 0)
	add(llama, 1)

	fmt.Println("| model | threads | test | Forge t/s | llama.cpp t/s | Forge/llama.cpp |")
	fmt.Println("|---|---:|---|---:|---:|---:|")
	for _, k := range order {
		f, l := rows[k][0], rows[k][1]
		ratio := "—"
		if f != nil && l != nil && l.TPS > 0 {
			ratio = fmt.Sprintf("%.2f", f.TPS/l.TPS)
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", k.model, k.threads, k.test, speed(f), speed(l), ratio)
	}
}
