package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ClaudeAllow reads the permissions.allow rules of one Claude Code
// settings file, and the file's text. A missing file is an error wrapping
// fs.ErrNotExist; one that is not JSON is an error naming it. Only allow is
// read: Claude's deny and ask lists are never taken for allows.
func ClaudeAllow(file string) (rules []string, data []byte, err error) {
	data, err = os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", file, err)
	}
	var s struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, data, fmt.Errorf("%s is not a Claude Code settings file: %w", file, err)
	}
	return s.Permissions.Allow, data, nil
}

// ClaudeUserSettings is the user's Claude Code settings file:
// $CLAUDE_CONFIG_DIR/settings.json when that is set (Claude Code keeps its
// whole configuration there then), else ~/.claude/settings.json; "" when
// neither is an absolute path.
func ClaudeUserSettings(home string) string {
	return userConfigFile("CLAUDE_CONFIG_DIR", home, ".claude", "settings.json")
}

// userConfigFile is file in a host's user configuration directory: $env
// when that is set, else home/dotDir; "" (with a warning) when neither is
// an absolute path, since a relative one would resolve against the hook's
// working directory, which is not the host's.
func userConfigFile(env, home, dotDir, file string) string {
	dir := os.Getenv(env)
	if dir == "" && home != "" {
		dir = filepath.Join(home, dotDir)
	}
	if !filepath.IsAbs(dir) {
		slog.Warn("host configuration not read: neither "+env+" nor the home directory is an absolute path", "dir", dir)
		return ""
	}
	return filepath.Join(dir, file)
}

// claudeLocalSettings is the project's personal settings file, which
// Claude Code's "don't ask again" writes.
const claudeLocalSettings = ".claude/settings.local.json"

// hostAllow are the allow rules the user keeps in Claude Code's own
// settings, which Claude applies before any prompt (SPEC §10.2: a hook
// never adds a prompt the host alone would not show). Trusted are the
// user's settings ($CLAUDE_CONFIG_DIR/settings.json, else
// ~/.claude/settings.json) and the project's .claude/settings.local.json
// when git does not track it; a file the repository ships (that one
// tracked, or .claude/settings.json) is the repository's and may never
// loosen. A file that cannot be read is left out with a warning: its
// human-only calls ask, as without it.
func (claude) hostAllow(ctx context.Context, pin Pin, home, _ string) []string {
	var files []string
	if f := ClaudeUserSettings(home); f != "" {
		files = append(files, f)
	}
	if !pin.NoProject {
		if local, ok := untrackedLocal(ctx, pin.Root); ok {
			files = append(files, local)
		}
	}
	var rules []string
	for _, f := range files {
		allow, _, err := ClaudeAllow(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			slog.Warn("Claude Code settings ignored", "err", err)
			continue
		}
		rules = append(rules, allow...)
	}
	return rules
}

// untrackedLocal is root's .claude/settings.local.json when it exists and
// git does not track it (outside a git repository nothing is tracked).
func untrackedLocal(ctx context.Context, root string) (string, bool) {
	file := filepath.Join(root, filepath.FromSlash(claudeLocalSettings))
	if _, err := os.Lstat(file); err != nil {
		return "", false
	}
	if gitTopLevel(root) == "" {
		return file, true
	}
	tracked, err := gitTracks(ctx, root, claudeLocalSettings)
	if err != nil {
		slog.Warn("Claude Code settings ignored: cannot tell whether git tracks them", "file", file, "err", err)
		return "", false
	}
	if tracked {
		slog.Info("Claude Code settings ignored: the repository ships them", "file", file)
		return "", false
	}
	return file, true
}

// gitTracks reports whether the repository at root tracks path (relative,
// slash-separated). Git's own environment (GIT_DIR, GIT_INDEX_FILE, ...)
// is dropped so that it asks the repository at root.
func gitTracks(ctx context.Context, root, path string) (bool, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "--cached", "-z", "--", path)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if x, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(x.Stderr))
		}
		return false, fmt.Errorf("git ls-files: %w %s", err, stderr)
	}
	return len(out) > 0, nil
}
