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

// hostAllow are the shell commands the user's own Gemini CLI
// configuration lets run without a confirmation: tools.allowed of
// ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini/settings.json when that
// is set, as Gemini reads it) and the allow rules of ~/.gemini/policies
// (geminiPolicyRules). Gemini turns "run_shell_command(git rebase)" into a
// rule that allows a command whose text starts with that prefix at a word
// boundary (packages/cli/src/config/policy.ts mapToolsToRules, core/src/
// policy/utils.ts buildArgsPatterns, gemini-cli 0.61.0), which is the
// gate's Bash(git rebase:*). A project's .gemini/settings.json is the
// repository's and never loosens; and since Gemini lets a later settings
// layer (the workspace's, the system's) replace tools.allowed and
// policyPaths whole, the user's list counts only when no such layer sets
// it, and the policies directory only when no layer sets policyPaths.
func (gemini) hostAllow(_ context.Context, pin Pin, home, cwd string) []string {
	user := geminiUserSettings(home)
	if user == "" {
		return nil
	}
	var own geminiSettings
	if data, ok := readUserFile("Gemini CLI", user); ok {
		var err error
		if own, err = readGeminiSettings(data); err != nil {
			slog.Warn("Gemini CLI settings ignored", "file", user, "err", err)
			return nil
		}
	}
	later := geminiLaterSettings(pin, cwd, user)
	var rules []string
	if own.allowedSet && !later.allowedSet {
		for _, entry := range own.allowed {
			if r, ok := geminiShellRule(entry); ok {
				rules = append(rules, r)
			} else if geminiShellTool(entry) {
				dropRule("Gemini CLI", user, entry, "not a plain command prefix")
			}
		}
	}
	if !own.policyPaths && !later.policyPaths {
		rules = append(rules, geminiPolicyRules(filepath.Dir(user))...)
	}
	return rules
}

// geminiSettings is what perm-peer reads of one Gemini settings layer.
type geminiSettings struct {
	allowed     []string
	allowedSet  bool // tools.allowed is there (Gemini: this layer's list replaces an earlier one's)
	policyPaths bool // policyPaths is there (Gemini then reads those instead of ~/.gemini/policies)
}

// geminiLaterSettings is what the settings layers Gemini merges over the
// user's set; a layer that cannot be read counts as setting everything.
func geminiLaterSettings(pin Pin, cwd, user string) geminiSettings {
	var later geminiSettings
	for _, f := range geminiLaterLayers(pin, cwd) {
		if f == user {
			continue
		}
		data, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue
		}
		s, perr := readGeminiSettings(data)
		if err != nil || perr != nil {
			s = geminiSettings{allowedSet: true, policyPaths: true}
		}
		if s.allowedSet || s.policyPaths {
			slog.Info("Gemini CLI user allow rules may be replaced by a later settings layer", "file", f,
				"tools.allowed", s.allowedSet, "policyPaths", s.policyPaths)
		}
		later.allowedSet = later.allowedSet || s.allowedSet
		later.policyPaths = later.policyPaths || s.policyPaths
	}
	return later
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

// readGeminiSettings reads tools.allowed and whether policyPaths is set
// from a Gemini settings text (comments allowed, keys matched exactly as
// JavaScript does).
func readGeminiSettings(data []byte) (geminiSettings, error) {
	var s geminiSettings
	plain, err := jsonedit.Plain(data)
	if err != nil {
		return s, err
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(plain, &root); err != nil {
		return s, fmt.Errorf("not a JSON object: %w", err)
	}
	_, s.policyPaths = root["policyPaths"]
	raw, ok := root["tools"]
	if !ok {
		return s, nil
	}
	var tools map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil {
		return s, fmt.Errorf("tools is not an object: %w", err)
	}
	if raw, s.allowedSet = tools["allowed"]; !s.allowedSet {
		return s, nil
	}
	if err := json.Unmarshal(raw, &s.allowed); err != nil {
		return s, fmt.Errorf("tools.allowed is not a list of strings: %w", err)
	}
	return s, nil
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
