package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The project index: the DB files are named by a hash of the project root,
// so each DB has a sibling "<db>.root" holding the root it belongs to, in
// plain text (one absolute path, then a newline). It is written by every
// process that opens the DB for a project (Options.Project), only when it
// is missing or names another root, by rename, so concurrent writers never
// leave a torn file. A per-DB file needs no lock shared between projects.
const rootSuffix = ".root"

// ProjectDB is one DB file and the project root recorded for it ("" when
// no process has recorded one yet: a DB written by an older perm-peer).
type ProjectDB struct {
	Root string
	Path string
	// Hash is the DB file's name without ".db": the first 16 hex digits of
	// sha256(root) for a DB at its default path.
	Hash string
}

// StateDir is where DBs live by default: $XDG_STATE_HOME/perm-peer
// ($XDG_STATE_HOME defaults to ~/.local/state; a relative one is ignored,
// as the XDG spec says).
func StateDir() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("state directory: %w", err)
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "perm-peer"), nil
}

// recordRoot writes "<db>.root" unless it already names root.
func recordRoot(dbPath, root string) error {
	want := []byte(root + "\n")
	file := dbPath + rootSuffix
	if have, err := os.ReadFile(file); err == nil && bytes.Equal(have, want) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(dbPath), filepath.Base(file)+".*.tmp")
	if err != nil {
		return fmt.Errorf("record project root of %s: %w", dbPath, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(want); err != nil {
		tmp.Close()
		return fmt.Errorf("record project root of %s: %w", dbPath, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("record project root of %s: %w", dbPath, err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("record project root of %s: %w", dbPath, err)
	}
	return nil
}

// ProjectDBs lists the DB files in dir (StateDir for the default) with the
// project root each records, sorted by root then path. A missing dir lists
// nothing.
func ProjectDBs(dir string) ([]ProjectDB, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list project DBs in %s: %w", dir, err)
	}
	var out []ProjectDB
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".db") {
			continue
		}
		p := ProjectDB{Path: filepath.Join(dir, name), Hash: strings.TrimSuffix(name, ".db")}
		p.Root = readRoot(p.Path)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Root != out[j].Root {
			return out[i].Root < out[j].Root
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// readRoot is the root recorded for the DB at path, "" when none is (or
// the file does not hold one absolute path).
func readRoot(dbPath string) string {
	b, err := os.ReadFile(dbPath + rootSuffix)
	if err != nil || len(b) > 4096 {
		return ""
	}
	root := strings.TrimSuffix(string(b), "\n")
	if !filepath.IsAbs(root) || strings.ContainsAny(root, "\n\x00") {
		return ""
	}
	return root
}

// ProjectRoot is the root recorded next to the DB at path ("" when none).
func ProjectRoot(dbPath string) string { return readRoot(dbPath) }
