package hook

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPinsPrunedByAge: pinning a new session removes the pins unused for
// PinMaxAge (and a writer's temporary file as old), keeps younger ones and
// anything else in the directory; a pin in use is marked so, and keeps its
// project.
func TestPinsPrunedByAge(t *testing.T) {
	tmp := t.TempDir()
	p := Pins{Dir: filepath.Join(tmp, "hook-sessions"), Home: filepath.Join(tmp, "home")}
	proj := filepath.Join(tmp, "proj")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(proj, "src"), p.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pinAt := func(session, cwd string) Pin {
		t.Helper()
		pin, err := p.Pin("claude-code", session, cwd)
		if err != nil {
			t.Fatalf("pin %s: %v", session, err)
		}
		return pin
	}
	age := func(path string, d time.Duration) {
		t.Helper()
		at := time.Now().Add(-d)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	pinAt("old", proj)
	pinAt("young", proj)
	oldPin, youngPin := p.path("claude-code", "old"), p.path("claude-code", "young")
	other, temp, dir := filepath.Join(p.Dir, "notes.txt"), filepath.Join(p.Dir, pinTempPrefix+"123"), filepath.Join(p.Dir, "0123456789abcdef0123456789abcdef.json")
	for _, f := range []string{other, temp} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{oldPin, other, temp, dir} {
		age(f, PinMaxAge+time.Hour)
	}
	age(youngPin, PinMaxAge-time.Hour)

	pinAt("new", proj)
	for f, want := range map[string]bool{oldPin: false, temp: false, youngPin: true, other: true, dir: true, p.path("claude-code", "new"): true} {
		_, err := os.Lstat(f)
		if got := !errors.Is(err, fs.ErrNotExist); got != want {
			t.Errorf("%s exists: %v, want %v (%v)", filepath.Base(f), got, want, err)
		}
	}

	// a pin in use is marked, at most daily, and its project does not move
	age(youngPin, 2*pinTouchEvery)
	if pin := pinAt("young", filepath.Join(proj, "src")); pin.Root != proj {
		t.Errorf("young re-pinned to %s, want %s", pin.Root, proj)
	}
	if st, err := os.Stat(youngPin); err != nil || time.Since(st.ModTime()) > time.Minute {
		t.Errorf("young's pin after use: %v %v, want marked now", st.ModTime(), err)
	}
	// once unused past the bound, it goes too
	age(youngPin, PinMaxAge+time.Hour)
	pinAt("newer", proj)
	if _, err := os.Lstat(youngPin); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("young's pin unused past the bound: %v, want removed", err)
	}
}
