package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/llmforge/forge/unit04"
)

var tokenizeCommand = &command{
	name:     "tokenize",
	synopsis: "-m MODEL.gguf [--no-bos] [--json] TEXT",
	summary:  "text → token ids with a model's vocabulary",
	setup:    setupTokenize,
	help: `
Prints one token per line: its id, a tab, and its text in Go quotes (so
spaces and broken UTF-8 show); a control token such as <s> shows its name.
With --json, a JSON array of ids. The text is tokenized as llm run
tokenizes a prompt: BOS (and EOS) as the vocabulary asks, unless --no-bos;
special tokens written in the text recognised, unless --no-parse-special.
Only the vocabulary is read, so a vocabulary-only GGUF file works too.

Examples:
  llm tokenize -m model.gguf 'Hello, world!'
  llm tokenize -m unit04/testdata/ggml-vocab-phi-3.gguf --json 'Hello'`,
}

type tokenizeOptions struct {
	model, prompt  string
	noBOS, json    bool
	noParseSpecial bool
}

func setupTokenize(fs *flagSet) func(*env) error {
	o := &tokenizeOptions{}
	fs.str(&o.model, "m,model", "FILE", "the model (or any GGUF file with a vocabulary)")
	fs.str(&o.prompt, "p,prompt", "TEXT", "the text, instead of the argument")
	fs.boolean(&o.noBOS, "no-bos", "add no BOS (nor EOS) token")
	fs.boolean(&o.noParseSpecial, "no-parse-special", "treat special tokens written in the text as plain text")
	fs.boolean(&o.json, "json", "print a JSON array of ids")
	return func(e *env) error { return doTokenize(e, o) }
}

func doTokenize(e *env, o *tokenizeOptions) error {
	text := o.prompt
	switch {
	case e.given("p") && len(e.args) > 0:
		return usagef("give the text after -p or as the argument, not both")
	case len(e.args) > 1:
		return usagef("give the text as one argument (quote it), got %d", len(e.args))
	case len(e.args) == 1:
		text = e.args[0]
	case !e.given("p"):
		return usagef("no text: llm tokenize -m MODEL.gguf TEXT")
	}
	v, err := loadVocab(o.model)
	if err != nil {
		return err
	}
	ids := v.Encode(text, unit04.EncodeOptions{AddSpecial: !o.noBOS, ParseSpecial: !o.noParseSpecial})
	w := bufio.NewWriter(e.stdout)
	if o.json {
		if ids == nil {
			ids = []int{}
		}
		if err := json.NewEncoder(w).Encode(ids); err != nil {
			return err
		}
		return w.Flush()
	}
	for _, id := range ids {
		fmt.Fprintf(w, "%d\t%s\n", id, quote(v.piece(id)))
	}
	return w.Flush()
}

var detokenizeCommand = &command{
	name:     "detokenize",
	synopsis: "-m MODEL.gguf [--json] IDS...",
	summary:  "token ids → text with a model's vocabulary",
	setup:    setupDetokenize,
	help: `
The ids come as arguments, separated by spaces or commas; brackets are
ignored, so llm tokenize --json's output can be pasted back. Prints the
text and a newline, or with --json the text as a JSON string.

Examples:
  llm detokenize -m model.gguf 15496 11 995
  llm detokenize -m model.gguf '[15496, 11, 995]'`,
}

type detokenizeOptions struct {
	model string
	json  bool
}

func setupDetokenize(fs *flagSet) func(*env) error {
	o := &detokenizeOptions{}
	fs.str(&o.model, "m,model", "FILE", "the model (or any GGUF file with a vocabulary)")
	fs.boolean(&o.json, "json", "print the text as a JSON string")
	return func(e *env) error { return doDetokenize(e, o) }
}

// parseIDs reads token ids separated by spaces or commas, in brackets or not.
func parseIDs(args []string) ([]int, error) {
	var ids []int
	for _, a := range args {
		fields := strings.FieldsFunc(a, func(r rune) bool {
			return r == ',' || r == '[' || r == ']' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
		})
		for _, f := range fields {
			id, err := strconv.Atoi(f)
			if err != nil || id < 0 {
				return nil, usagef("%q is not a token id (want integers ≥ 0, e.g. 1 2 3 or 1,2,3)", f)
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func doDetokenize(e *env, o *detokenizeOptions) error {
	ids, err := parseIDs(e.args)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return usagef("no token ids: llm detokenize -m MODEL.gguf 1 2 3 (or 1,2,3)")
	}
	v, err := loadVocab(o.model)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id >= v.VocabSize() {
			return usagef("token %d is outside the vocabulary of %d tokens", id, v.VocabSize())
		}
	}
	text := v.Decode(ids)
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(text)
	}
	_, err = fmt.Fprintln(e.stdout, text)
	return err
}
