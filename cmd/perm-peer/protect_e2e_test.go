package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownFilesPeer starts `perm-peer serve` the way an editor runs it: HOME,
// XDG_CONFIG_HOME and XDG_STATE_HOME of its own, the user policy and the
// audit DB at their default places under them, and a session in auto mode,
// which approves every ask that is not human-only. It returns the peer and
// the user policy, DB and project policy paths.
func ownFilesPeer(t *testing.T) (p *peerProc, userPol, db, projPol string) {
	t.Helper()
	root := t.TempDir()
	home, cfg, state := filepath.Join(root, "home"), filepath.Join(root, "cfg"), filepath.Join(root, "state")
	project := filepath.Join(root, "project")
	userPol = filepath.Join(cfg, "perm-peer", "policy.json")
	projPol = filepath.Join(project, ".perm-peer", "policy.json")
	sum := sha256.Sum256([]byte(project))
	db = filepath.Join(state, "perm-peer", hex.EncodeToString(sum[:])[:16]+".db")
	for path, body := range map[string]string{
		userPol:                             `{"deny":["Bash(git push *)"]}`,
		projPol:                             `{}`,
		filepath.Join(project, "README.md"): "hi\n",
		filepath.Join(home, ".profile"):     "\n",
		filepath.Join(state, "perm-peer", ".keep"): "",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p = startPeer(t, peerOpts{framing: "ndjson", project: project, db: db, args: []string{"--policy", userPol},
		env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + cfg, "XDG_STATE_HOME=" + state}})
	p.initialize(false) // no human to ask: a human-only call is a headless reject
	if m := p.call("session/open", map[string]any{"sessionId": "s1", "mode": "auto", "agent": "test"}, nil); m.errCode() != 0 {
		t.Fatalf("session/open: %v", m)
	}
	return p, userPol, db, projPol
}

// ownFileWriters are the writers the reliability probe tried (C1, M1), P
// standing for the path.
var ownFileWriters = []string{
	`echo '{"mode":"full"}' > P`,
	`printf x >> P`,
	`truncate -s0 P`,
	`rm -f P`,
	`cp /dev/null P`,
	`mv README.md P`,
	`sed -i s/deny/allow/ P`,
	`tee P < README.md`,
	`ln -f README.md P`,
	`python3 -c "open('P','w').write('{}')"`,
}

// TestProtectOwnFilesAutoMode drives the binary the way finding C1 did:
// in auto mode, every writer onto the user policy, the DB and the project
// policy, with every spelling of their paths, is rejected by the floor;
// spellings the peer cannot resolve are rejected as needing a human. None
// is ever approved. A write elsewhere is approved by the mode, so the test
// sees auto mode at work.
func TestProtectOwnFilesAutoMode(t *testing.T) {
	p, userPol, db, projPol := ownFilesPeer(t)
	base := filepath.Base(db)
	floors := []string{
		`"${XDG_CONFIG_HOME:-$HOME/.config}/perm-peer/policy.json"`,
		`$XDG_CONFIG_HOME/perm-peer/policy.json`,
		`"${XDG_CONFIG_HOME-/nowhere}"/perm-peer/policy.json`,
		`${XDG_CONFIG_HOME:=~/.config}/perm-peer/policy.json`,
		userPol,
		`"${XDG_STATE_HOME:-$HOME/.local/state}"/perm-peer/*.db`,
		`$XDG_STATE_HOME/perm-peer/` + base,
		`"${XDG_STATE_HOME}/perm-peer/` + base + `.lock"`,
		`$XDG_STATE_HOME/perm-peer/0000000000000000.db`, // another project's DB
		db,
		`.perm-peer/policy.json`,
		`"$PWD/.perm-peer/policy.json"`,
		projPol,
	}
	unresolved := []string{
		`$STATE/perm-peer/` + base,
		`"$(echo "$XDG_CONFIG_HOME")"/perm-peer/policy.json`,
		`$S/*/*.db`,
	}
	n := 0
	check := func(cmd string, want ...string) {
		t.Helper()
		n++
		m := p.call("session/requestPermission", permParams("s1", bashCall(fmt.Sprintf("c%d", n), cmd)), nil)
		k, _, meta := reply(m)
		if k != "reject" || !contains(want, meta["decidedBy"]) {
			t.Errorf("%s: want reject by %v, got %s by %v (%v)", cmd, want, k, meta["decidedBy"], meta["reason"])
		}
	}
	for _, w := range ownFileWriters {
		for _, path := range floors {
			check(strings.ReplaceAll(w, "P", unquoteFor(w, path)), "floor")
		}
		for _, path := range unresolved {
			check(strings.ReplaceAll(w, "P", unquoteFor(w, path)), "floor", "headless")
		}
	}
	// the write tool names the file as it is
	for _, path := range []string{userPol, db, db + ".lock", projPol, filepath.Join(filepath.Dir(db), "new.db")} {
		n++
		m := p.call("session/requestPermission", permParams("s1", map[string]any{"toolCallId": fmt.Sprintf("w%d", n),
			"tool": "write", "kind": "edit", "rawInput": map[string]any{"path": path, "content": `{"mode":"full"}`}}), nil)
		if k, _, meta := reply(m); k != "reject" || meta["decidedBy"] != "floor" {
			t.Errorf("write tool on %s: %v", path, m)
		}
	}
	// auto mode approves a plain ask: a write elsewhere under the config dir
	m := p.call("session/requestPermission", permParams("s1", bashCall("ok1", `echo x > "${XDG_CONFIG_HOME:-$HOME/.config}/other/x"`)), nil)
	if k, _, meta := reply(m); k != "once" || meta["decidedBy"] != "mode" {
		t.Errorf("a write outside perm-peer's files in auto mode: %v", m)
	}
	m = p.call("session/requestPermission", permParams("s1", bashCall("ok2", `cat "${XDG_CONFIG_HOME:-$HOME/.config}/perm-peer/policy.json"`)), nil)
	if k, _, meta := reply(m); k != "once" || meta["decidedBy"] != "mode" {
		t.Errorf("reading the policy in auto mode: %v", m)
	}
}

// TestProtectHardLinksAutoMode drives finding M1: a hard link in the
// project to the DB or the project policy is that file, so writing through
// it is the floor writing to it is.
func TestProtectHardLinksAutoMode(t *testing.T) {
	p, _, db, projPol := ownFilesPeer(t)
	// the peer has created the DB by now
	if _, err := os.Stat(db); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"hard.db": db, "hard_pol.json": projPol} {
		if err := os.Link(target, filepath.Join(p.project, name)); err != nil {
			t.Fatalf("hard link: %v", err)
		}
	}
	n := 0
	for _, name := range []string{"hard.db", "hard_pol.json"} {
		for _, w := range ownFileWriters {
			n++
			cmd := strings.ReplaceAll(w, "P", name)
			m := p.call("session/requestPermission", permParams("s1", bashCall(fmt.Sprintf("h%d", n), cmd)), nil)
			if k, _, meta := reply(m); k != "reject" || meta["decidedBy"] != "floor" {
				t.Errorf("%s: want a floor, got %v", cmd, m)
			}
		}
		m := p.call("session/requestPermission", permParams("s1", map[string]any{"toolCallId": "wt-" + name,
			"tool": "write", "kind": "edit", "rawInput": map[string]any{"path": name, "content": "x"}}), nil)
		if k, _, meta := reply(m); k != "reject" || meta["decidedBy"] != "floor" {
			t.Errorf("write tool on %s: %v", name, m)
		}
	}
	m := p.call("session/requestPermission", permParams("s1", bashCall("ok", "echo x >> README.md")), nil)
	if k, _, _ := reply(m); k != "once" {
		t.Errorf("a write to a file with one link: %v", m)
	}
}

// unquoteFor drops a spelling's double quotes inside the python writer,
// whose code is itself in double quotes.
func unquoteFor(writer, path string) string {
	if strings.HasPrefix(writer, "python3") {
		return strings.ReplaceAll(path, `"`, "")
	}
	return path
}

func contains(list []string, v any) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
