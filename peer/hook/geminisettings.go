package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/perm-peer/perm-peer/jsonedit"
)

// hostAllow are the shell commands the user's own Gemini CLI settings let
// run without a confirmation: tools.allowed of ~/.gemini/settings.json
// ($GEMINI_CLI_HOME/.gemini/settings.json when that is set, as Gemini reads
// it). Gemini turns "run_shell_command(git rebase)" into a rule that
// allows a command whose text starts with that prefix at a word boundary
// (packages/cli/src/config/policy.ts mapToolsToRules, core/src/policy/
// utils.ts buildArgsPatterns, gemini-cli 0.61.0), which is the gate's
// Bash(git rebase:*). A project's .gemini/settings.json is the
// repository's and never loosens; and since Gemini lets a later settings
// layer (the workspace's, the system's) replace tools.allowed whole, the
// user's list counts only when no such layer sets it.
func (gemini) hostAllow(_ context.Context, pin Pin, home, cwd string) []string {
	user := geminiUserSettings(home)
	if user == "" {
		return nil
	}
	data, ok := readUserFile("Gemini CLI", user)
	if !ok {
		return nil
	}
	allowed, set, err := geminiToolsAllowed(data)
	if err != nil {
		slog.Warn("Gemini CLI settings ignored", "file", user, "err", err)
		return nil
	}
	if !set {
		return nil
	}
	for _, f := range geminiLaterLayers(pin, cwd) {
		if f == user {
			continue
		}
		if geminiMaySetAllowed(f) {
			slog.Info("Gemini CLI user tools.allowed left out: a later settings layer may replace it", "file", f)
			return nil
		}
	}
	var rules []string
	for _, entry := range allowed {
		if r, ok := geminiShellRule(entry); ok {
			rules = append(rules, r)
		} else if geminiShellTool(entry) {
			dropRule("Gemini CLI", user, entry, "not a plain command prefix")
		}
	}
	return rules
}

// geminiUserSettings is Gemini CLI's user settings file: GEMINI_CLI_HOME
// replaces the home directory (packages/core/src/utils/paths.ts homedir);
// "" when that is not an absolute path.
func geminiUserSettings(home string) string {
	if h := os.Getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	if !filepath.IsAbs(home) {
		slog.Warn("Gemini CLI user settings not found: the home directory is not an absolute path", "home", home)
		return ""
	}
	return filepath.Join(home, ".gemini", "settings.json")
}

// geminiLaterLayers are the settings files Gemini merges over the user's:
// the workspace's (Gemini's working directory, which may be anywhere from
// the hook's cwd up to the project root) and the system's
// (GEMINI_CLI_SYSTEM_SETTINGS_PATH, else /etc/gemini-cli/settings.json).
func geminiLaterLayers(pin Pin, cwd string) []string {
	var files []string
	for dir := filepath.Clean(cwd); filepath.IsAbs(dir); dir = filepath.Dir(dir) {
		files = append(files, filepath.Join(dir, ".gemini", "settings.json"))
		if dir == pin.Root || !within(pin.Root, dir) || dir == filepath.Dir(dir) {
			break
		}
	}
	if filepath.IsAbs(pin.Root) {
		files = append(files, filepath.Join(pin.Root, ".gemini", "settings.json"))
	}
	system := os.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = "/etc/gemini-cli/settings.json"
	}
	return append(files, system)
}

// within: dir is root or below it.
func within(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// geminiMaySetAllowed: file sets tools.allowed, or cannot be read well
// enough to tell that it does not.
func geminiMaySetAllowed(file string) bool {
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		return true
	}
	_, set, err := geminiToolsAllowed(data)
	return set || err != nil
}

// geminiToolsAllowed reads tools.allowed from a Gemini settings text
// (comments allowed, keys matched exactly as JavaScript does). set is
// whether the key is there at all.
func geminiToolsAllowed(data []byte) (allowed []string, set bool, err error) {
	plain, err := jsonedit.Plain(data)
	if err != nil {
		return nil, false, err
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(plain, &root); err != nil {
		return nil, false, fmt.Errorf("not a JSON object: %w", err)
	}
	raw, ok := root["tools"]
	if !ok {
		return nil, false, nil
	}
	var tools map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, false, fmt.Errorf("tools is not an object: %w", err)
	}
	raw, ok = tools["allowed"]
	if !ok {
		return nil, false, nil
	}
	if err := json.Unmarshal(raw, &allowed); err != nil {
		return nil, true, fmt.Errorf("tools.allowed is not a list of strings: %w", err)
	}
	return allowed, true, nil
}

// geminiToolRe is Gemini's reading of a tools.allowed entry with an
// argument: TOOL(ARGS).
var geminiToolRe = regexp.MustCompile(`^([a-zA-Z0-9_-]+)\((.*)\)$`)

// geminiShellNames are the names Gemini reads as its shell tool.
var geminiShellNames = map[string]bool{"run_shell_command": true, "ShellTool": true}

func geminiShellTool(entry string) bool {
	m := geminiToolRe.FindStringSubmatch(entry)
	return m != nil && geminiShellNames[m[1]]
}

// geminiShellRule translates run_shell_command(PREFIX). A bare
// run_shell_command (every command) clears nothing the gate would clear
// and is not translated; nor is a prefix whose spacing the gate would
// normalise ("git  rebase", " git"), which Gemini matches only as written.
func geminiShellRule(entry string) (string, bool) {
	m := geminiToolRe.FindStringSubmatch(entry)
	if m == nil || !geminiShellNames[m[1]] {
		return "", false
	}
	words := strings.Split(m[2], " ")
	return commandPrefixRule(words)
}
