// Command llm is the Forge inference engine's command line. It is built from
// whichever implementation of the units is selected (make engine IMPL=...),
// so a learner's engine grows with the course. Today it has the commands
// every later one is built around: version and help.
//
// Usage:
//
//	llm version
//	llm help [COMMAND]
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
)

// version is set at release time with -ldflags "-X main.version=...".
var version = "dev"

// planned are the commands the course adds, with the unit that brings each.
var planned = []struct{ name, unit, what string }{
	{"run", "unit11", "prompt → streamed text, with sampling flags, seed and stats"},
	{"serve", "unit13", "an OpenAI-compatible HTTP server with continuous batching"},
	{"bench", "unit11", "prefill and decode tokens per second"},
	{"inspect", "unit10", "a GGUF file's metadata and tensor table"},
	{"tokenize", "unit04", "text → token ids with a model's vocabulary"},
	{"quantize", "unit10", "rewrite a GGUF with quantized weights"},
	{"gen", "unit10", "write a seeded synthetic model of a named shape"},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status: 0 on success,
// 2 for a usage error.
func run(args []string, stdout, stderr io.Writer) int {
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
		if len(args) > 1 {
			return help(args[1], stdout, stderr)
		}
		usage(stdout)
		return 0
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

func help(cmd string, stdout, stderr io.Writer) int {
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "llm version: print the engine's version, Go version and platform")
		return 0
	case "help":
		fmt.Fprintln(stdout, "llm help [COMMAND]: describe the commands")
		return 0
	}
	for _, p := range planned {
		if cmd == p.name {
			fmt.Fprintf(stdout, "llm %s: %s (arrives with %s)\n", p.name, p.what, p.unit)
			return 0
		}
	}
	fmt.Fprintf(stderr, "llm help: unknown command %q\n", cmd)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "llm: the Forge inference engine")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "  llm version          print the version")
	fmt.Fprintln(w, "  llm help [COMMAND]   describe a command")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Coming with the course:")
	for _, p := range planned {
		fmt.Fprintf(w, "  llm %-9s %s (%s)\n", p.name, p.what, p.unit)
	}
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
