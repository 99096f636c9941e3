package gate

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// perm-peer's own files are the user and project policies, the grants and
// the audit database with its lock files. A write, delete, link or copy
// onto them is a hard floor in every mode however the call spells the
// path: a variable the peer's environment resolves (${XDG_STATE_HOME:-…}),
// a glob, a hard link. A path the gate cannot resolve that may still name
// them is human-only, so a mode that approves every ask never approves it:
// the agent must not change the rules that judge it.

// ownPaths are perm-peer's own files and directories.
type ownPaths []string

// protected lists perm-peer's own files and directories.
func (pl *places) protected() ownPaths {
	if pl.prot != nil {
		return pl.prot
	}
	var out ownPaths
	if pl.env.Project != "" {
		out = append(out, filepath.Join(pl.env.Project, ".perm-peer"))
	}
	if pl.env.Home != "" {
		out = append(out, filepath.Join(pl.env.Home, ".config", "perm-peer"), filepath.Join(pl.env.Home, ".local", "state", "perm-peer"))
	}
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		if d, ok := pl.env.getenv(v); ok && filepath.IsAbs(d) {
			out = append(out, filepath.Join(d, "perm-peer"))
		}
	}
	if pl.pol != nil {
		for _, f := range []string{pl.pol.userFile, pl.pol.projectFile} {
			if f != "" {
				out = append(out, filepath.Clean(f))
			}
		}
	}
	for _, p := range pl.env.Protected {
		if p == "" {
			continue
		}
		out = append(out, filepath.Clean(p))
		if d := filepath.Dir(filepath.Clean(p)); filepath.Base(d) == "perm-peer" {
			out = append(out, d) // the other projects' databases and their locks
		}
	}
	pl.prot = out
	return out
}

// protectedWrite reports whether writing (or deleting) the path touches
// perm-peer's own policy, grants or database (a hard floor). Deleting an
// ancestor of a protected file counts too.
func (pl *places) protectedWrite(r pathRef, deleting bool) bool {
	if !r.known {
		return pl.unresolvedProtected(r.raw, deleting)
	}
	for _, p := range r.both() {
		lp := strings.ToLower(p)
		for _, prot := range pl.protected() {
			lprot := strings.ToLower(prot)
			if within(lp, lprot) || (deleting && within(lprot, lp)) {
				return true
			}
			if r.glob && globMayMatch(lp, lprot) {
				return true
			}
		}
	}
	return false
}

// unresolvedProtected reports a path known only at run time that surely
// names perm-peer's own files: it says .perm-peer, one of its spellings in
// the peer's environment is one of them, or the directory written before
// its first expansion is inside one (~/.config/perm-peer/$f).
func (pl *places) unresolvedProtected(raw string, deleting bool) bool {
	if strings.Contains(strings.ToLower(raw), ".perm-peer") {
		return true
	}
	for _, s := range pl.spellings(raw) {
		if !strings.Contains(s, "$") {
			if filepath.IsAbs(s) && pl.protected().spell(pl.resolvePath(s, "", true)) {
				return true
			}
			continue
		}
		dir := s[:strings.IndexByte(s, '$')]
		if i := strings.LastIndexByte(dir, '/'); i > 0 && filepath.IsAbs(dir) {
			if r := pl.resolvePath(dir[:i], "", true); r.known && !r.glob && pl.protected().hold(r) {
				return true
			}
		}
	}
	return false
}

// spell reports a path the peer's environment spells that is one of
// perm-peer's own or inside one, or a glob reaching that deep. Unlike
// protectedWrite it counts no ancestor: an unset variable makes
// rm -f "$TMPDIR"/* read rm -f /*, which is no deletion of ~/.config.
func (own ownPaths) spell(r pathRef) bool {
	for _, p := range r.both() {
		lp := strings.ToLower(p)
		for _, prot := range own {
			lprot := strings.ToLower(prot)
			if within(lp, lprot) || r.glob && strings.Count(lp, "/") > strings.Count(lprot, "/") && globMayMatch(lp, lprot) {
				return true
			}
		}
	}
	return false
}

// hold reports a directory inside one of perm-peer's own.
func (own ownPaths) hold(r pathRef) bool {
	for _, p := range r.both() {
		for _, prot := range own {
			if within(strings.ToLower(p), strings.ToLower(prot)) {
				return true
			}
		}
	}
	return false
}

// spellings are the forms of a dynamic word's value: as written ($X/…),
// then as the peer's environment expands it (see envExpansion).
func (pl *places) spellings(raw string) []string {
	if vs := pl.envVals[raw]; len(vs) > 0 {
		return append([]string{raw}, vs...)
	}
	return []string{raw}
}

// mayNameOwn reports a path known only at run time that may name one of
// perm-peer's own files: after an expansion it cannot resolve comes a
// directory that is, or a glob that matches, perm-peer or .perm-peer,
// with a file below it ($X/perm-peer/policy.json, $S/*/*.db). An
// expansion alone ($F) may name anything and is not counted: that would
// make every unresolved write human-only; nor is $BIN/perm-peer, a build
// of perm-peer itself (rm -rf $X/perm-peer is human-only as a recursive
// deletion of an unresolved path).
func (pl *places) mayNameOwn(raw string) bool {
	for _, s := range pl.spellings(raw) {
		comps := strings.Split(strings.ToLower(s), "/")
		dyn := false
		for j, c := range comps {
			if strings.Contains(c, "$") {
				dyn = true
				continue
			}
			if !dyn || c == "" {
				continue
			}
			if j < len(comps)-1 && (c == "perm-peer" || c == ".perm-peer" || hasGlob(c) && (shellGlobMatch(c, "perm-peer") || shellGlobMatch(c, ".perm-peer"))) {
				return true
			}
		}
	}
	return false
}

// holdsProtected reports a directory that contains one of perm-peer's own
// files: a recursive copy or an extraction into it may overwrite them.
func (pl *places) holdsProtected(r pathRef) bool {
	if !r.known {
		return false
	}
	for _, p := range pl.protected() {
		if within(p, r.abs) || within(p, r.real) {
			return true
		}
	}
	return false
}

// twins are perm-peer's own regular files, for hard links to them: each
// protected file, and the files in each protected directory.
func (own ownPaths) twins() []string {
	var out []string
	for _, p := range own {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.Mode().IsRegular():
			out = append(out, p)
		case fi.IsDir():
			if ents, err := os.ReadDir(p); err == nil && len(ents) <= 4000 {
				for _, e := range ents {
					if e.Type().IsRegular() {
						out = append(out, filepath.Join(p, e.Name()))
					}
				}
			}
		}
	}
	return out
}

// guardOwnFiles makes a command that is not known-safe human-only when one
// of its words names perm-peer's own files (git checkout -- .perm-peer/…,
// perl -pi on the policy, sqlite3 on the audit DB). Writes the gate sees
// there are floors (protectedWrite); these it cannot see into, and the
// agent must not change the rules that judge it even in a mode that
// approves every ask.
func (fl *factLog) guardOwnFiles() {
	for _, f := range fl.facts {
		if f.kind != protocol.FactExec || f.safe != nil || f.floor != nil || f.human != nil || len(f.argv) < 2 {
			continue
		}
		for _, w := range f.argv[1:] {
			// a word with spaces is a message (git commit -m '… .perm-peer …'), not a path
			if !strings.ContainsAny(w, " \t\n") && fl.namesOwnFile(w) {
				f.human = reason("human.protected-touch", "a command the gate cannot see into names perm-peer's own policy, grants or database")
				break
			}
		}
	}
}

// namesOwnFile reports a word that mentions one of perm-peer's own paths,
// in any of its spellings, or may name one (mayNameOwn).
func (pl *places) namesOwnFile(w string) bool {
	for _, s := range pl.spellings(w) {
		if pl.protected().mention(s) {
			return true
		}
	}
	return strings.Contains(w, "$") && pl.mayNameOwn(w)
}

// mention reports text that contains one of perm-peer's own paths.
func (own ownPaths) mention(w string) bool {
	if containsFold(w, "perm-peer") { // every default own path has it: lower-case only then
		lw := strings.ToLower(w)
		if strings.Contains(lw, ".perm-peer") || strings.Contains(lw, ".config/perm-peer") || strings.Contains(lw, ".local/state/perm-peer") {
			return true
		}
	}
	for _, p := range own {
		if strings.Contains(w, p) {
			return true
		}
	}
	return false
}
