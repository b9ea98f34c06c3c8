// Command genmodels writes unit10's conformance models (unit10.ConformanceSpecs
// and the mixtures of experts of unit10.ConformanceMoESpecs)
// into a folder, for record.mjs to run through llama.cpp; and the long-context
// ones (unit10.ConformanceLongSpecs), each with a NAME.long.json beside it that
// holds the token ids to teacher-force and the positions whose logits to record. It builds against
// unit10, so run it on the reference solutions:
//
//	go run -overlay "$(go run ./cmd/forge overlay --impl ref)" ./ci/ggufref/genmodels -o /tmp/models
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/llmforge/forge/unit10"
)

func main() {
	out := flag.String("o", "models", "folder to write the models into")
	vocab := flag.String("vocab", "unit04/testdata", "folder of the vocabulary GGUF files")
	flag.Parse()
	specs, err := unit10.ConformanceSpecs(*vocab)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	moe, err := unit10.ConformanceMoESpecs(*vocab)
	if err != nil {
		log.Fatal(err)
	}
	specs = append(specs, moe...)
	long, err := unit10.ConformanceLongSpecs(*vocab)
	if err != nil {
		log.Fatal(err)
	}
	for i, s := range append(specs, long...) {
		path := filepath.Join(*out, s.Name+".gguf")
		sum, err := write(path, s)
		if err != nil {
			log.Fatalf("%s: %v", s.Name, err)
		}
		fmt.Printf("%s  %s\n", sum, path)
		if i >= len(specs) {
			if err := writeLong(filepath.Join(*out, s.Name+".long.json"), s); err != nil {
				log.Fatalf("%s: %v", s.Name, err)
			}
		}
	}
}

// writeLong writes what record.mjs teacher-forces a long-context model on.
func writeLong(path string, s unit10.ModelSpec) error {
	n := unit10.ConformanceLongTokens
	data, err := json.Marshal(struct {
		Context   int   `json:"context"`
		Tokens    []int `json:"tokens"`
		Positions []int `json:"positions"`
	}{s.Config.MaxSeq, unit10.ConformanceLongPrompt(s.Vocab, n), unit10.ConformanceLongPositions(n)})
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// write generates one model into path and returns its SHA-256.
func write(path string, s unit10.ModelSpec) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	w := bufio.NewWriter(io.MultiWriter(f, h))
	if err := unit10.Generate(w, s); err != nil {
		f.Close()
		return "", err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), f.Close()
}
