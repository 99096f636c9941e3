package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

var kind = Kind{One: "settings file", Many: "settings files"}

// TestRead: a regular file (also through a symlink) is read; a device, a
// FIFO (without waiting for a writer), a directory and a file over the
// cap are refused with a sentence naming the file; a missing file is
// fs.ErrNotExist.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	if b, fi, err := Read(link, 100, kind); err != nil || string(b) != `{"a":1}` || fi.Mode().Perm() != 0o600 {
		t.Fatalf("symlink to a regular file: %q %v %v", b, fi, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		zero: "settings file " + zero + " is a device, not a regular file: perm-peer reads settings files only from regular files",
		fifo: "is a FIFO, not a regular file",
		dir:  "is a directory, not a regular file",
		ok:   "is larger than 3 bytes (0 MiB): not a settings file",
	} {
		max := int64(100)
		if file == ok {
			max = 3
		}
		if _, _, err := Read(file, max, kind); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
	if _, _, err := Read(filepath.Join(dir, "missing"), 100, kind); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}
