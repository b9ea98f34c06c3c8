//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestNotAFile: -m must be a regular file. A FIFO used to hang for ever
// (opened before it was checked); a directory printed its mode bits.
func TestNotAFile(t *testing.T) {
	tinyModel(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.gguf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	for _, c := range []struct{ path, says string }{{fifo, "is a named pipe (FIFO)"}, {dir, "is a directory"}} {
		for _, args := range [][]string{
			{"run", "-m", c.path, "-p", "hi"},
			{"tokenize", "-m", c.path, "hi"},
			{"inspect", c.path},
		} {
			done := make(chan result, 1)
			go func() { done <- llm(args...) }()
			select {
			case r := <-done:
				checkError(t, args, r, 2, c.path+" "+c.says)
			case <-time.After(10 * time.Second):
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close() // let the blocked open return
				}
				<-done
				t.Fatalf("llm %q was still waiting after 10 s", args)
			}
		}
	}
}
