package unit10

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/llmforge/forge/unit00"
)

// regularFile returns nil if path names a regular file (after symbolic
// links), the error of os.Stat if it cannot be read, and otherwise an
// error that says what path is.
func regularFile(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return notRegular(path, info.Mode())
	}
	return nil
}

// notRegular is the error for a path that is not a regular file: a model
// is read from a file, not a directory, a pipe or a device.
func notRegular(path string, mode fs.FileMode) error {
	return fmt.Errorf("%s is %s, not a GGUF file: %w", path, fileKind(mode), unit00.ErrInvalid)
}

// fileKind names the type of a file that is not a regular one.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	}
	// No symbolic link comes here: Stat follows links.
	return fmt.Sprintf("not a regular file (mode %v)", mode.Type())
}
