package hook

import (
	"fmt"
	"os"
	"path/filepath"
)

// ProjectOf is the project a hook call decides for: the git top-level of
// cwd (the nearest directory above it holding .git, a directory or a
// worktree's file), else cwd itself.
func ProjectOf(cwd string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	cwd = filepath.Clean(cwd)
	for dir := cwd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return cwd, nil
		}
		dir = parent
	}
}
