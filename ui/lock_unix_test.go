//go:build unix

package ui

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A DB another process holds: the page says which project is busy within
// the lock timeout, shows the others, and the next load after the holder
// lets go is whole again.
func TestHeldDBAnswersWithinLockTimeout(t *testing.T) {
	s, get := testServer(t, 128, 100*time.Millisecond)
	dbs, err := filepath.Glob(filepath.Join(s.opts.StateDir, "*.db"))
	if err != nil || len(dbs) != 2 {
		t.Fatalf("dbs %v %v", dbs, err)
	}
	lock, err := os.OpenFile(dbs[0]+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/decisions", "/grants", "/projects"} {
		start := time.Now()
		code, body := get(path)
		took := time.Since(start)
		if code != 200 || !strings.Contains(body, "is locked by another process") || took > 3*time.Second {
			t.Errorf("%s with a held DB: %d after %v, want 200 naming the lock:\n%s", path, code, took, body)
		}
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if _, body := get("/"); strings.Contains(body, "is locked by another process") || !strings.Contains(body, "128 in all") {
		t.Errorf("after the holder let go the page still says locked or misses decisions")
	}
}
