package main

import (
	"fmt"
	"os"
	"path/filepath"

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

// dbPath resolves --db, else the project's default path (SPEC §6).
func dbPath(flagValue, project string) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	return store.DefaultPath(project)
}

// userPolicyPath resolves --policy, else $XDG_CONFIG_HOME/perm-peer/policy.json
// (or ~/.config/perm-peer/policy.json). The file need not exist.
func userPolicyPath(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cfg = filepath.Join(home, ".config")
	}
	return filepath.Join(cfg, "perm-peer", "policy.json")
}

// projectPolicyPath is <root>/.perm-peer/policy.json.
func projectPolicyPath(project string) string {
	return filepath.Join(project, ".perm-peer", "policy.json")
}
