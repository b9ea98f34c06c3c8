// Command llm is the Forge inference engine's command line. It is built
// from whichever implementation of the units is selected (make engine
// IMPL=...), so a learner's engine grows with the course; make engine
// builds it from the reference solutions.
//
// Usage:
//
//	llm run -m MODEL.gguf -p PROMPT [flags]   generate text, streamed
//	llm eval -m MODEL.gguf -p PROMPT          the top logits at every position
//	llm tokenize -m MODEL.gguf TEXT           text → token ids
//	llm detokenize -m MODEL.gguf IDS...       token ids → text
//	llm inspect MODEL.gguf                    metadata and tensor table
//	llm gen --shape tiny -o FILE              a seeded synthetic model
//	llm quantize IN.gguf OUT.gguf TYPE        rewrite with quantized weights
//	llm bench -m MODEL.gguf                   prompt and generation speed
//	llm version
//	llm help [COMMAND]
//
// docs/engine.md is the user guide. Flags follow llama.cpp's tools.
// Exit status: 0 on success, 2 for a usage error or bad input (a flag, a
// value, a model file), 1 for a failure after a good start, 130 when
// Ctrl-C interrupted generation.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/llmforge/forge/internal/cuda"
)

// version is set at release time with -ldflags "-X main.version=...".
var version = "dev"

// A command is one of llm's subcommands.
type command struct {
	name     string
	synopsis string // what follows "llm NAME" in the usage line
	summary  string // one line for llm's command list
	help     string // the rest of llm help NAME, after the flags
	// setup declares the command's flags on fs and returns the action,
	// which runs once they are parsed.
	setup func(fs *flagSet) func(e *env) error
}

// commands are llm's commands, in the order llm help lists them.
var commands = []*command{runCommand, evalCommand, tokenizeCommand, detokenizeCommand,
	inspectCommand, genCommand, quantizeCommand, benchCommand, serveCommand}

// planned are the commands the course adds later, with the unit that brings each.
var planned = []struct{ name, unit, what string }{}

// env is what a command runs with.
type env struct {
	ctx      context.Context
	stdout   io.Writer
	stderr   io.Writer
	progress *progress // progress lines on stderr, shown only on a terminal
	args     []string  // the positional arguments
	flags    *flagSet
	temps    *tempSet // temporary files to remove if Ctrl-C interrupts a write
}

// given reports whether the flag called name was on the command line.
func (e *env) given(name string) bool { return e.flags.given(name) }

// exitError is an error with its exit status: 2 for usage errors and bad
// input, 1 for failures; 130 (interrupted) carries no message.
type exitError struct {
	status int
	msg    string
}

func (e *exitError) Error() string { return e.msg }

// usagef is a usage error or bad input: exit status 2.
func usagef(format string, args ...any) error {
	return &exitError{status: 2, msg: fmt.Sprintf(format, args...)}
}

// badInput marks err, from reading a file the user named, as bad input.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{status: 2, msg: err.Error()}
}

// interrupted is the status of a command that Ctrl-C stopped.
var interrupted = &exitError{status: 130}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run with a context that cancels generation (run and bench
// also cancel on Ctrl-C).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	switch args[0] {
	case "version", "--version", "-v":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "llm version: takes no arguments, got %q\n", args[1:])
			return 2
		}
		fmt.Fprintf(stdout, "llm %s (%s, %s/%s)%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH, revision())
		return 0
	case "help", "-h", "--help":
		if len(args) > 2 {
			fmt.Fprintf(stderr, "llm help: takes one command, got %q\n", args[1:])
			return 2
		}
		if len(args) == 2 {
			return help(args[1], stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if args[0] == c.name {
			return execute(ctx, c, args[1:], stdout, stderr)
		}
	}
	for _, p := range planned {
		if args[0] == p.name {
			fmt.Fprintf(stderr, "llm %s: not built yet: it arrives with %s (%s)\n", p.name, p.unit, p.what)
			return 2
		}
	}
	fmt.Fprintf(stderr, "llm: unknown command %q (llm help lists the commands)\n", args[0])
	return 2
}

// execute parses a command's flags and runs it. Every error becomes one
// line on stderr, "llm NAME: what went wrong".
func execute(ctx context.Context, c *command, args []string, stdout, stderr io.Writer) (status int) {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, progress: newProgress(stderr), temps: &tempSet{paths: map[string]bool{}}}
	fail := func(status int, msg string) int {
		e.progress.clear()
		if msg != "" {
			fmt.Fprintf(stderr, "llm %s: %s\n", c.name, oneLine(msg))
		}
		return status
	}
	// A unit that is still a stub panics with its TODO: say so in one
	// line rather than with a stack trace.
	defer func() {
		if r := recover(); r != nil {
			if msg, ok := deviceFailure(r); ok {
				status = fail(1, msg)
				return
			}
			s, ok := r.(string)
			if !ok || !strings.HasPrefix(s, "TODO(") {
				panic(r)
			}
			status = fail(1, "this engine is built from a unit that is not written yet: "+s+
				" (make engine builds llm from the reference solutions)")
		}
	}()
	fs := newFlagSet(c.name)
	action := c.setup(fs)
	if err := fs.parse(args); err != nil {
		return fail(2, err.Error())
	}
	if fs.help {
		commandHelp(c, stdout)
		return 0
	}
	e.args, e.flags = fs.args, fs
	if err := action(e); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return fail(ee.status, ee.msg)
		}
		return fail(1, err.Error())
	}
	e.progress.clear()
	return 0
}

// oneLine joins the lines of a message, so an error is always one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func help(name string, stdout, stderr io.Writer) int {
	switch name {
	case "version":
		fmt.Fprintln(stdout, "llm version: print the engine's version, Go version and platform")
		return 0
	case "help":
		fmt.Fprintln(stdout, "llm help [COMMAND]: describe the commands")
		return 0
	}
	for _, c := range commands {
		if name == c.name {
			commandHelp(c, stdout)
			return 0
		}
	}
	for _, p := range planned {
		if name == p.name {
			fmt.Fprintf(stdout, "llm %s: %s (arrives with %s)\n", p.name, p.what, p.unit)
			return 0
		}
	}
	fmt.Fprintf(stderr, "llm help: unknown command %q\n", name)
	return 2
}

func commandHelp(c *command, w io.Writer) {
	fmt.Fprintf(w, "usage: llm %s %s\n\n%s.\n\nFlags:\n", c.name, c.synopsis, upperFirst(c.summary))
	fs := newFlagSet(c.name)
	c.setup(fs)
	fs.printDefaults(w)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "llm: the Forge inference engine")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: llm COMMAND [flags]   (llm help COMMAND describes one; docs/engine.md is the guide)")
	fmt.Fprintln(w)
	for _, c := range commands {
		fmt.Fprintf(w, "  llm %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  llm %-11s %s\n", "version", "print the version")
	fmt.Fprintf(w, "  llm %-11s %s\n", "help", "describe a command")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Coming with the course:")
	for _, p := range planned {
		fmt.Fprintf(w, "  llm %-11s %s (%s)\n", p.name, p.what, p.unit)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Try: llm gen --shape tiny -o tiny.gguf && llm run -m tiny.gguf -p 'Hello'")
}

// revision returns " rev abc1234" from the build's VCS stamp, if any.
func revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 7 {
			return " rev " + s.Value[:7]
		}
	}
	return ""
}

// deviceFailure recognises a GPU call that failed in the middle of a
// forward pass: the model's Matrix and KVStore interfaces return no
// errors, so internal/gpu panics with the driver's error, which becomes
// one line here instead of a stack trace.
func deviceFailure(r any) (string, bool) {
	err, ok := r.(error)
	var ce *cuda.Error
	if !ok || !errors.As(err, &ce) {
		return "", false
	}
	return "the GPU failed: " + err.Error(), true
}
