package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit11"
)

var evalCommand = &command{
	name:     "eval",
	synopsis: "-m MODEL.gguf (-p PROMPT | --tokens 1,2,3) [--top K] [--json]",
	summary:  "one forward pass over a prompt: the top logits at every position",
	setup:    setupEval,
	help: `
Row t of the output scores the token that follows the first t+1 tokens: the
token at position t, its text, and the K highest logits after it, highest
first (equal logits: lower id first). With --json, one JSON array:
  [{"pos": 0, "token": 1, "top": [[450, 12.3], [319, 11.9], ...]}, ...]
Use it to compare logits with another engine token by token.

Examples:
  llm eval -m model.gguf -p 'The capital of France is' --top 5
  llm eval -m model.gguf --tokens 1,450,7483 --json`,
}

type evalOptions struct {
	model, prompt  string
	tokens         []int
	top            int
	ctx, threads   int
	cache          cacheTypes
	json           bool
	noParseSpecial bool
}

func setupEval(fs *flagSet) func(*env) error {
	o := &evalOptions{top: 10, ctx: ctxUnset, threads: defaultThreads(), cache: defaultCache}
	fs.str(&o.model, "m,model", "FILE", "the model, a GGUF file")
	fs.str(&o.prompt, "p,prompt", "TEXT", "the prompt, tokenized as llm run does")
	fs.ints(&o.tokens, "tokens", "IDS", "the token ids instead of a prompt, comma-separated", atLeast(0))
	fs.integer(&o.top, "top", "K", "the logits shown per position, highest first (default 10)", atLeast(1))
	contextFlags(fs, &o.ctx, &o.threads)
	cacheFlags(fs, &o.cache)
	fs.boolean(&o.noParseSpecial, "no-parse-special", "treat special tokens written in the prompt as plain text")
	fs.boolean(&o.json, "json", "print a JSON array instead of a table")
	return func(e *env) error { return doEval(e, o) }
}

type evalRow struct {
	Pos   int     `json:"pos"`
	Token int     `json:"token"`
	Top   [][]any `json:"top"`
}

func doEval(e *env, o *evalOptions) error {
	if len(e.args) > 0 {
		return usagef("unexpected argument %q (the prompt goes after -p)", e.args[0])
	}
	switch {
	case e.given("p") && e.given("tokens"):
		return usagef("give -p PROMPT or --tokens IDS, not both")
	case !e.given("p") && !e.given("tokens"):
		return usagef("nothing to evaluate: give -p PROMPT or --tokens 1,2,3")
	}
	m, err := loadModel(e, o.model, o.ctx, o.threads, "-c", o.cache)
	if err != nil {
		return err
	}
	defer m.Close()
	ids := o.tokens
	if e.given("p") {
		ids = m.tok.Encode(o.prompt, unit04.EncodeOptions{AddSpecial: true, ParseSpecial: !o.noParseSpecial})
	}
	vocab := m.net.Config.Vocab
	for _, id := range ids {
		if id >= vocab {
			return usagef("token %d is outside the vocabulary of %d tokens", id, vocab)
		}
	}
	switch c := m.net.Config.MaxSeq; {
	case len(ids) == 0:
		return usagef("the prompt has no tokens")
	case len(ids) > c:
		return usagef("%d tokens, more than the context of %d: raise -c", len(ids), c)
	}
	logits := unit03.NewMat(len(ids), vocab)
	if err := m.net.Forward(logits, ids); err != nil {
		return err
	}
	v := modelVocab(m)
	k := min(o.top, vocab)
	top := make([]unit11.Candidate, 0, k)
	w := bufio.NewWriter(e.stdout)
	if o.json {
		rows := make([]evalRow, len(ids))
		for pos, id := range ids {
			top = unit11.TopK(top[:0], logits.Row(pos), k)
			rows[pos] = evalRow{Pos: pos, Token: id, Top: make([][]any, len(top))}
			for i, c := range top {
				rows[pos].Top[i] = []any{c.ID, c.Logit}
			}
		}
		if err := json.NewEncoder(w).Encode(rows); err != nil {
			return err
		}
		return w.Flush()
	}
	fmt.Fprintf(w, "%4s %7s  %-16s  top %d next tokens: id text logit\n", "pos", "token", "text", k)
	for pos, id := range ids {
		top = unit11.TopK(top[:0], logits.Row(pos), k)
		var b strings.Builder
		for i, c := range top {
			if i > 0 {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "%d %s %.4f", c.ID, quote(v.piece(c.ID)), c.Logit)
		}
		fmt.Fprintf(w, "%4d %7d  %-16s  %s\n", pos, id, quote(v.piece(id)), b.String())
	}
	return w.Flush()
}
