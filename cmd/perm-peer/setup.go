package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/perm-peer/perm-peer/peer/hook"
)

// hookSetup is what `perm-peer setup HOST` writes for one host.
type hookSetup struct {
	host          string // the name `perm-peer hook` takes
	projectFile   string // relative to the project
	userFile      func(home string) string
	events        []string
	entry         func(command string) any // one event's entry running command
	topLevel      map[string]json.RawMessage
	settingsLabel string
}

// claudeEntry is the matcher group Claude Code and Codex read.
func claudeEntry(matcher string) func(string) any {
	return func(command string) any {
		e := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 30}}}
		if matcher != "" {
			e["matcher"] = matcher
		}
		return e
	}
}

var setups = map[string]hookSetup{
	"claude-code": {
		host: "claude-code", projectFile: ".claude/settings.json", settingsLabel: "Claude Code settings",
		userFile: func(home string) string { return filepath.Join(home, ".claude", "settings.json") },
		events:   []string{"PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse"},
		entry:    claudeEntry("*"),
	},
	"codex": {
		host: "codex", projectFile: ".codex/hooks.json", settingsLabel: "Codex hooks",
		userFile: func(home string) string {
			if h := os.Getenv("CODEX_HOME"); h != "" {
				return filepath.Join(h, "hooks.json")
			}
			return filepath.Join(home, ".codex", "hooks.json")
		},
		events: []string{"PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse"},
		entry:  claudeEntry(""), // Codex matchers are regular expressions: none matches every tool
	},
	"gemini": {
		host: "gemini", projectFile: ".gemini/settings.json", settingsLabel: "Gemini CLI settings",
		userFile: func(home string) string { return filepath.Join(home, ".gemini", "settings.json") },
		events:   []string{"BeforeTool", "BeforeAgent", "AfterTool"},
		entry: func(command string) any {
			return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "name": "perm-peer", "timeout": 30000}}}
		},
	},
	"cursor": {
		host: "cursor", projectFile: ".cursor/hooks.json", settingsLabel: "Cursor hooks",
		userFile: func(home string) string { return filepath.Join(home, ".cursor", "hooks.json") },
		events: []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt",
			"afterShellExecution"},
		entry:    func(command string) any { return map[string]any{"command": command} },
		topLevel: map[string]json.RawMessage{"version": json.RawMessage("1")},
	},
}

func runSetup(args []string) int {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	project := fs.String("project", "", "install into this project's settings (default: the git top-level of the working directory)")
	user := fs.Bool("user", false, "install into the user's settings (every project)")
	dryRun := fs.Bool("dry-run", false, "print what would change, write nothing")
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, "Usage: perm-peer setup claude-code|codex|gemini|cursor [--project DIR | --user] [--dry-run]\n"+
			"       perm-peer setup zed    print Zed's agent_servers entries for the ACP proxy\n\n")
		fs.PrintDefaults()
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return exitUsage
	}
	name := args[0]
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintf(os.Stderr, "perm-peer setup: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	exe, err := executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer setup: %v\n", err)
		return exitFailed
	}
	if name == "zed" {
		return printZed(os.Stdout, exe)
	}
	s, ok := setups[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "perm-peer setup: unknown host %q (claude-code, codex, gemini, cursor or zed)\n", name)
		return exitUsage
	}
	if *user && *project != "" {
		fmt.Fprintln(os.Stderr, "perm-peer setup: --project and --user exclude each other")
		return exitUsage
	}
	path, err := s.path(*project, *user)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer setup: %v\n", err)
		return exitFailed
	}
	changes, err := s.install(path, shellQuote(exe)+" hook "+s.host, *dryRun)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer setup: %v\n", err)
		return exitFailed
	}
	verb := "changed"
	if *dryRun {
		verb = "would change"
	}
	if len(changes) == 0 {
		fmt.Printf("%s already runs perm-peer's hooks: nothing changed\n", path)
		return exitOK
	}
	fmt.Printf("%s %s %s:\n", verb, s.settingsLabel, path)
	for _, c := range changes {
		fmt.Println("  " + c)
	}
	return exitOK
}

// executable is the running perm-peer's absolute path: the hooks run it
// without depending on PATH.
func executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the perm-peer executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Abs(exe)
}

// path is the settings file setup writes.
func (s hookSetup) path(project string, user bool) (string, error) {
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home directory: %w", err)
		}
		return s.userFile(home), nil
	}
	root, err := projectRoot(project)
	if err != nil {
		return "", err
	}
	if project == "" {
		if root, err = hook.ProjectOf(root); err != nil {
			return "", err
		}
	}
	return filepath.Join(root, s.projectFile), nil
}

// install merges perm-peer's entries into the settings file at path and
// returns what it changed (nothing: already installed). The user's other
// settings and hooks are kept as they are; an entry of ours for another
// perm-peer path is replaced.
func (s hookSetup) install(path, command string, dryRun bool) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	settings, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON object (%v); fix it by hand, nothing was changed", path, err)
	}
	var changes []string
	for k, v := range s.topLevel {
		if _, ok := settings.get(k); !ok {
			settings.set(k, v)
			changes = append(changes, fmt.Sprintf("set %s: %s", k, v))
		}
	}
	hooksRaw, _ := settings.get("hooks")
	hooks, err := parseObject(hooksRaw)
	if err != nil {
		return nil, fmt.Errorf("%s: \"hooks\" is not a JSON object (%v); nothing was changed", path, err)
	}
	for _, event := range s.events {
		change, err := s.merge(hooks, event, command)
		if err != nil {
			return nil, fmt.Errorf("%s: hooks.%s: %v; nothing was changed", path, event, err)
		}
		if change != "" {
			changes = append(changes, change)
		}
	}
	if len(changes) == 0 || dryRun {
		return changes, nil
	}
	hb, _ := hooks.MarshalJSON()
	settings.set("hooks", hb)
	out, err := settings.indented()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	return changes, writeFileAtomic(path, out)
}

// merge puts perm-peer's entry into hooks[event] and says what it did ("":
// it was there already).
func (s hookSetup) merge(hooks *jsonObject, event, command string) (string, error) {
	var entries []json.RawMessage
	if raw, ok := hooks.get(event); ok {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return "", errors.New("not a JSON array")
		}
	}
	want, _ := json.Marshal(s.entry(command))
	change := "added " + event + ": " + command
	found := false
	kept := entries[:0]
	for _, e := range entries {
		if !runsOurHook(e, s.host, command) {
			kept = append(kept, e)
			continue
		}
		if found {
			change = "removed a second perm-peer entry from " + event
			continue // one entry of ours per event
		}
		found = true
		if sameJSON(e, want) {
			change = ""
		} else {
			change = "updated " + event + ": " + command
		}
		kept = append(kept, want)
	}
	if !found {
		kept = append(kept, want)
	}
	out, _ := json.Marshal(kept)
	hooks.set(event, out)
	return change, nil
}

// ourCommand matches a command that runs some perm-peer's hook for host.
var ourCommand = regexp.MustCompile(`(^|/|')perm-peer'?\s+hook\s+(\S+)\s*$`)

// runsOurHook reports whether a settings entry runs a perm-peer hook for
// host (a command string anywhere inside it): this one (command) or one
// at another path.
func runsOurHook(raw json.RawMessage, host, command string) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			if c, ok := x["command"].(string); ok {
				c = strings.TrimSpace(c)
				if m := ourCommand.FindStringSubmatch(c); c == command || m != nil && m[2] == host {
					return true
				}
			}
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// shellQuote quotes a path for a hook command line (the hosts run it
// through a shell).
func shellQuote(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_./+-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeFileAtomic replaces path with data (a crash leaves the old file or
// the new one), keeping an existing file's permissions.
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// zedAgents are the ACP agents `setup zed` shows behind the proxy.
var zedAgents = []struct {
	name string
	argv []string
}{
	{"Claude Code (perm-peer)", []string{"claude-agent-acp"}},
	{"Gemini CLI (perm-peer)", []string{"gemini", "--acp"}},
	{"Codex (perm-peer)", []string{"codex-acp"}},
	{"OpenCode (perm-peer)", []string{"opencode", "acp"}},
}

// printZed prints the agent_servers entries for Zed's settings.json: Zed
// launches perm-peer's ACP proxy, which launches the agent (SPEC §10.1).
func printZed(w io.Writer, exe string) int {
	servers := &jsonObject{vals: map[string]json.RawMessage{}}
	for _, a := range zedAgents {
		v, _ := json.Marshal(map[string]any{"type": "custom", "command": exe, "args": append([]string{"acp", "--"}, a.argv...)})
		servers.set(a.name, v)
	}
	sv, _ := servers.MarshalJSON()
	top := &jsonObject{vals: map[string]json.RawMessage{}}
	top.set("agent_servers", sv)
	out, _ := top.indented()
	fmt.Fprintln(w, "// Add to Zed's settings.json (~/.config/zed/settings.json), keeping the agents you use:")
	_, _ = w.Write(out)
	return exitOK
}
