// Command genmodels writes unit10's conformance models (unit10.ConformanceSpecs)
// into a folder, for record.mjs to run through llama.cpp. It builds against
// unit10, so run it on the reference solutions:
//
//	go run -overlay "$(go run ./cmd/forge overlay --impl ref)" ./ci/ggufref/genmodels -o /tmp/models
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
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
	for _, s := range specs {
		path := filepath.Join(*out, s.Name+".gguf")
		sum, err := write(path, s)
		if err != nil {
			log.Fatalf("%s: %v", s.Name, err)
		}
		fmt.Printf("%s  %s\n", sum, path)
	}
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
