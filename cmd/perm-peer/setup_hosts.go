package main

import (
	"os"
	"path/filepath"

	"github.com/perm-peer/perm-peer/jsonedit"
)

// hostSetup is what `perm-peer setup HOST` writes for one host, as data:
// where the host reads its hooks, in which shape, and what else the host
// needs before it runs them.
type hostSetup struct {
	host  string // the name `perm-peer hook` takes
	label string // the host, for people

	// projectFile is the host's per-machine settings file of a project
	// (relative to it); sharedProject says it is a file teams commit, so
	// setup warns that it names this machine's binary. legacyProjectFile is
	// where older setups put the hooks, moved from on install.
	projectFile       string
	sharedProject     bool
	legacyProjectFile string
	userFile          func() (string, error)

	events   []string
	comments bool // the host reads the file as JSON with comments
	// grouped: an event holds matcher groups {"matcher", "hooks": [hook]};
	// otherwise it holds the hooks themselves (Cursor).
	grouped bool
	// catchAll reports whether a group's matcher (absent: ok false) lets
	// the hook see every tool.
	catchAll func(matcher string, ok bool) bool
	group    func(hook jsonedit.Fields) jsonedit.Fields // a new group around hook
	hook     func(command string) jsonedit.Fields
	topLevel jsonedit.Fields // keys the file needs beside "hooks"

	// afterInstall and afterRemove do or say what the host still needs
	// (trust, review); doctorRun says whether the host will run the hooks.
	afterInstall func(c *setupRun) error
	afterRemove  func(c *setupRun) error
	doctorRun    func(c *setupRun) []string
}

func claudeHook(command string) jsonedit.Fields {
	return jsonedit.Fields{{Key: "type", Val: "command"}, {Key: "command", Val: command}, {Key: "timeout", Val: 30}}
}

var setups = map[string]hostSetup{
	"claude-code": {
		host: "claude-code", label: "Claude Code",
		projectFile: ".claude/settings.local.json", legacyProjectFile: ".claude/settings.json",
		userFile: homeFile(".claude", "settings.json"),
		events:   []string{"PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse"},
		grouped:  true,
		catchAll: func(m string, ok bool) bool { return !ok || m == "" || m == "*" },
		group: func(h jsonedit.Fields) jsonedit.Fields {
			return jsonedit.Fields{{Key: "matcher", Val: "*"}, {Key: "hooks", Val: []any{h}}}
		},
		hook:         claudeHook,
		afterInstall: claudeNext,
		doctorRun:    claudeWillRun,
	},
	"codex": {
		host: "codex", label: "Codex",
		projectFile: ".codex/hooks.json", sharedProject: true,
		userFile: codexHooksFile,
		events:   []string{"PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse"},
		grouped:  true,
		// Codex matchers are regular expressions: none (or "") matches
		// every tool, "*" is not a valid one.
		catchAll:     func(m string, ok bool) bool { return !ok || m == "" || m == ".*" },
		group:        func(h jsonedit.Fields) jsonedit.Fields { return jsonedit.Fields{{Key: "hooks", Val: []any{h}}} },
		hook:         claudeHook,
		afterInstall: codexTrust,
		afterRemove:  codexForget,
		doctorRun:    codexWillRun,
	},
	"gemini": {
		host: "gemini", label: "Gemini CLI",
		projectFile: ".gemini/settings.json", sharedProject: true,
		userFile: homeFile(".gemini", "settings.json"),
		events:   []string{"BeforeTool", "BeforeAgent", "AfterTool"},
		comments: true, // Gemini reads settings through strip-json-comments
		grouped:  true,
		catchAll: func(m string, ok bool) bool { return !ok || m == "" || m == "*" || m == ".*" },
		group:    func(h jsonedit.Fields) jsonedit.Fields { return jsonedit.Fields{{Key: "hooks", Val: []any{h}}} },
		hook: func(command string) jsonedit.Fields {
			return jsonedit.Fields{{Key: "type", Val: "command"}, {Key: "command", Val: command}, {Key: "name", Val: "perm-peer"}, {Key: "timeout", Val: 30000}}
		},
		afterInstall: geminiTrust,
		doctorRun:    geminiWillRun,
	},
	"cursor": {
		host: "cursor", label: "Cursor",
		projectFile: ".cursor/hooks.json", sharedProject: true,
		userFile: homeFile(".cursor", "hooks.json"),
		events: []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt",
			"afterShellExecution"},
		hook:     func(command string) jsonedit.Fields { return jsonedit.Fields{{Key: "command", Val: command}} },
		topLevel: jsonedit.Fields{{Key: "version", Val: 1}},
	},
}

// setupOrder is the order hosts are listed in.
var setupOrder = []string{"claude-code", "codex", "gemini", "cursor"}

func homeFile(elem ...string) func() (string, error) {
	return func() (string, error) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{home}, elem...)...), nil
	}
}
