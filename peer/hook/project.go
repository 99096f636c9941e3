package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Pin is the project a hook session decides for. It is fixed at the
// session's first event (SPEC §10.2): the agent's later cd into a
// subdirectory without .git, a submodule or another tree moves the cwd its
// calls are resolved from, never the project, its policy or its DB.
type Pin struct {
	Host    string `json:"host"`
	Session string `json:"session"`
	// Root keys the session's DB and judge context: the git top-level of
	// the first event's cwd, else that cwd.
	Root string `json:"root"`
	// NoProject: Root is $HOME, / or an ancestor of $HOME, which is never
	// a project: every write is outside the project.
	NoProject bool `json:"no_project,omitempty"`
}

// ProjectOf is the project of cwd: its git top-level (the nearest
// directory above it holding .git, a directory or a worktree's file), else
// cwd itself.
func ProjectOf(cwd string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	cwd = filepath.Clean(cwd)
	if top := gitTopLevel(cwd); top != "" {
		return top, nil
	}
	return cwd, nil
}

// pinOf is the pin of a session whose first event came from cwd:
// ProjectOf(cwd), except that a top-level that is $HOME (a dotfiles
// repository) or above it is passed over for cwd, and when cwd is that
// too, the session has no project.
func pinOf(cwd, home string) (Pin, error) {
	if !filepath.IsAbs(cwd) {
		return Pin{}, fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	cwd = filepath.Clean(cwd)
	if top := gitTopLevel(cwd); top != "" && !homeOrAbove(top, home) {
		return Pin{Root: top}, nil
	}
	return Pin{Root: cwd, NoProject: homeOrAbove(cwd, home)}, nil
}

func gitTopLevel(cwd string) string {
	for dir := cwd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// homeOrAbove reports whether dir is /, home, or an ancestor of home, as
// written or where links lead.
func homeOrAbove(dir, home string) bool {
	forms := func(p string) []string {
		out := []string{filepath.Clean(p)}
		if real, err := filepath.EvalSymlinks(p); err == nil && real != out[0] {
			out = append(out, real)
		}
		return out
	}
	for _, d := range forms(dir) {
		if d == "/" {
			return true
		}
		for _, h := range forms(home) {
			if h == d || strings.HasPrefix(h, d+"/") {
				return true
			}
		}
	}
	return false
}

// Pins is the session→project index: one small file per host and session
// id in a directory beside the DBs (a session's pin must be found before
// its DB is known, from the session id alone, since the cwd moves).
type Pins struct {
	Dir  string // the index directory; created on first use
	Home string // the user's home directory (never a project)
}

// maxPinFile bounds a pin file read (a path is at most a few KiB).
const maxPinFile = 64 << 10

// The index is bounded by age, not count: a pin unused for PinMaxAge is
// removed when a new session is pinned, so the index holds the sessions of
// the last PinMaxAge (a count would drop a live session whenever many
// short ones, such as scripted runs, came after it). A session that comes
// back after that long is pinned afresh from its next event's cwd. A pin
// in use has its modification time refreshed at most every pinTouchEvery:
// one syscall a day per live session, not one per hook call.
const (
	PinMaxAge     = 30 * 24 * time.Hour
	pinTouchEvery = 24 * time.Hour
)

// Pin returns the session's pin, creating it from cwd when this is the
// session's first event. Two first events racing agree on one pin: the
// file is linked into place whole, and the loser reads the winner's. An
// unreadable or foreign pin is an error (the call is denied), never a
// fresh pin.
func (p Pins) Pin(host, session, cwd string) (Pin, error) {
	if p.Dir == "" || !filepath.IsAbs(p.Dir) {
		return Pin{}, fmt.Errorf("session index directory %q is not an absolute path", p.Dir)
	}
	if p.Home == "" {
		return Pin{}, errors.New("no home directory: cannot tell whether the cwd may be a project")
	}
	path := p.path(host, session)
	pin, used, err := readPin(path, host, session)
	if err == nil {
		touch(path, used)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return pin, err
	}
	pin, err = pinOf(cwd, p.Home)
	if err != nil {
		return Pin{}, err
	}
	pin.Host, pin.Session = host, session
	if err := writeNew(path, pin); errors.Is(err, fs.ErrExist) {
		pin, _, err = readPin(path, host, session)
		return pin, err
	} else if err != nil {
		return Pin{}, fmt.Errorf("pin the session's project: %w", err)
	}
	p.prune(time.Now())
	return pin, nil
}

// touch marks the pin at path, last marked at used, as in use now.
func touch(path string, used time.Time) {
	now := time.Now()
	if now.Sub(used) < pinTouchEvery {
		return
	}
	if err := os.Chtimes(path, now, now); err != nil {
		slog.Warn("mark the session's pin as in use", "path", path, "err", err)
	}
}

// prune removes the pins unused for PinMaxAge, and writers' temporary
// files as old. Anything else in the directory is left alone.
func (p Pins) prune(now time.Time) {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		slog.Warn("list the session index", "dir", p.Dir, "err", err)
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !(isPinName(e.Name()) || strings.HasPrefix(e.Name(), pinTempPrefix)) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < PinMaxAge {
			continue
		}
		if err := os.Remove(filepath.Join(p.Dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("remove an unused session pin", "file", e.Name(), "err", err)
		}
	}
}

// isPinName reports whether name is a pin's file name (see Pins.path).
func isPinName(name string) bool {
	hexPart, ok := strings.CutSuffix(name, ".json")
	if !ok || len(hexPart) != 32 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil
}

// pinTempPrefix starts the name of a pin being written (writeNew).
const pinTempPrefix = ".pin-"

func (p Pins) path(host, session string) string {
	sum := sha256.Sum256([]byte(host + "\x00" + session))
	return filepath.Join(p.Dir, hex.EncodeToString(sum[:16])+".json")
}

// readPin reads the pin at path and when it was last marked in use.
func readPin(path, host, session string) (Pin, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return Pin{}, time.Time{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return Pin{}, time.Time{}, fmt.Errorf("session index %s is not a regular file", path)
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxPinFile+1))
	if err != nil {
		return Pin{}, time.Time{}, fmt.Errorf("read session index %s: %w", path, err)
	}
	var pin Pin
	if len(raw) > maxPinFile || json.Unmarshal(raw, &pin) != nil || !filepath.IsAbs(pin.Root) {
		return Pin{}, time.Time{}, fmt.Errorf("session index %s is corrupt", path)
	}
	if pin.Host != host || pin.Session != session {
		return Pin{}, time.Time{}, fmt.Errorf("session index %s belongs to another session", path)
	}
	return pin, st.ModTime(), nil
}

// writeNew creates path holding pin, failing with fs.ErrExist when it is
// there: the content is written to a temporary file and hard-linked into
// place, so no reader sees a partial pin.
func writeNew(path string, pin Pin) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	raw, err := json.Marshal(pin)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), pinTempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}
