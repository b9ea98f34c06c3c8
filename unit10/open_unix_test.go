//go:build unix

package unit10

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmforge/forge/unit00"
)

// TestC10_2_OpenNotRegular: a path that is not a regular file is refused
// before it is opened, with an error that says what it is. A FIFO matters
// most: opening one for reading waits for a writer, so an Open that opens
// first and checks after hangs for ever on `llm run -m some-fifo`.
func TestC10_2_OpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.gguf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	cases := []struct {
		path, says string
	}{
		{dir, "directory"},
		{fifo, "FIFO"},
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		cases = append(cases, struct{ path, says string }{"/dev/null", "character device"})
	}
	if dev := blockDevice(); dev != "" {
		cases = append(cases, struct{ path, says string }{dev, "block device"})
	}
	sock := filepath.Join(dir, "model.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
		cases = append(cases, struct{ path, says string }{sock, "socket"})
	}
	for _, c := range cases {
		type result struct {
			f     *File
			err   error
			panic any
		}
		done := make(chan result, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- result{panic: p}
				}
			}()
			f, err := Open(c.path)
			done <- result{f: f, err: err}
		}()
		var r result
		select {
		case r = <-done:
			if r.panic != nil {
				panic(r.panic) // on the test's goroutine, as a direct call would
			}
		case <-time.After(5 * time.Second):
			// Unblock the Open: a writer lets the FIFO's open return.
			if w, err := os.OpenFile(c.path, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
			<-done
			t.Fatalf("Open(%s) was still waiting after 5 s: stat the path and refuse what is not a regular file before opening it (opening a FIFO waits for a writer)", c.path)
		}
		if r.f != nil {
			r.f.Close()
		}
		if r.f != nil || !errors.Is(r.err, unit00.ErrInvalid) || !strings.Contains(r.err.Error(), c.path) || !strings.Contains(r.err.Error(), c.says) {
			t.Errorf("Open(%s) = %v, %v; want nil and an error wrapping unit00.ErrInvalid that names the path and says it is a %s", c.path, r.f, r.err, c.says)
		}
	}
}

// blockDevice returns the path of a block device under /dev, or "" when
// there is none to see (a container may have none).
func blockDevice() string {
	entries, err := os.ReadDir("/dev")
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if m := e.Type(); m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0 {
			return filepath.Join("/dev", e.Name())
		}
	}
	return ""
}

// TestC10_2_OpenUnreadable: a regular file that cannot be opened for
// reading gives os.Open's error as it comes (wrapping fs.ErrPermission).
// A write-only sysctl file refuses reading even to root, so the test works
// where tests run as root; without one (not Linux, or no /proc) it skips.
func TestC10_2_OpenUnreadable(t *testing.T) {
	const path = "/proc/sys/vm/drop_caches" // mode 0200
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		t.Skipf("no write-only regular file to try here (%s: %v)", path, err)
	}
	if fd, err := os.Open(path); err == nil {
		fd.Close()
		t.Skipf("%s opens for reading here", path)
	}
	f, err := Open(path)
	if f != nil {
		f.Close()
	}
	if f != nil || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Open(%s) = %v, %v; want nil and the error of opening it, wrapping fs.ErrPermission: return os.OpenFile's error before using the descriptor", path, f, err)
	}
}
