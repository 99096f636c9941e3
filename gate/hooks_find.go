package gate

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/gate/internal/scripts"
	"github.com/perm-peer/perm-peer/protocol"
)

// findCall is a call of find: its words as package scripts' ReadFind
// reads them, and what the gate makes of its starting points.
type findCall struct {
	a     *analyzer
	f     *rfact
	idx   int
	args  []word
	sc    *scope
	x     scripts.Find
	roots []word // the starting points (. when none)
	// rootsInProject: every starting point is known and in the project;
	// rootsOutside: one is known and outside it
	rootsInProject, rootsOutside bool
	ok                           bool // known-safe so far
	s                            summary
}

// find lists files; -delete, -exec and -fprint make it more than a reader.
func (a *analyzer) find(f *rfact, idx int, args []word, sc *scope) summary {
	c := &findCall{a: a, f: f, idx: idx, args: args, sc: sc, ok: true, rootsInProject: true}
	c.x = scripts.ReadFind(len(args), func(i int) string { return args[i].val })
	c.roots = args[c.x.Roots:c.x.Expr]
	if len(c.roots) == 0 {
		c.roots = []word{{val: "."}}
	}
	for _, r := range c.roots {
		a.readWord(r, sc, idx, true)
		p := a.pathWord(r, sc, false)
		c.rootsInProject = c.rootsInProject && p.known && a.inProject(p)
		c.rootsOutside = c.rootsOutside || p.known && !a.inProject(p)
	}
	ranExec := false
	for _, act := range c.x.Actions {
		c.action(act)
		ranExec = ranExec || act.Kind == scripts.FindExec
	}
	s := &c.s
	s.secretList = findMaySelectSecrets(args)
	s.broadList = s.secretList && !c.x.Filtered && !c.x.Follows
	if c.ok && ranExec {
		f.safe = reason("gate.safe", "find runs only known-safe commands on the files it lists")
	} else if c.ok {
		f.safe = reason("gate.safe", "find without -exec, -delete or -fprint only lists")
		s.projList = c.rootsInProject
		s.outList = c.rootsOutside
		s.cleanList = c.rootsInProject && !s.secretList && !c.x.Follows
	} else if f.wrapper && f.floor == nil {
		f.ask = reason("ask.flag", "find that runs commands, deletes or writes files")
	}
	if c.x.Deletes {
		c.deleteFloor()
	}
	return c.s
}

// action turns one action of the expression into facts.
func (c *findCall) action(act scripts.FindAction) {
	a, sc := c.a, c.sc
	switch act.Kind {
	case scripts.FindDelete:
		c.ok = false
		for _, r := range c.roots {
			if c.x.Filtered {
				a.add(a.checkWrite(&rfact{kind: protocol.FactDelete, path: a.pathWord(r, sc, true), parent: -1}, false))
			} else {
				a.deleteWord(r, sc, -1, rmRecursive)
			}
		}
	case scripts.FindNamesFrom:
		// starting points read from a file: find prints them, or
		// names them in its errors, so the file's text shows
		if act.Arg >= 0 {
			a.readWord(c.args[act.Arg], sc, -1, false)
		}
	case scripts.FindWrite:
		c.ok = false
		if act.Arg >= 0 {
			a.writeWord(c.args[act.Arg], sc, -1)
		}
	case scripts.FindExec:
		c.exec(act)
	}
}

// exec analyses the command -exec runs on each file found: {} stands for
// a path under the roots, with what the expression says of it.
func (c *findCall) exec(act scripts.FindAction) {
	a, f, args := c.a, c.f, c.args
	cmd := args[act.At+1 : act.Arg]
	inner := append([]word{}, cmd...)
	for k := range inner {
		if strings.Contains(inner[k].val, "{}") {
			inner[k].dyn = true
			inner[k].secretPaths = findMaySelectSecrets(args)
			inner[k].broadPaths = !c.x.Filtered && !c.x.Follows
			inner[k].projPaths = inner[k].val == "{}" && c.rootsInProject
			inner[k].cleanPaths = !c.x.Follows
		}
	}
	mid := len(a.facts)
	if len(inner) > 0 {
		if !c.x.Filtered {
			a.execOverTree(f, c.idx, "find", cmd, c.roots, findRepl(), c.sc)
		}
		a.changesUnder(cmd, c.roots, findRepl(), false, c.sc)
		f.wrapper = true
		c.s.or(a.inner(inner, c.sc, c.idx))
	}
	// -exec grep PATTERN {} +: a known-safe command on the files
	// found keeps find known-safe; -ok asks a person at run time
	c.ok = c.ok && len(inner) > 0 && !act.Asks
	for _, g := range a.facts[mid:] {
		c.ok = c.ok && g.safe != nil && g.ask == nil && g.open == nil && g.human == nil && g.floor == nil
	}
}

// deleteFloor: find -delete asks, and on a root or the home with no
// filter it is rm -rf of it.
func (c *findCall) deleteFloor() {
	c.f.ask = reason("ask.flag", "find -delete removes files")
	for _, r := range c.roots {
		if p := c.a.pathWord(r, c.sc, false); p.known && c.a.floorTarget(p.abs) && !c.x.Filtered {
			c.f.floor = reason("floor.rm-root", "find "+p.abs+" -delete")
		}
	}
}

// findRepl and fdRepl are the placeholders find -exec and fd -x/-X fill
// with each path.
var (
	findRepl = lazyRE(`\{\}`)
	fdRepl   = lazyRE(`\{/?/?\.?\}`)
)

// execOverTree handles find/fd running cmd on every entry under roots with
// no filter: on a root or the home that is the command's recursive form on
// the root itself (rm → rm -rf /, chmod 777 → chmod -R 777 /), so its
// floors apply. What the command does is its file tool entry's (Does: it
// deletes; Recursive: its flag for a whole tree). repl finds the
// placeholders; without one fd appends the path.
func (a *analyzer) execOverTree(f *rfact, idx int, tool string, cmd, roots []word, repl *regexp.Regexp, sc *scope) {
	if len(cmd) == 0 || cmd[0].dyn {
		return
	}
	t := cmds.FileToolOf(strings.ToLower(filepath.Base(cmd[0].val)))
	if t == nil {
		return
	}
	for _, r := range roots {
		p := a.pathWord(r, sc, false)
		if !p.known || !a.floorTarget(p.abs) {
			continue
		}
		switch {
		case t.Does == cmds.Deletes || t.Does == cmds.DeletesTrees:
			f.floor = reason("floor.rm-root", tool+" "+p.abs+" -exec "+t.Cmd.Name)
		case t.Recursive != "":
			rec := []word{cmd[0], {val: t.Recursive}}
			placed := false
			for _, w := range cmd[1:] {
				if !w.dyn && repl.MatchString(w.val) {
					w = word{val: repl.ReplaceAllLiteralString(w.val, r.val)}
					placed = true
				}
				rec = append(rec, w)
			}
			if !placed {
				rec = append(rec, r)
			}
			a.inner(rec, sc, idx)
		}
	}
}

// changesUnder: a file tool run on each entry found (find -exec rm {},
// fd -x shred) deletes or writes files under the roots, as find -delete
// does, so the places checks (outside the project, persistence, perm-peer's
// own files) apply to each root as they do to -delete's. appends: the
// runner adds the entry's path when cmd has no placeholder (fd).
func (fl *factLog) changesUnder(cmd, roots []word, repl *regexp.Regexp, appends bool, sc *scope) {
	if len(cmd) == 0 || cmd[0].dyn || !appends && !slices.ContainsFunc(cmd[1:], func(w word) bool { return repl.MatchString(w.val) }) {
		return
	}
	t := cmds.FileToolOf(strings.ToLower(filepath.Base(cmd[0].val)))
	if t == nil {
		return
	}
	kind := protocol.FactWrite
	switch t.Does {
	case cmds.Deletes, cmds.DeletesTrees, cmds.Moves:
		kind = protocol.FactDelete
	case cmds.ChangesMeta, cmds.Tees:
	default:
		return // copies, links, syncs: the entries found are their sources
	}
	for _, r := range roots {
		fl.add(fl.checkWrite(&rfact{kind: kind, path: fl.pathWord(r, sc, true), parent: -1}, false))
	}
}

// findMaySelectSecrets reports a find expression whose name filters do not
// rule out secrets: find . (everything), -name .env, -name '*' (find's *
// matches dotfiles). A -name/-iname that cannot match a secret, or -type d,
// rules them out.
func findMaySelectSecrets(args []word) bool {
	for _, w := range args {
		switch w.val {
		case "-regex", "-iregex", "-o", "-or", "!", "-not", ",":
			return true // alternatives or negations: assume the worst
		}
	}
	filtered := false
	for i, w := range args {
		if i+1 >= len(args) {
			break
		}
		switch w.val {
		case "-type":
			if args[i+1].val == "d" {
				return false
			}
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			if args[i+1].dyn || patternMaySelectSecret(args[i+1].val, w.val != "-name" && w.val != "-iname") {
				return true
			}
			filtered = true
		}
	}
	return !filtered
}
