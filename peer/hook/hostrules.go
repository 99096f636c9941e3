package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
)

// Translating a host's allow rule into the gate's Bash(...) syntax
// (gate.Policy.AddHostAllow) must never widen it: a rule is translated
// only where its meaning is the gate's own reading of that rule, and
// anything else is dropped (its human-only calls then ask or are refused,
// as without it).

// commandPrefixRule is the gate rule for "a command whose words begin with
// words" (Gemini's commandPrefix, Codex's prefix_rule pattern, Cursor's
// Shell(commandBase)): Bash(w1 w2:*), which the gate matches on a simple
// command's words at a word boundary. Words that the gate would read as
// something else (a *, which is its wildcard, a ':' next to it) or that
// name something other than literal text in the host (quotes, $, ~,
// globs, shell operators, spaces inside a word) make the rule untranslatable.
func commandPrefixRule(words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	for _, w := range words {
		if !literalWord(w) {
			return "", false
		}
	}
	return "Bash(" + strings.Join(words, " ") + ":*)", true
}

// literalWord: w is a non-empty word of characters that mean themselves in
// the shell, in the host's matching and in the gate's rule syntax.
func literalWord(w string) bool {
	if w == "" {
		return false
	}
	for _, c := range w {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("-_./=@+,%", c):
		default:
			return false
		}
	}
	return true
}

// readUserFile reads one of the user's own host settings files: a missing
// file is (nil, false) silently; one that cannot be read is (nil, false)
// with a warning, so its rules are left out.
func readUserFile(host, file string) ([]byte, bool) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		slog.Warn(host+" settings ignored", "err", fmt.Errorf("read %s: %w", file, err))
		return nil, false
	}
	return data, true
}

// dropRule logs a host rule that is left out, and why.
func dropRule(host, file, rule, why string) {
	slog.Warn(host+" allow rule left out: "+why, "file", file, "rule", rule)
}
