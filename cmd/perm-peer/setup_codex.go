package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/jsonedit"
)

// Codex runs a hook from a hooks.json only once its user has reviewed it
// (the /hooks screen), and reads a project's .codex/ only when the project
// is trusted. Both are kept in the user's $CODEX_HOME/config.toml, in a
// documented format (openai/codex codex-rs/hooks/src/engine/discovery.rs,
// codex-rs/config/src/fingerprint.rs):
//
//	[projects."/abs/project"]
//	trust_level = "trusted"
//
//	[hooks.state."/abs/hooks.json:pre_tool_use:0:0"]
//	trusted_hash = "sha256:…"
//
// The key names the file, the event and the hook's position; the hash is
// the SHA-256 of the hook's normalised identity as canonical JSON.

// codexHome is Codex's home, resolved as Codex does: $CODEX_HOME (made
// absolute against the working directory and canonical; it must be an
// existing directory, Codex refuses it otherwise), else ~/.codex.
func codexHome() (string, error) {
	if v := os.Getenv("CODEX_HOME"); v != "" {
		real, err := filepath.EvalSymlinks(v)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME=%s: %w (Codex refuses a CODEX_HOME that is not an existing directory too)", v, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("CODEX_HOME=%s is not a directory (Codex refuses it too)", v)
		}
		return real, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".codex"), nil
}

func codexHooksFile() (string, error) {
	h, err := codexHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "hooks.json"), nil
}

// codexSnake is Codex's key label of an event: PreToolUse → pre_tool_use.
func codexSnake(event string) string {
	return strings.ToLower(regexp.MustCompile(`([a-z])([A-Z])`).ReplaceAllString(event, "${1}_${2}"))
}

// codexMatcherEvents are the events whose matcher Codex keeps in a hook's
// identity (it drops the matcher of the others).
var codexMatcherEvents = map[string]bool{"PreToolUse": true, "PermissionRequest": true, "PostToolUse": true, "SessionStart": true}

// codexHookKey is the [hooks.state] key of a hook.
func codexHookKey(hooksFile string, h ourHook) string {
	return fmt.Sprintf("%s:%s:%d:%d", hooksFile, codexSnake(h.event), h.groupIdx, h.hookIdx)
}

// codexHookHash is Codex's trusted_hash of a command hook: its identity
// {event_name, matcher?, hooks: [{type, command, timeout, async}]} with
// sorted keys as compact JSON.
func codexHookHash(doc *jsonedit.Doc, h ourHook) string {
	handler := map[string]any{"type": "command", "command": h.command.Str, "timeout": 600, "async": false}
	if t := h.hook.Get("timeout"); t != nil {
		if n, err := strconv.Atoi(string(doc.Text(t))); err == nil {
			handler["timeout"] = max(n, 1)
		}
	}
	if a := h.hook.Get("async"); a != nil && string(doc.Text(a)) == "true" {
		handler["async"] = true
	}
	id := map[string]any{"event_name": codexSnake(h.event), "hooks": []any{handler}}
	if m := h.group.Get("matcher"); m != nil && m.Kind == jsonedit.String && codexMatcherEvents[h.event] {
		id["matcher"] = m.Str
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json escapes no HTML
	_ = enc.Encode(id)       // maps: sorted keys
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexHooksKeyFile is the hooks.json path as Codex names it in keys: the
// canonical directory (Codex canonicalises CODEX_HOME and the cwd).
func codexHooksKeyFile(file string) string {
	if dir, err := filepath.EvalSymlinks(filepath.Dir(file)); err == nil {
		return filepath.Join(dir, filepath.Base(file))
	}
	return file
}

// codexTrust records perm-peer's hooks as reviewed and, for a project
// install, the project as trusted, in $CODEX_HOME/config.toml.
func codexTrust(c *setupRun) error {
	home, err := codexHome()
	if err != nil {
		return err
	}
	cfgPath := filepath.Join(home, "config.toml")
	if c.dryRun {
		c.note("would record perm-peer's hooks as reviewed in %s (as Codex's /hooks screen does)", cfgPath)
		return nil
	}
	f, err := readSettings(cfgPath)
	if err != nil {
		return fmt.Errorf("%v; the hooks are installed but Codex will not run them until you review them in /hooks", err)
	}
	t := parseTOMLText(f.data)
	var done []string
	if c.project != "" {
		done = append(done, codexTrustProject(c, t)...)
	}
	keyFile := codexHooksKeyFile(c.file)
	n := 0
	var other []string
	for _, hs := range c.s.findOurs(c.final.Root().Get("hooks")) {
		for _, h := range hs {
			changed, ok := t.set("hooks.state", codexHookKey(keyFile, h), "trusted_hash", strconv.Quote(codexHookHash(c.final, h)))
			if changed {
				n++
			}
			if !ok {
				other = append(other, h.event)
			}
		}
	}
	if len(other) > 0 {
		c.note("next: %s records the review of perm-peer's %s hooks in a form setup does not edit: review them in Codex's /hooks screen", cfgPath, strings.Join(other, ", "))
	}
	if n > 0 {
		done = append(done, fmt.Sprintf("recorded %d perm-peer hooks as reviewed (as Codex's /hooks screen does)", n))
	}
	if len(done) == 0 {
		return nil
	}
	if err := f.writable(); err != nil {
		return fmt.Errorf("%v; the hooks are installed but Codex will not run them until you review them in /hooks", err)
	}
	if err := f.write([]byte(t.String())); err != nil {
		return err
	}
	c.note("Codex (%s): %s", f.where(), strings.Join(done, "; "))
	return nil
}

// codexTrustProject marks the project trusted, unless the user said it is
// not, or the project brings a config.toml of its own (trusting the
// project would apply it: that is the user's call, after reading it).
func codexTrustProject(c *setupRun, t *tomlText) []string {
	dir := c.project
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	header := tomlHeader("projects", dir)
	if start, end, ok := t.table(header); ok {
		switch v, _, _ := t.get(start, end, "trust_level"); v {
		case `"trusted"`:
			return nil
		case `"untrusted"`:
			c.note("warning: Codex: you marked %s untrusted, so Codex ignores its .codex/hooks.json: use --user, or trust the project in Codex", dir)
			return nil
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".codex", "config.toml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		c.note("next: Codex reads %s/.codex/ only in a trusted project, and this project has its own .codex/config.toml: read it, then trust the project when Codex asks", dir)
		return nil
	}
	if _, ok := t.set("projects", dir, "trust_level", `"trusted"`); !ok {
		c.note("next: your Codex config.toml names %s in a form setup does not edit: trust the project when Codex asks", dir)
		return nil
	}
	return []string{"trusted the project " + dir + " (Codex reads its .codex/hooks.json only then)"}
}

// codexForget drops the review records of the hooks setup removed.
func codexForget(c *setupRun) error {
	home, err := codexHome()
	if err != nil {
		return err
	}
	f, err := readSettings(filepath.Join(home, "config.toml"))
	if err != nil || f.info == nil {
		return err
	}
	t := parseTOMLText(f.data)
	keyFile := codexHooksKeyFile(c.file)
	n := 0
	for _, h := range c.removed {
		if t.drop(tomlHeader("hooks.state", codexHookKey(keyFile, h))) {
			n++
		}
	}
	if n == 0 || c.dryRun {
		return nil
	}
	if err := f.writable(); err != nil {
		return err
	}
	if err := f.write([]byte(t.String())); err != nil {
		return err
	}
	c.note("Codex (%s): removed the review records of %d perm-peer hooks (a project's trust is left as it is)", f.where(), n)
	return nil
}

// codexWillRun lists why Codex would not run the hooks in file.
func codexWillRun(c *setupRun) []string {
	home, err := codexHome()
	if err != nil {
		return []string{err.Error()}
	}
	f, err := readSettings(filepath.Join(home, "config.toml"))
	if err != nil {
		return []string{err.Error()}
	}
	t := parseTOMLText(f.data)
	var problems []string
	if c.project != "" {
		dir := c.project
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		start, end, ok := t.table(tomlHeader("projects", dir))
		if v, _, _ := t.get(start, end, "trust_level"); !ok || v != `"trusted"` {
			problems = append(problems, "Codex does not trust the project "+dir+", so it ignores .codex/hooks.json")
		}
	}
	keyFile := codexHooksKeyFile(c.file)
	var unreviewed []string
	for _, hs := range c.s.findOurs(c.final.Root().Get("hooks")) {
		for _, h := range hs {
			start, end, ok := t.table(tomlHeader("hooks.state", codexHookKey(keyFile, h)))
			if v, _, _ := t.get(start, end, "trusted_hash"); !ok || v != strconv.Quote(codexHookHash(c.final, h)) {
				unreviewed = append(unreviewed, h.event)
			}
		}
	}
	if len(unreviewed) > 0 {
		problems = append(problems, "not reviewed in Codex, which skips them: "+strings.Join(unreviewed, ", ")+" (review them in /hooks, or run setup again)")
	}
	return problems
}
