package regfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// Kind names what a file holds, for errors: "policy"/"policies".
type Kind struct{ One, Many string }

// Read reads file, following symlinks, when it is a regular file of at most
// max bytes. A missing file is an error wrapping fs.ErrNotExist. The info is
// the open file's (after the links).
func Read(file string, max int64, kind Kind) ([]byte, fs.FileInfo, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s %s: %w", kind.One, file, err)
	}
	if err := checkRegular(file, fi, kind); err != nil {
		return nil, nil, err
	}
	// O_NONBLOCK: should the path be swapped for a FIFO after the Stat, the
	// open does not wait for a writer; the Stat of the open file below
	// catches the swap.
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s %s: %w", kind.One, file, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, fmt.Errorf("read %s %s: %w", kind.One, file, err)
	}
	if err := checkRegular(file, fi, kind); err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s %s: %w", kind.One, file, err)
	}
	if int64(len(data)) > max {
		what := kind.One
		if !strings.HasSuffix(what, "file") {
			what += " file"
		}
		return nil, nil, fmt.Errorf("%s %s is larger than %d bytes (%d MiB): not a %s", kind.One, file, max, max>>20, what)
	}
	return data, fi, nil
}

func checkRegular(file string, fi fs.FileInfo, kind Kind) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("%s %s is %s, not a regular file: perm-peer reads %s only from regular files", kind.One, file, what, kind.Many)
}
