package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runSetupCmd runs the binary's setup with HOME=home and the working
// directory dir, bounded in time (a hang is a failure, not a stuck test).
func runSetupCmd(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	return runPP(t, dir, []string{"HOME=" + dir}, append([]string{"setup"}, args...)...)
}

func runPP(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("perm-peer %v: still running after 20 s\n%s", args, out)
	}
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func writeSettings(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ourCommands is the command of every hook in a Claude-shaped file, by event.
func hookCommands(t *testing.T, text string) map[string][]string {
	t.Helper()
	var v struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Command string }
		}
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	out := map[string][]string{}
	for ev, groups := range v.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				out[ev] = append(out[ev], h.Command)
			}
		}
	}
	return out
}

// TestSetupClaudeCodeLocal: a project install goes to
// .claude/settings.local.json (never the shared settings.json), keeps
// every byte the user wrote, adds the four events with the binary's
// absolute path, changes nothing on a second run, and --remove gives back
// the user's file byte for byte.
func TestSetupClaudeCodeLocal(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, ".claude", "settings.local.json")
	orig := "{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\", \"Bash(make && make install > /tmp/log)\"]},\n" +
		"    \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-hook\"}]}]},\n    \"zzz\": 1\n}\n"
	writeSettings(t, local, orig, 0o600)
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir, "--dry-run"); code != 0 || !strings.Contains(out, "would change") {
		t.Fatalf("dry run: %d %s", code, out)
	}
	if readFile(t, local) != orig {
		t.Fatal("--dry-run wrote the file")
	}
	out, code := runSetupCmd(t, dir, "claude-code", "--project", dir)
	if code != 0 || !strings.Contains(out, "added PreToolUse") || !strings.Contains(out, "added UserPromptSubmit") {
		t.Fatalf("setup: %d %s", code, out)
	}
	first := readFile(t, local)
	// Only insertions: the user's text is still there, in order, unescaped.
	for _, part := range []string{"{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\", \"Bash(make && make install > /tmp/log)\"]},\n",
		"    \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-hook\"}]}",
		"    \"zzz\": 1\n}\n"} {
		if !strings.Contains(first, part) {
			t.Fatalf("the user's text %q was changed:\n%s", part, first)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude", "settings.json")); err == nil {
		t.Fatal("setup wrote the shared .claude/settings.json")
	}
	want := binPath + " hook claude-code"
	cmds := hookCommands(t, first)
	if got := cmds["PreToolUse"]; len(got) != 2 || got[0] != "lint-hook" || got[1] != want {
		t.Fatalf("PreToolUse %v", got)
	}
	for _, ev := range []string{"PermissionRequest", "UserPromptSubmit", "PostToolUse"} {
		if got := cmds[ev]; len(got) != 1 || got[0] != want {
			t.Fatalf("%s: %v, want [%s]\n%s", ev, got, want, first)
		}
	}
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second run: %d %s", code, out)
	}
	if readFile(t, local) != first {
		t.Fatal("second run rewrote the file")
	}
	if fi, _ := os.Stat(local); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want the original 0600", fi.Mode().Perm())
	}
	out, code = runSetupCmd(t, dir, "claude-code", "--project", dir, "--remove")
	if code != 0 || !strings.Contains(out, "removed PreToolUse") {
		t.Fatalf("remove: %d %s", code, out)
	}
	if got := readFile(t, local); got != orig {
		t.Fatalf("--remove did not give back the user's file:\n%s\nwant\n%s", got, orig)
	}
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir, "--remove"); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second remove: %d %s", code, out)
	}
}

// TestSetupRemoveRoundTrip: install then --remove leaves every file as it
// was, byte for byte, for every host and for files of many shapes; a file
// setup created (or one that held nothing, {}) is deleted.
func TestSetupRemoveRoundTrip(t *testing.T) {
	shapes := []string{
		"",
		"{}",
		"{}\n",
		`{"a":1}`,
		"{\n\t\"a\": [1, 2],\n\t\"hooks\": {\"Stop\": [{\"hooks\": []}]}\n}\n",
		"{\n  \"hooks\": {\n    \"Other\": []\n  }\n}",
		"{ \"x\" : { \"y\" : null } , \"z\" : \"\\u0026\" }\n",
	}
	for _, host := range []string{"claude-code", "codex", "gemini", "cursor"} {
		for i, shape := range shapes {
			dir := t.TempDir()
			file := filepath.Join(dir, setups[host].projectFile)
			if shape != "" || i > 0 {
				writeSettings(t, file, shape, 0o644)
			}
			if out, code := runSetupCmd(t, dir, host, "--project", dir); code != 0 {
				t.Fatalf("%s %q: %d %s", host, shape, code, out)
			}
			installed := readFile(t, file)
			var v any
			if err := json.Unmarshal([]byte(installed), &v); err != nil {
				t.Fatalf("%s %q: setup wrote invalid JSON: %v\n%s", host, shape, err, installed)
			}
			if out, code := runSetupCmd(t, dir, host, "--project", dir, "--remove"); code != 0 {
				t.Fatalf("%s %q remove: %d %s", host, shape, code, out)
			}
			b, err := os.ReadFile(file)
			if host == "cursor" && strings.Contains(shape, `"hooks"`) {
				// Cursor reads no hooks without "version": setup's stays
				// beside the user's own hooks
				b = []byte(regexp.MustCompile(`,\s*"version": 1`).ReplaceAllString(string(b), ""))
			}
			switch {
			case i == 0 && err == nil:
				t.Fatalf("%s: the file setup created is still there:\n%s", host, b)
			case strings.TrimSpace(shape) == "{}" && err == nil:
				t.Fatalf("%s: a file left empty is removed, found %q", host, b)
			case i > 0 && strings.TrimSpace(shape) != "{}" && string(b) != shape:
				t.Fatalf("%s: %q after install and remove: %q\ninstalled:\n%s", host, shape, b, installed)
			}
		}
	}
}

// TestSetupN3KeepsSiblingHooks (finding N3): perm-peer's hook shares a
// matcher group with the user's own hook; setup replaces only its own
// hook object (its path), never the group: the user's hook, matcher,
// timeout and env prefix survive, and the narrow matcher is reported.
func TestSetupN3KeepsSiblingHooks(t *testing.T) {
	for _, host := range []string{"claude-code", "codex"} {
		dir := t.TempDir()
		file := filepath.Join(dir, setups[host].projectFile)
		orig := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"PERM_PEER_DEBUG=1 /opt/old/perm-peer hook ` + host + `","timeout":90},{"type":"command","command":"/home/me/bin/my-audit-logger.sh"}]}]}}`
		writeSettings(t, file, orig, 0o644)
		out, code := runSetupCmd(t, dir, host, "--project", dir)
		if code != 0 || !strings.Contains(out, "updated PreToolUse") || !strings.Contains(out, `matcher Bash`) {
			t.Fatalf("%s: %d %s", host, code, out)
		}
		got := readFile(t, file)
		wantGroup := `{"matcher":"Bash","hooks":[{"type":"command","command":"PERM_PEER_DEBUG=1 ` + binPath + ` hook ` + host + `","timeout":90},{"type":"command","command":"/home/me/bin/my-audit-logger.sh"}]}`
		if !strings.Contains(got, wantGroup) {
			t.Fatalf("%s: the group was not kept with only the path changed:\n%s\nwant it to hold\n%s", host, got, wantGroup)
		}
		if n := strings.Count(got, "hook "+host); n != len(setups[host].events) {
			t.Fatalf("%s: %d perm-peer hooks, want one per event:\n%s", host, n, got)
		}
		out, code = runSetupCmd(t, dir, host, "--project", dir, "--remove")
		if code != 0 {
			t.Fatalf("%s remove: %d %s", host, code, out)
		}
		if got := readFile(t, file); !strings.Contains(got, `{"matcher":"Bash","hooks":[{"type":"command","command":"/home/me/bin/my-audit-logger.sh"}]}`) || strings.Contains(got, "perm-peer") {
			t.Fatalf("%s: remove did not keep the user's hook alone in its group:\n%s", host, got)
		}
	}
}

// TestSetupN6RefusesNonRegular (finding N6): a settings file that is a
// symlink to /dev/zero, a FIFO or larger than the cap is refused with one
// sentence naming it, quickly (no OOM, no hang), and nothing is written.
func TestSetupN6RefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, ".claude", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	check := func(what, want string) {
		t.Helper()
		out, code := runSetupCmd(t, dir, "claude-code", "--project", dir)
		if code != exitFailed || !strings.Contains(out, want) || !strings.Contains(out, "nothing was changed") ||
			strings.Contains(out, "goroutine") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Fatalf("%s: %d %s", what, code, out)
		}
	}
	if err := os.Symlink("/dev/zero", local); err != nil {
		t.Fatal(err)
	}
	check("/dev/zero", "settings file /dev/zero is a device, not a regular file: perm-peer reads settings files only from regular files ("+local+" is a symlink to it)")
	os.Remove(local)
	if err := syscall.Mkfifo(local, 0o644); err != nil {
		t.Fatal(err)
	}
	check("FIFO", "is a FIFO, not a regular file")
	os.Remove(local)
	big := `{"x":"` + strings.Repeat("a", maxSettingsBytes) + `"}`
	writeSettings(t, local, big, 0o644)
	check("17 MB", "is larger than 16777216 bytes")
	os.Remove(local)
	// the legacy shared file setup moves hooks out of gets the same checks
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	check("legacy /dev/zero", "is a device, not a regular file")
}

// TestSetupN11KeepsFileIdentity (finding N11): a symlinked settings file
// stays a link and its target gets the hooks; a read-only file is refused;
// root keeps a user's file the user's; a user cannot take over a file
// another user owns.
func TestSetupN11KeepsFileIdentity(t *testing.T) {
	dir := t.TempDir()
	dotfiles := filepath.Join(dir, "dotfiles", "claude.json")
	writeSettings(t, dotfiles, `{"model":"opus"}`, 0o600)
	local := filepath.Join(dir, ".claude", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../dotfiles/claude.json", local); err != nil {
		t.Fatal(err)
	}
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir); code != 0 || !strings.Contains(out, "a symlink to") {
		t.Fatalf("symlink: %d %s", code, out)
	}
	if fi, err := os.Lstat(local); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	if got := readFile(t, dotfiles); !strings.Contains(got, `"model":"opus"`) || !strings.Contains(got, binPath+" hook claude-code") {
		t.Fatalf("the link's target did not get the hooks:\n%s", got)
	}
	if fi, _ := os.Stat(dotfiles); fi.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v", fi.Mode().Perm())
	}

	ro := t.TempDir()
	roFile := filepath.Join(ro, ".claude", "settings.local.json")
	writeSettings(t, roFile, `{"model":"opus"}`, 0o444)
	out, code := runSetupCmd(t, ro, "claude-code", "--project", ro)
	if code != exitFailed || !strings.Contains(out, "is read-only (mode 0444)") {
		t.Fatalf("read-only: %d %s", code, out)
	}
	if readFile(t, roFile) != `{"model":"opus"}` {
		t.Fatal("the read-only file was replaced")
	}

	if os.Geteuid() != 0 {
		t.Fatal("the ownership half of this test needs root (the test machine runs as root)")
	}
	own := t.TempDir()
	ownFile := filepath.Join(own, ".claude", "settings.local.json")
	writeSettings(t, ownFile, `{"model":"opus"}`, 0o600)
	if err := os.Chown(ownFile, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	if out, code := runSetupCmd(t, own, "claude-code", "--project", own); code != 0 {
		t.Fatalf("root run: %d %s", code, out)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(ownFile, &st); err != nil || st.Uid != 1234 || st.Gid != 1234 || st.Mode&0o777 != 0o600 {
		t.Fatalf("after a root run the user's file is uid %d gid %d mode %o, want 1234 1234 600", st.Uid, st.Gid, st.Mode&0o777)
	}

	// root installing into a user's project with no .claude yet: the new
	// folder and file are the user's
	fresh := t.TempDir()
	if err := os.Chown(fresh, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	if out, code := runSetupCmd(t, fresh, "claude-code", "--project", fresh); code != 0 {
		t.Fatalf("root run, new file: %d %s", code, out)
	}
	for _, p := range []string{filepath.Join(fresh, ".claude"), filepath.Join(fresh, ".claude", "settings.local.json")} {
		if err := syscall.Stat(p, &st); err != nil || st.Uid != 1234 || st.Gid != 1234 {
			t.Fatalf("%s made by a root run is uid %d gid %d, want the project owner's 1234", p, st.Uid, st.Gid)
		}
	}

	// uid 65534 in a directory it may write, on a file root owns: the
	// directory and a copy of the binary must be reachable by that uid
	other, err := os.MkdirTemp("", "pp-n11-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	otherFile := filepath.Join(other, ".claude", "settings.local.json")
	writeSettings(t, otherFile, `{"model":"opus"}`, 0o666)
	for _, d := range []string{other, filepath.Dir(otherFile), otherFile} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(other, "perm-peer")
	writeSettings(t, exe, readFile(t, binPath), 0o755)
	cmd := exec.Command(exe, "setup", "claude-code", "--project", other)
	cmd.Env = append(os.Environ(), "HOME="+other)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "belongs to uid 0, not to you (uid 65534)") {
		t.Fatalf("foreign-owned file: %v %s", err, b)
	}
	if readFile(t, otherFile) != `{"model":"opus"}` {
		t.Fatal("the foreign-owned file was replaced")
	}
}

// TestSetupN12MissingProject (finding N12): a --project that does not
// exist (a typo) is refused and nothing is created.
func TestSetupN12MissingProject(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "projet")
	out, code := runSetupCmd(t, dir, "claude-code", "--project", missing)
	if code != exitFailed || !strings.Contains(out, "project directory "+missing+" does not exist") {
		t.Fatalf("%d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Fatal("setup created the missing project")
	}
	writeSettings(t, filepath.Join(dir, "file"), "", 0o644)
	if out, code := runSetupCmd(t, dir, "codex", "--project", filepath.Join(dir, "file")); code != exitFailed || !strings.Contains(out, "is not a directory") {
		t.Fatalf("a file as project: %d %s", code, out)
	}
}

// TestSetupN13GeminiComments (finding N13): Gemini reads its settings as
// JSON with comments; setup edits such a file keeping every comment, and
// trusts the project's folder in ~/.gemini/trustedFolders.json (Gemini
// ignores a project's settings in an untrusted folder). Hosts that read
// plain JSON still refuse comments, naming why.
func TestSetupN13GeminiComments(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".gemini", "settings.json")
	orig := "{\n  // my theme\n  \"theme\": \"dark\", /* the model */ \"model\": {\"name\": \"gemini-pro\"}\n  // end\n}\n"
	writeSettings(t, file, orig, 0o644)
	out, code := runSetupCmd(t, dir, "gemini", "--project", dir)
	if code != 0 || !strings.Contains(out, "added BeforeTool") || !strings.Contains(out, "trusted the folder") || !strings.Contains(out, "gemini -p") {
		t.Fatalf("%d %s", code, out)
	}
	got := readFile(t, file)
	for _, c := range []string{"// my theme\n", "/* the model */", "// end\n"} {
		if !strings.Contains(got, c) {
			t.Fatalf("comment %q lost:\n%s", c, got)
		}
	}
	real, _ := filepath.EvalSymlinks(dir)
	var trusted map[string]string
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, ".gemini", "trustedFolders.json"))), &trusted); err != nil || trusted[real] != "TRUST_FOLDER" {
		t.Fatalf("trustedFolders.json: %v %v", trusted, err)
	}
	if out, code := runSetupCmd(t, dir, "gemini", "--project", dir, "--remove"); code != 0 || readFile(t, file) != orig {
		t.Fatalf("remove: %d %s\n%s", code, out, readFile(t, file))
	}
	claude := filepath.Join(dir, ".claude", "settings.local.json")
	writeSettings(t, claude, "{\n  // mine\n}\n", 0o644)
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir); code != exitFailed || !strings.Contains(out, "JSON allows no comments here") {
		t.Fatalf("claude comments: %d %s", code, out)
	}
}

// TestSetupN16FlaggedEntry (finding N16): an existing perm-peer entry with
// flags after the host name is recognised (no second hook), and kept.
func TestSetupN16FlaggedEntry(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".claude", "settings.local.json")
	writeSettings(t, file, `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"`+binPath+` hook claude-code --timeout 50s","timeout":30}]}]}}`, 0o644)
	out, code := runSetupCmd(t, dir, "claude-code", "--project", dir)
	if code != 0 || strings.Contains(out, "PreToolUse") {
		t.Fatalf("%d %s", code, out)
	}
	got := hookCommands(t, readFile(t, file))["PreToolUse"]
	if len(got) != 1 || got[0] != binPath+" hook claude-code --timeout 50s" {
		t.Fatalf("PreToolUse hooks: %q", got)
	}
	// two entries of ours: the second goes
	writeSettings(t, file, `{"hooks":{"PreToolUse":[{"hooks":[{"command":"/a/perm-peer hook claude-code"}]},{"hooks":[{"command":"'/b c/perm-peer' hook claude-code -v"}]}]}}`, 0o644)
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir); code != 0 || !strings.Contains(out, "removed 1 more perm-peer hook") {
		t.Fatalf("duplicates: %d %s", code, out)
	}
	if got := hookCommands(t, readFile(t, file))["PreToolUse"]; len(got) != 1 || got[0] != binPath+" hook claude-code" {
		t.Fatalf("PreToolUse hooks after duplicates: %q", got)
	}
}

// TestSetupN17RelativeCodexHome (finding N17): a relative CODEX_HOME is
// resolved as Codex resolves it (against the working directory; it must
// exist), and the absolute path is what setup reports and writes.
func TestSetupN17RelativeCodexHome(t *testing.T) {
	dir := t.TempDir()
	out, code := runPP(t, dir, []string{"HOME=" + dir, "CODEX_HOME=relative/codex"}, "setup", "codex", "--user")
	if code != exitFailed || !strings.Contains(out, "CODEX_HOME=relative/codex") || !strings.Contains(out, "Codex refuses") {
		t.Fatalf("missing relative CODEX_HOME: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "relative")); err == nil {
		t.Fatal("setup created the missing CODEX_HOME")
	}
	home := filepath.Join(dir, "relative", "codex")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	out, code = runPP(t, dir, []string{"HOME=" + dir, "CODEX_HOME=relative/codex"}, "setup", "codex", "--user")
	real, _ := filepath.EvalSymlinks(home)
	if code != 0 || !strings.Contains(out, filepath.Join(real, "hooks.json")) {
		t.Fatalf("relative CODEX_HOME: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, "hooks.json")); err != nil {
		t.Fatal(err)
	}
}

// TestSetupCodexTrust: setup codex records its hooks as reviewed in
// $CODEX_HOME/config.toml with Codex's key and hash, trusts the project
// for a project install, keeps the user's config, and --remove takes the
// review records out again; doctor reads the same state.
func TestSetupCodexTrust(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".codex", "config.toml")
	userCfg := "model = \"o4\" # mine\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n"
	writeSettings(t, cfg, userCfg, 0o600)
	out, code := runPP(t, proj, []string{"HOME=" + dir}, "setup", "codex")
	if code != 0 || !strings.Contains(out, "trusted the project") || !strings.Contains(out, "recorded 4 perm-peer hooks as reviewed") ||
		!strings.Contains(out, "teams commit") {
		t.Fatalf("%d %s", code, out)
	}
	got := readFile(t, cfg)
	real, _ := filepath.EvalSymlinks(proj)
	if !strings.HasPrefix(got, userCfg) || !strings.Contains(got, "[projects.\""+real+"\"]\ntrust_level = \"trusted\"\n") ||
		!strings.Contains(got, "[hooks.state.\""+real+"/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:") {
		t.Fatalf("config.toml:\n%s", got)
	}
	if out, code := runPP(t, proj, []string{"HOME=" + dir}, "doctor"); code != 0 || !strings.Contains(out, "ok       codex") {
		t.Fatalf("doctor after setup: %d %s", code, out)
	}
	// a changed hook is no longer the reviewed one: doctor says so
	hooks := filepath.Join(proj, ".codex", "hooks.json")
	writeSettings(t, hooks, strings.Replace(readFile(t, hooks), `"timeout": 30`, `"timeout": 31`, 1), 0o644)
	if out, code := runPP(t, proj, []string{"HOME=" + dir}, "doctor"); code != exitFailed || !strings.Contains(out, "not reviewed in Codex") {
		t.Fatalf("doctor after an edit: %d %s", code, out)
	}
	if out, code := runPP(t, proj, []string{"HOME=" + dir}, "setup", "codex", "--remove"); code != 0 || !strings.Contains(out, "removed the review records of 4") {
		t.Fatalf("remove: %d %s", code, out)
	}
	if got := readFile(t, cfg); strings.Contains(got, "hooks.state") || !strings.HasPrefix(got, userCfg) {
		t.Fatalf("config.toml after remove:\n%s", got)
	}
	// the project already named in another form: a [projects."…"] table
	// beside it would define it twice, and Codex would refuse the config
	inline := "[projects]\n\"" + real + "\" = { trust_level = \"untrusted\" }\n"
	writeSettings(t, cfg, inline, 0o600)
	out, code = runPP(t, proj, []string{"HOME=" + dir}, "setup", "codex")
	if code != 0 || !strings.Contains(out, "in a form setup does not edit") {
		t.Fatalf("inline project: %d %s", code, out)
	}
	if got := readFile(t, cfg); !strings.HasPrefix(got, inline) || strings.Contains(got, "[projects.\"") {
		t.Fatalf("config.toml with the project inline:\n%s", got)
	}
}

// TestDoctor: one line per host and one for the audit DB; a hook whose
// binary is gone is a problem (exit 1); nothing installed is exit 1.
func TestDoctor(t *testing.T) {
	dir := t.TempDir()
	out, code := runPP(t, dir, []string{"HOME=" + dir}, "doctor")
	if code != exitFailed || !strings.Contains(out, "-        claude-code  not installed") || !strings.Contains(out, "no host runs perm-peer") {
		t.Fatalf("nothing installed: %d %s", code, out)
	}
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir); code != 0 {
		t.Fatalf("setup: %d %s", code, out)
	}
	out, code = runPP(t, dir, []string{"HOME=" + dir}, "doctor")
	if code != 0 || !strings.Contains(out, "ok       claude-code  "+filepath.Join(dir, ".claude", "settings.local.json")+": 4 hooks, will run") ||
		!strings.Contains(out, "audit") || len(strings.Split(strings.TrimSpace(out), "\n")) != 5 {
		t.Fatalf("installed: %d %s", code, out)
	}
	file := filepath.Join(dir, ".claude", "settings.local.json")
	writeSettings(t, file, strings.ReplaceAll(readFile(t, file), binPath, "/gone/perm-peer"), 0o644)
	out, code = runPP(t, dir, []string{"HOME=" + dir}, "doctor")
	if code != exitFailed || !strings.Contains(out, "PROBLEM  claude-code") || !strings.Contains(out, "/gone/perm-peer, which does not exist") {
		t.Fatalf("missing binary: %d %s", code, out)
	}
}

// TestVersion: perm-peer version names the build's commit and Go.
func TestVersion(t *testing.T) {
	out, code := runPP(t, t.TempDir(), nil, "version")
	if code != 0 || !strings.HasPrefix(out, "perm-peer ") || !strings.Contains(out, "go1.") {
		t.Fatalf("%d %s", code, out)
	}
	if out2, _ := runPP(t, t.TempDir(), nil, "--version"); out2 != out {
		t.Fatalf("--version %q != version %q", out2, out)
	}
}

// TestSetupOtherHosts writes each host's file in its own shape.
func TestSetupOtherHosts(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, file, want string }{
		{"codex", ".codex/hooks.json", `"PermissionRequest"`},
		{"gemini", ".gemini/settings.json", `"timeout": 30000`},
		{"cursor", ".cursor/hooks.json", `"version": 1`},
	} {
		out, code := runSetupCmd(t, sub, c.host) // default: the git top-level of the working directory
		if code != 0 {
			t.Fatalf("%s: %d %s", c.host, code, out)
		}
		b := readFile(t, filepath.Join(dir, c.file))
		if !strings.Contains(b, c.want) || !strings.Contains(b, binPath+" hook "+c.host) {
			t.Fatalf("%s:\n%s", c.host, b)
		}
		if out, _ := runSetupCmd(t, sub, c.host); !strings.Contains(out, "nothing changed") {
			t.Fatalf("%s second run: %s", c.host, out)
		}
	}
	writeSettings(t, filepath.Join(dir, ".gemini", "settings.json"), `{"hooks": [`, 0o644)
	if out, code := runSetupCmd(t, sub, "gemini"); code != exitFailed || !strings.Contains(out, "nothing was changed") {
		t.Fatalf("broken settings: %d %s", code, out)
	}
	out, code := runSetupCmd(t, dir, "zed")
	if code != 0 || !strings.Contains(out, `"agent_servers"`) || !strings.Contains(out, `"claude-agent-acp"`) ||
		!strings.Contains(out, `"--acp"`) || !strings.Contains(out, `"codex-acp"`) || !strings.Contains(out, `"opencode"`) {
		t.Fatalf("setup zed: %d %s", code, out)
	}
}
