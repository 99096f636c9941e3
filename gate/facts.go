// facts.go holds what the walk finds: the facts of a call (exec, read,
// write, delete, network, env) with their reasons, and the fact log's
// methods that record them.

package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// rfact is a fact under analysis: what it is, what the gate's own classes
// say about it (floor, human-only, intrinsic ask, known-safe), and finally
// the decision.
type rfact struct {
	kind     protocol.FactKind
	argv     []string
	static   int    // number of leading argv words that are not dynamic
	pathExec bool   // argv[0] is a path, not a bare name
	namesake string // the program argv[0] is another name of (grm is rm)
	wrapper  bool   // allow rules need more than the wrapper's name
	path     pathRef
	host     string
	tool     string
	detail   string
	listOnly bool   // a listing (ls, find roots): names, not contents
	line     string // argv joined, for Bash rules (computed once)
	cwd      string // where an exec fact runs ("" when unknown)
	port     string // a network fact's port, when known

	floor, human, ask, safe *protocol.Reason
	// ruleClears: a user's allow rule that names this very command clears
	// its human-only class (Bash(sudo apt-get update)): a rule is a
	// person's decision, which auto mode and the judge are not
	ruleClears bool
	// clearWord: a user's allow rule whose literal words include it clears
	// the human-only class (Bash(git rebase:*) clears git rebase's
	// history rewrite); a wildcard (Bash(git:*), Bash(*)) never does
	clearWord string
	// byHostRule: an allow rule of the host's own settings cleared it
	// (Policy.hostAllow); it covers none of the facts below it
	byHostRule bool
	open       *protocol.Reason // why it asks when nothing covers it
	parent     int              // exec fact that owns this one (-1: none)

	dec       protocol.Decision
	by        protocol.DecidedBy
	reason    *protocol.Reason
	risk      protocol.Risk
	humanOnly bool
}

func reason(code, detail string) *protocol.Reason {
	return &protocol.Reason{Code: code, Detail: detail}
}

func (fl *factLog) add(f *rfact) int {
	fl.facts = append(fl.facts, f)
	return len(fl.facts) - 1
}

// opaque records something the gate cannot see into; it always asks.
func (fl *factLog) opaque(code, detail string, humanOnly bool) int {
	fl.noAlways = true
	f := &rfact{kind: protocol.FactOpaque, detail: detail, parent: -1}
	if humanOnly {
		f.human = reason(code, detail)
	} else {
		f.ask = reason(code, detail)
	}
	return fl.add(f)
}

func (fl *factLog) floorFact(code, detail string) {
	fl.add(&rfact{kind: protocol.FactOpaque, detail: detail, parent: -1, floor: reason(code, detail)})
}

func (fl *factLog) humanFact(code, detail string) {
	fl.noAlways = true
	fl.add(&rfact{kind: protocol.FactOpaque, detail: detail, parent: -1, human: reason(code, detail)})
}

// resolveMaybe resolves a file name taken from part of a word.
func (fl *factLog) resolveMaybe(w word, p string, sc *scope, forWrite bool) pathRef {
	if w.dyn {
		fl.envSuffix(w.val, p)
		return pathRef{raw: p}
	}
	return fl.resolvePath(p, sc.cwd, forWrite)
}

// readWord records a read of every brace alternative of a word.
func (fl *factLog) readWord(w word, sc *scope, parent int, listOnly bool) {
	if w.proc {
		return // reads the output of a command analysed on its own
	}
	if w.dyn && w.secretPaths && !listOnly {
		fl.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: w.val}, parent: parent,
			human: reason("human.sensitive-read", "reads files a listing did not keep away from secrets")})
	}
	if w.dyn && w.projPaths && (listOnly || w.cleanPaths && !w.secretPaths) {
		// wc -l $(git ls-files), … | xargs wc -l: names of project files,
		// and a count or listing shows nothing of their contents; cat
		// $(git ls-files '*.go'): project files whose names are no secret
		fl.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: w.val}, parent: parent, listOnly: listOnly,
			safe: reason("gate.read", "reads project files a listing names")})
		return
	}
	if w.dyn {
		// the values the call gave the variables: exact ones replace the
		// unknown read, others only add stricter facts
		for _, alt := range w.alts {
			fl.readWord(word{val: alt}, sc, parent, listOnly)
		}
		if !w.exact || len(w.alts) == 0 {
			fl.readFact(pathRef{raw: w.val}, parent, listOnly)
		}
		return
	}
	for _, alt := range braceExpand(w.val) {
		r := fl.resolvePath(alt, sc.cwd, false)
		if r.glob && r.known && !listOnly && fl.readGlobMatches(r, parent) {
			continue
		}
		fl.readFact(r, parent, listOnly)
		if r.glob && r.known && !listOnly {
			fl.globLinks(r.abs, parent)
		}
	}
}

// readGlobMatches judges a read of a glob by the files it matches on disk
// (cat *.json), as if they had been named: the pattern's own fact says
// where it reads, each match whether it is a secret or a link out of the
// project. False when the glob cannot be expanded.
func (fl *factLog) readGlobMatches(r pathRef, parent int) bool {
	ms, ok := globMatches(r.abs)
	if !ok {
		return false
	}
	// listOnly skips the guess from the pattern's name; it is a content read
	fl.facts[fl.readFact(r, parent, true)].listOnly = false
	for _, m := range ms {
		// only what is not a plain read in the project is worth a fact
		if i := fl.readFact(fl.resolvePath(m, "", false), parent, false); fl.facts[i].safe != nil {
			fl.facts = fl.facts[:i]
		}
	}
	return true
}

// globLinks reads the symlinks a glob matches as the files they point to:
// cat src/*.txt must not read a link to .env or to a file outside the
// project without saying so.
func (fl *factLog) globLinks(pattern string, parent int) {
	dir, base := filepath.Dir(pattern), filepath.Base(pattern)
	if hasGlob(dir) {
		return // only the last element is matched here
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	n := 0
	for _, e := range ents {
		if e.Type()&os.ModeSymlink == 0 || strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if ok, _ := filepath.Match(base, e.Name()); ok {
			fl.readFact(fl.resolvePath(filepath.Join(dir, e.Name()), "", false), parent, false)
			if n++; n >= maxAlts {
				return
			}
		}
	}
}

func (fl *factLog) writeWord(w word, sc *scope, parent int) {
	if w.proc {
		return // feeds a command analysed on its own
	}
	if w.dyn {
		for _, alt := range w.alts {
			fl.writeWord(word{val: alt}, sc, parent)
		}
		if !w.exact || len(w.alts) == 0 {
			if i := fl.writeFact(pathRef{raw: w.val}, parent); i >= 0 && w.outPaths && fl.facts[i].floor == nil && fl.facts[i].human == nil {
				fl.facts[i].human = reason("human.outside-write", "writes files a listing of places outside the project names")
			}
		}
		return
	}
	for _, alt := range braceExpand(w.val) {
		r := fl.resolvePath(alt, sc.cwd, true)
		// the gate cannot tell what the shell writes into package.json:
		// sed -i may rewrite a script as surely as npm pkg set
		if i := fl.writeFact(r, parent); i >= 0 && isPackageJSON(r) {
			scriptsWrite(fl.facts[i])
		}
	}
}

// readFact decides a read on its own: env dumps and secrets are human-only,
// the project is known-safe, anything else asks.
func (fl *factLog) readFact(r pathRef, parent int, listOnly bool) int {
	f := &rfact{kind: protocol.FactRead, path: r, parent: parent, listOnly: listOnly}
	switch {
	case r.known && (isEnvDumpPath(r.abs) || isEnvDumpPath(r.real)) || !r.known && isEnvDumpPath(r.raw):
		f.human = reason("human.env-dump", "reads a process environment")
	case !listOnly && fl.sensitive(r):
		f.human = reason("human.sensitive-read", "reads a sensitive file")
	case r.known && r.abs == "/dev/null" && r.real == r.abs:
		// diff /dev/null new.go, cmd < /dev/null: reads nothing
		f.safe = reason("gate.read", "/dev/null is empty")
	case !r.known:
		f.open = reason("ask.unknown-path", "a path only known at run time")
	case fl.inProject(r):
		f.safe = reason("gate.read", "read inside the project")
	default:
		f.open = reason("ask.outside-read", "read outside the project")
	}
	return fl.add(f)
}

// writeFact decides a write: perm-peer's own files and disks are floors;
// persistence, system and outside-project writes are human-only; a write in
// the project asks unless a rule or grant covers it.
func (fl *factLog) writeFact(r pathRef, parent int) int {
	if r.known && harmlessDevice(r.abs) || r.raw == "/dev/null" {
		return -1
	}
	return fl.add(fl.checkWrite(&rfact{kind: protocol.FactWrite, path: r, parent: parent}, false))
}

// deletedBy is the path whose persistence class a write stands for. A
// delete plants nothing, so a glob it removes (rm -rf build/*, which may
// match a build/.envrc) counts by the directory it empties: emptying
// .github/workflows or .git/hooks still changes what runs.
func deletedBy(r pathRef, deleting bool) pathRef {
	if !deleting || !r.glob || !r.known {
		return r
	}
	emptied := func(p string) string {
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			p = filepath.Dir(p[:i+1])
		}
		return filepath.Join(p, "x")
	}
	out := pathRef{raw: emptied(r.abs), abs: emptied(r.abs), real: emptied(r.real), known: true}
	for _, v := range r.via {
		out.via = append(out.via, emptied(v))
	}
	return out
}

func (fl *factLog) checkWrite(f *rfact, deleting bool) *rfact {
	r := f.path
	switch {
	case r.known && (diskDevice(r.abs) || diskDevice(r.real)):
		f.floor = reason("floor.disk-write", "writes a raw disk device")
	case fl.protectedWrite(r, deleting):
		f.floor = reason("floor.protected", "writes perm-peer's own policy, grants or database")
	case !r.known && fl.mayNameOwn(r.raw):
		f.human = reason("human.protected-unresolved", "writes a path only known at run time that may be perm-peer's own policy, grants or database")
	case fl.persistence(deletedBy(r, deleting)) != "":
		f.human = reason("human.persistence-write", "writes a "+fl.persistence(deletedBy(r, deleting)))
	case gitRef(r):
		f.human = reason("human.history-rewrite", "moves or deletes a git ref, past what the reflog shows")
	case !r.known:
		f.ask = reason("ask.unknown-path", "a path only known at run time")
	case slices.ContainsFunc(r.both(), func(p string) bool { return strings.HasPrefix(p, "/etc/") || p == "/etc" }):
		f.human = reason("human.system-write", "writes a system file")
	case !fl.inProject(r):
		f.human = reason("human.outside-write", "writes outside the project")
	}
	return f
}

// rmHow is how hard a deletion is: the flag spellings SPEC §5.3 lists
// (-f as well as -r) make a deletion of a floor target a floor, while
// only a recursive one of a path known at run time alone is human-only
// (SPEC §5.4: rm -rf of an unresolved variable; rm -f "$tmp" in a cleanup
// trap deletes one file and asks).
type rmHow uint8

const (
	rmPlain rmHow = iota
	rmForce
	rmRecursive
)

// deleteWord records the removal of a word's files; recursive deletion of
// /, system directories, home, the project or its parents is a floor.
func (fl *factLog) deleteWord(w word, sc *scope, parent int, how rmHow) {
	strong := how >= rmForce
	if w.dyn {
		for _, alt := range w.alts {
			fl.deleteWord(word{val: alt}, sc, parent, how)
		}
		for _, x := range w.extra {
			fl.deleteWord(word{val: x}, sc, parent, how)
		}
		f := &rfact{kind: protocol.FactDelete, path: pathRef{raw: w.val}, parent: parent}
		if emp := w.empty; emp != "" && strong {
			r := fl.resolvePath(emp, sc.cwd, false)
			if r.known && (hasGlob(emp) && fl.floorGlob(r) != "" || emp == "/*") {
				f.floor = reason("floor.rm-root", "an empty variable turns this into deleting "+emp)
			}
		}
		switch {
		case f.floor != nil:
		case how == rmRecursive:
			f.human = reason("human.rm-unresolved", "recursive deletion of a path only known at run time")
		case w.outPaths:
			f.human = reason("human.outside-write", "deletes files a listing of places outside the project names")
		}
		fl.add(fl.checkWrite(f, true))
		return
	}
	for _, alt := range braceExpand(w.val) {
		if alt == "" {
			// rm "" fails (no such file): it deletes nothing, not the cwd
			continue
		}
		r := fl.resolvePath(alt, sc.cwd, true)
		f := &rfact{kind: protocol.FactDelete, path: r, parent: parent}
		base := filepath.Base(alt)
		switch {
		case base == "." || base == ".." || alt == "." || alt == ".." || alt == "~" || alt == "~/" || strings.HasPrefix(alt, "~/*"):
			f.floor = reason("floor.rm-root", "deletes "+alt)
		case r.known && (fl.floorTarget(r.abs) || fl.floorTarget(r.real)):
			f.floor = reason("floor.rm-root", "deletes "+r.abs)
		case r.known && r.glob && fl.floorGlob(r) != "":
			f.floor = reason("floor.rm-root", "deletes everything matching "+fl.floorGlob(r))
		case r.known && r.glob && how == rmRecursive && fl.homeDirGlob(r) != "":
			f.floor = reason("floor.rm-root", "deletes "+fl.homeDirGlob(r))
		case !r.known && strong && hasGlob(alt):
			f.human = reason("human.rm-unresolved", "deletes a glob in an unknown directory")
		case !r.known && how == rmRecursive:
			f.human = reason("human.rm-unresolved", "recursive deletion of a path only known at run time")
		}
		if f.floor == nil {
			fl.checkWrite(f, true)
		}
		if f.floor == nil && f.human == nil && f.ask == nil && !fl.inProject(r) {
			f.human = reason("human.outside-write", "deletes outside the project")
		}
		if f.floor == nil && f.human == nil && (base == ".git" || strings.Contains(filepath.ToSlash(alt), ".git/objects") || strings.Contains(filepath.ToSlash(alt), ".git/refs")) {
			f.human = reason("human.history-rewrite", "deletes the repository's history")
		}
		fl.add(f)
	}
}
