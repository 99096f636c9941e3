package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perm-peer/perm-peer/review"
	"github.com/perm-peer/perm-peer/store"
)

// projectRoot resolves --project (default: the working directory) to an
// absolute, cleaned path.
func projectRoot(flagValue string) (string, error) {
	dir := flagValue
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find working directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve project %s: %w", dir, err)
	}
	return filepath.Clean(abs), nil
}

// resolveProject is the project of --project (default: the working
// directory) as the hooks find it: any directory inside a project resolves
// to the project's root (review.Reviewer.ProjectOf).
func resolveProject(flagValue string) (string, error) {
	dir, err := projectRoot(flagValue)
	if err != nil {
		return "", err
	}
	r, err := review.New(review.Config{})
	if err != nil {
		return "", err
	}
	p, err := r.ProjectOf(dir)
	if err != nil {
		return "", err
	}
	return p.Root, nil
}

// dbPath resolves --db, else the project's default path (SPEC §6).
func dbPath(flagValue, project string) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	return store.DefaultPath(project)
}

// userPolicyPath resolves --policy, else $XDG_CONFIG_HOME/perm-peer/policy.json
// (or ~/.config/perm-peer/policy.json; a relative $XDG_CONFIG_HOME is
// ignored, as the XDG spec says). The file need not exist.
func userPolicyPath(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return review.UserPolicyPath()
}

// projectPolicyPath is <root>/.perm-peer/policy.json.
func projectPolicyPath(project string) string { return review.ProjectPolicyPath(project) }

// openExisting opens the store named by --db/--project for a CLI command.
// A missing file is not created: for a listing (emptyOK) it reads as empty
// and returns exit 0, otherwise it is a startup error.
func openExisting(cmd, dbFlag, projectFlag string, emptyOK bool) (*store.DB, int) {
	root, err := resolveProject(projectFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", cmd, err)
		return nil, exitStartup
	}
	path, err := dbPath(dbFlag, root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", cmd, err)
		return nil, exitStartup
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "perm-peer %s: no audit db at %s (no peer has run for project %s)\n", cmd, path, root)
		if emptyOK {
			return nil, exitOK
		}
		return nil, exitStartup
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", cmd, err)
		return nil, exitStartup
	}
	return db, exitOK
}
