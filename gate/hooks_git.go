package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// gitCall is one git command being analysed: the exec fact of git SUB
// (without the global options), where it runs, and the subcommand's words.
type gitCall struct {
	a    *analyzer
	g    *rfact // the fact of git SUB …
	idx  int    // g's index
	sc   *scope // the directory git runs in (after -C)
	cwd  string
	args []word // git's words
	at   int    // the subcommand's index in args
	sub  string
	rest []word // the subcommand's words
	ops  []int  // rest's operands
	dd   int    // the index of -- in rest, -1 when there is none
	// unsafe: why a global option or flag makes the call not known-safe
	unsafe    string
	otherRepo bool    // --git-dir or --work-tree outside the project
	workTree  pathRef // --work-tree's directory
	gs        searchCmd
	spec      *cmds.GitSub // what the table says of the subcommand
	// done: a hook decided the call, and out is its summary (a push, a
	// credential read, a config dump)
	done bool
	out  summary
}

// noGitSub is the table's word on a subcommand it does not have.
var noGitSub cmds.GitSub

// decided ends the analysis of the call with summary s.
func (c *gitCall) decided(s summary) { c.out, c.done = s, true }

// human makes the subcommand human-only.
func (c *gitCall) human(code, why string) { c.g.human = reason(code, why) }

// safe makes a read-only subcommand known-safe, unless a flag is unsafe.
func (c *gitCall) safe() {
	if c.unsafe == "" {
		c.g.safe = reason("gate.safe", "git "+c.sub+" only reads")
	}
}

// opVals are the values of the subcommand's operands.
func (c *gitCall) opVals() []string {
	out := make([]string, 0, len(c.ops))
	for _, o := range c.ops {
		out = append(out, c.rest[o].val)
	}
	return out
}

// git polices git's global options and subcommands (SPEC §5.2, §5.4),
// the table's hook "git" (cmds/git.go): the global options, the
// subcommand, what the generic subcommand tables say (git init
// --template, git daemon), and the packs it writes.
func (a *analyzer) git(f *rfact, idx int, lb string, args []word, sc *scope) summary {
	s := gitSubcommand(a, f, idx, args, sc)
	s.or(a.subcmdEffects(f, idx, lb, args))
	// an archive or bundle of the repository carries its tracked .env or
	// its whole history: onto stdout (git archive HEAD | curl -T - U) or
	// into a file uploaded later
	stdout, files := gitPacks(args)
	for _, w := range files {
		a.markTainted(a.resolvePath(w.val, sc.cwd, true))
	}
	s.taint = s.taint || stdout
	return s
}

// gitSubcommand reads the global options, then the flags and the
// subcommand, each a stage of gitCall.
func gitSubcommand(a *analyzer, f *rfact, idx int, args []word, sc *scope) summary {
	c, ok := gitGlobals(a, f, idx, args, sc)
	if !ok {
		return summary{}
	}
	c.flags()
	c.ops = operands(c.rest, nil)
	c.dd = switchesOnly.End(len(c.rest), wordAt(c.rest)) - 1
	c.sendsSecrets()
	c.writesElsewhere()
	c.workTreeWrites()
	if s, done := c.subcommand(); done {
		return s
	}
	return c.listing()
}

// toolHook is the hook the table names for program lb ("" for none).
func toolHook(lb string) string {
	if t := cmds.ToolOf(lb); t != nil {
		return t.Hook
	}
	return ""
}

// gitGlobals reads git's global options (-C, -c, --git-dir, --work-tree …)
// and returns the subcommand to analyse, with its own exec fact when there
// were options, so rules on git push also see git -C dir push; false when
// there is no subcommand.
func gitGlobals(a *analyzer, f *rfact, idx int, args []word, sc *scope) (gitCall, bool) {
	o := gitOptions{a: a, sc: sc, idx: idx, cwd: sc.cwd}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].val, "-") {
		i = o.read(args, i) + 1
	}
	cwd, unsafe, cwdChanged, otherRepo, workTree := o.cwd, o.unsafe, o.cwdChanged, o.otherRepo, o.workTree
	g := f
	gidx := idx
	if i > 0 && i < len(args) {
		// analyse "git SUB ..." without the global options, so rules on
		// git push also see git -C dir push
		f.wrapper = true
		f.safe = reason("gate.wrapper", "git global options; the subcommand is analysed")
		if unsafe != "" {
			f.safe, f.ask = nil, reason("ask.flag", unsafe)
		}
		argv := append([]string{"git"}, f.argv[i+1:]...)
		g = &rfact{kind: protocol.FactExec, argv: argv, static: max(0, f.static-i), parent: idx, cwd: cwd}
		gidx = a.add(g)
		a.noAlways = a.noAlways || cwdChanged || otherRepo
	}
	if i >= len(args) {
		if unsafe == "" {
			g.safe = reason("gate.safe", "git without a subcommand prints help")
		}
		return gitCall{}, false
	}
	spec := cmds.GitSubOf(args[i].val)
	if spec == nil {
		spec = &noGitSub
	}
	return gitCall{a: a, g: g, idx: gidx, sc: &scope{cwd: cwd}, cwd: cwd, args: args, at: i, sub: args[i].val, rest: args[i+1:],
		unsafe: unsafe, otherRepo: otherRepo, workTree: workTree, spec: spec}, true
}

// gitOptions is what git's global options say: where git runs, whether
// an option makes the call not known-safe, another repository or work tree.
type gitOptions struct {
	a   *analyzer
	sc  *scope // the scope of the call, before -C
	idx int    // the call's exec fact
	cwd string // the directory git runs in ("" when only known at run time)
	// unsafe: why an option makes the call not known-safe
	unsafe     string
	cwdChanged bool
	otherRepo  bool    // --git-dir or --work-tree outside the project
	workTree   pathRef // --work-tree's directory
}

// read reads the global option args[i] by its entry in the table
// (cmds.GitGlobal) and returns the index of the last word it takes: its
// value's when that is the next word. An option the table lacks takes no
// value.
func (o *gitOptions) read(args []word, i int) int {
	v := args[i].val
	opt, val, attached := cmds.GitGlobalOf(v)
	if opt == nil {
		if !cmds.GitSwitch(v) {
			// an option git's table lacks may run or write something
			// (SPEC §5.1); git itself refuses most of them
			o.unsafe = "git " + clip(v, 80) + " is a flag the gate does not know"
		}
		return i
	}
	w, last := args[i], i // the word holding the value, and the last word taken
	if opt.Value && !attached {
		last = i + 1
		if i+1 < len(args) {
			w, val = args[i+1], args[i+1].val
		}
	}
	given := attached || last < len(args) && last > i
	switch opt.Does {
	case cmds.GitCwd:
		o.chdir(w, given)
	case cmds.GitConfig, cmds.GitConfigEnv:
		o.unsafe = "git " + v + " sets configuration that can run programs"
		if attached {
			o.unsafe = "git " + v
		}
		if opt.Does == cmds.GitConfig && given {
			o.config(w)
		}
	case cmds.GitExecPath:
		o.unsafe = "git " + v
	case cmds.GitDir, cmds.GitWorkTree:
		o.repo(opt, w, val)
	}
	return last
}

// chdir is -C DIR: git runs in DIR.
func (o *gitOptions) chdir(w word, given bool) {
	if given {
		if w.dyn {
			o.cwd = ""
		} else {
			o.cwd = o.a.resolvePath(w.val, o.cwd, false).abs
		}
	}
	o.cwdChanged = true
}

// config is -c KEY=VALUE: a command the value names is analysed, and a
// config file an include key names is read for more.
func (o *gitOptions) config(w word) {
	o.a.gitConfigCommand(w.val, o.sc, o.idx)
	if k, v, ok := strings.Cut(w.val, "="); ok && gitIncludeKey().MatchString(strings.ToLower(k)) {
		o.a.gitConfigFile(word{val: v, dyn: w.dyn, procText: w.procText, sub: w.sub}, o.sc, o.idx)
	}
}

// repo is --git-dir DIR or --work-tree DIR (w holds p): another
// repository or work tree is like git -C for reads, and its config can
// run programs (core.fsmonitor, core.pager).
func (o *gitOptions) repo(opt *cmds.GitGlobal, w word, p string) {
	a := o.a
	r := a.resolvePath(p, o.cwd, false)
	if p == "" || w.dyn || !a.inProject(r) {
		o.otherRepo = true
	}
	if !ownRepo(r, a.env.Project, opt.Does == cmds.GitDir, w.dyn) && o.unsafe == "" {
		o.unsafe = "git " + opt.Name + " names a repository or work tree other than the project's own"
	}
	if opt.Does == cmds.GitWorkTree {
		o.workTree = a.resolveMaybe(w, p, &scope{cwd: o.cwd}, true)
	}
}

// flags analyses what any subcommand's flags do: commands git runs, hooks
// it installs, message files read into history, and the flags that
// write files or run programs (in every abbreviation git takes).
func (c *gitCall) flags() {
	sub, rest, g, gsc, gidx, a, args := c.sub, c.rest, c.g, c.sc, c.idx, c.a, c.args
	c.runsCommand()
	if lookupSubcmd(configWriters, "git", args[c.at:]) {
		c.human("human.persistence-write", "git "+sub+" installs hooks or scheduled jobs")
	}
	if c.spec.Message {
		// the message file (-F, --file, -t, --template) is read into history
		for j, w := range rest {
			v := w.val
			switch {
			case (v == "-F" || v == "--file" || v == "-t" || v == "--template") && j+1 < len(rest):
				a.readWord(rest[j+1], gsc, gidx, false)
			case strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "--template="):
				_, p, _ := strings.Cut(v, "=")
				a.readWord(word{val: p, dyn: w.dyn}, gsc, gidx, false)
			case strings.HasPrefix(v, "-F") && len(v) > 2:
				a.readWord(word{val: v[2:], dyn: w.dyn}, gsc, gidx, false)
			}
		}
	}
	if sub == "grep" {
		c.gs = readSearch(cmds.GitGrep(), rest)
		for _, cmd := range c.gs.preCmds {
			a.reparse(cmd, gsc, gidx) // the pager runs through the shell
		}
	}
	c.tableRoles()
	// git takes unambiguous abbreviations of long options (--outp, --ext-d)
	risky := cmds.GitRisky()
	if hasLongAbbrev(rest, risky.Long...) || slices.ContainsFunc(risky.Short, func(p string) bool { return hasShortPrefix(rest, p) }) ||
		c.gs.pre { // git grep -iOid: -O takes the rest of the cluster as its pager
		c.unsafe = "git " + sub + " with a flag that writes files or runs programs"
		// flag-policed: asks whatever rule covers git SUB
		g.ask = reason("ask.flag", c.unsafe)
		c.writesFlagValues(risky.Writes)
	}
}

// tableRoles applies what the subcommand's declaration (cmds.GitSub.Cmd)
// says its flags do: a file it reads (ls-files -X FILE), or a flag that
// makes the call not known-safe (cat-file --batch prints the objects
// stdin names, which the gate does not see).
func (c *gitCall) tableRoles() {
	if c.spec.Cmd == nil {
		return
	}
	for _, u := range parseArgs(c.spec.Cmd, c.rest).Uses {
		if w, has := valueWord(c.rest, u); has && u.Flag.Role == argv.Read {
			c.a.readWord(w, c.sc, c.idx, false)
		}
		if u.Flag.Effect == argv.NotSafe {
			c.unsafe = "git " + c.sub + " " + clip(c.rest[u.At].val, 80)
			c.g.ask = reason("ask.flag", c.unsafe)
		}
	}
}

// writesFlagValues records the writes of the long options names (or a
// prefix of one), --output=FILE or --output FILE, wherever they are.
func (c *gitCall) writesFlagValues(names []string) {
	for j, w := range c.rest {
		n, v, eq := strings.Cut(strings.TrimPrefix(w.val, "--"), "=")
		if !strings.HasPrefix(w.val, "--") || n == "" || !slices.ContainsFunc(names, func(name string) bool { return strings.HasPrefix(name[2:], n) }) {
			continue
		}
		if !eq && j+1 < len(c.rest) {
			v = c.rest[j+1].val
		}
		c.a.writeFact(c.a.resolveMaybe(w, v, c.sc, true), -1)
	}
}

// sendsSecrets floors a secret in the words of a subcommand that talks to a remote.
func (c *gitCall) sendsSecrets() {
	g, args := c.g, c.args
	if c.spec.Remote {
		var hosts []string
		for _, w := range args {
			if h := urlHost(w.val); h != "" {
				hosts = append(hosts, h)
			}
		}
		for _, w := range args {
			// a token in the URL or an -c http.extraHeader goes to the URL's host
			if w.taint || w.secretName != "" && secretOffService(w.secretName, hosts) {
				g.floor = reason("floor.exfil", "a secret is sent to the network by git")
			}
		}
		if slices.ContainsFunc(args, literalCredential) {
			g.human = reason("human.secret-url", "git sends what looks like a credential")
		}
	}
}

// writesElsewhere records files written where an option says, not in the
// work tree, by the reader the table names (cmds.GitSub.Files).
func (c *gitCall) writesElsewhere() {
	c.runHook(c.spec.Files)
}

// archiveOutput is git archive -o FILE: the archive is written to FILE.
func (c *gitCall) archiveOutput() {
	for _, w := range optionValues(c.rest, 'o', "--output") {
		c.a.writeWord(w, c.sc, c.idx)
	}
}

// indexPrefix is checkout-index --prefix=DIR: the files are written under DIR.
func (c *gitCall) indexPrefix() {
	for _, w := range c.rest {
		if p, ok := strings.CutPrefix(w.val, "--prefix="); ok {
			c.a.writeFact(c.a.resolveMaybe(w, p, c.sc, true), c.idx)
		}
	}
}

// patches are apply's and am's: the files the patches name are written
// (under --directory DIR, which with --unsafe-paths may leave the project).
func (c *gitCall) patches() {
	for _, w := range optionValues(c.rest, 0, "--directory") {
		c.a.writeWord(w, c.sc, c.idx)
	}
	files := make([]word, 0, len(c.ops))
	for _, o := range c.ops {
		files = append(files, c.rest[o])
	}
	c.a.patchInput(files, c.sc, c.idx)
}

// hashObject reads its operands: -w stores the files in the repository.
func (c *gitCall) hashObject() {
	for _, o := range c.ops {
		c.a.readWord(c.rest[o], c.sc, c.idx, false)
	}
}

// workTreeWrites records the writes under --work-tree=DIR.
func (c *gitCall) workTreeWrites() {
	rest, gidx, a, workTree := c.rest, c.idx, c.a, c.workTree
	if workTree.raw != "" && c.spec.WorkTree {
		// --work-tree=DIR: the files it writes are under DIR
		a.writeFact(workTree, gidx)
		if dd := c.dd; dd >= 0 && workTree.known {
			for _, w := range rest[dd+1:] {
				a.writeFact(a.resolveMaybe(w, w.val, &scope{cwd: workTree.abs}, true), gidx)
			}
		}
	}
}

// subcommand decides what the subcommand does, by its class in the table
// and its hook; done: the call is decided (a push, a credential read, a
// config dump).
func (c *gitCall) subcommand() (s summary, done bool) {
	c.runHook(c.spec.Hook)
	switch c.spec.Class {
	case cmds.GitReads:
		c.safe()
	case cmds.GitRewrites:
		c.human("human.history-rewrite", "git "+c.sub+" "+c.spec.Why)
	}
	return c.out, c.done
}

// hook runs the reader of a git subcommand's words that the table names
// (cmds.GitSub.Hook, Files); false for a name it does not have. A switch,
// not a map of functions: a call through a function value would move
// every gitCall to the heap.
func (c *gitCall) hook(name string) bool {
	switch name {
	case "stage":
		c.add()
	case "refspecs":
		c.fetch()
	case "clone":
		c.clone()
	case "push":
		c.push()
	case "reset":
		c.reset()
	case "clean":
		c.clean()
	case "checkout":
		c.checkout()
	case "delete":
		c.rm()
	case "rename":
		c.mv()
	case "lfs":
		c.lfs()
	case "credential":
		c.credential()
	case "gc":
		c.gc()
	case "rebase":
		c.rebase()
	case "amend":
		c.amend()
	case "overwrite":
		c.overwrite()
	case "reflog":
		c.reflog()
	case "queries":
		c.queries()
	case "branch":
		c.branch()
	case "stash":
		c.stash()
	case "tag":
		c.tag()
	case "remote":
		c.remote()
	case "worktree":
		c.worktree()
	case "symbolic-ref":
		c.symbolicRef()
	case "config":
		c.config()
	case "var":
		c.vars()
	case "blame":
		c.blame()
	case "show":
		c.show()
	case "log":
		c.log()
	case "search":
		c.grep()
	case "ls-remote":
		c.lsRemote()
	case "submodule":
		c.submodule()
	case "archive-output":
		c.archiveOutput()
	case "index-prefix":
		c.indexPrefix()
	case "patches":
		c.patches()
	case "hash-object":
		c.hashObject()
	default:
		return false
	}
	return true
}

// runHook runs hook name; a name the table gives that no reader has is a
// bug in the table, which fails closed (Analyze turns the panic into an ask).
func (c *gitCall) runHook(name string) {
	if name != "" && !c.hook(name) {
		panic("gate: git hook " + name + " is not defined")
	}
}

// reset --hard (--merge, --keep) discards work.
func (c *gitCall) reset() {
	if hasLongAbbrev(c.rest, "--hard", "--merge", "--keep") {
		c.human("human.history-rewrite", "git reset --hard discards work")
	}
}

// credential prints the stored password (git credential fill).
func (c *gitCall) credential() {
	c.a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: "git " + c.sub}, parent: c.idx,
		human: reason("human.sensitive-read", "reads stored git credentials")})
	c.decided(summary{taint: true})
}

// gc --prune deletes unreachable commits, as git prune does.
func (c *gitCall) gc() {
	if hasLongAbbrev(c.rest, "--prune") {
		c.human("human.history-rewrite", "git "+c.sub+" "+c.spec.Why)
	}
}

// rebase rewrites commits; --abort and --quit end a rebase without
// rewriting more.
func (c *gitCall) rebase() {
	if !hasLongAbbrev(c.rest, "--abort", "--quit", "--show-current-patch") {
		c.g.human, c.g.clearWord = reason("human.history-rewrite", "git rebase rewrites commits"), c.sub // Bash(git rebase:*) clears it
	}
}

// amend: commit --amend replaces the last commit.
func (c *gitCall) amend() {
	if hasLongAbbrev(c.rest, "--amend") {
		c.g.human, c.g.clearWord = reason("human.history-rewrite", "git commit --amend replaces the last commit"), "--amend"
	}
}

// overwrite: read-tree and checkout-index with -u/-f, --reset or --force
// overwrite files in the work tree.
func (c *gitCall) overwrite() {
	if hasShort(c.rest, "uf") || hasFlag(c.rest, "--reset", "--force") {
		c.human("human.history-rewrite", "git "+c.sub+" overwrites files in the work tree")
	}
}

// vars: git var -l lists git config; a variable's value is known-safe.
func (c *gitCall) vars() {
	if hasFlag(c.rest, "-l") {
		c.g.ask = reason("ask.config-dump", "git var -l lists git config, which may hold credentials")
		c.decided(summary{})
		return
	}
	c.safe()
}

// submodule [status] prints the commit each submodule has checked out.
func (c *gitCall) submodule() {
	if len(c.ops) == 0 || c.rest[c.ops[0]].val == "status" {
		c.safe()
	}
}

// add stages files: a secret staged is the first step to publishing it.
func (c *gitCall) add() {
	rest, ops, gsc, gidx, a := c.rest, c.ops, c.sc, c.idx, c.a
	// staging a secret is the first step to publishing it
	for _, o := range ops {
		if r := a.resolveMaybe(rest[o], rest[o].val, gsc, false); a.sensitive(r) {
			a.readFact(r, gidx, false)
		}
	}
}

// lfs reads git lfs install as a hook install.
func (c *gitCall) lfs() {
	if len(c.ops) > 0 && (c.rest[c.ops[0]].val == "install" || c.rest[c.ops[0]].val == "update") {
		c.human("human.persistence-write", "git lfs install writes git hooks")
	}
}

// lsRemote is known-safe for a configured remote only: a URL sends
// whatever it spells to any host.
func (c *gitCall) lsRemote() {
	rest, ops := c.rest, c.ops
	if len(ops) == 0 || len(ops) >= 1 && !strings.ContainsAny(rest[ops[0]].val, ":/") && !rest[ops[0]].dyn {
		c.safe()
	}
}

// fetch reads a forced refspec as a history rewrite.
func (c *gitCall) fetch() {
	rest := c.rest
	// +SRC:DST (or -f with SRC:DST) force-updates DST: a local branch loses its
	// commits like after a force-push; remote-tracking refs are git's own
	force := hasLongAbbrev(rest, "--force") || hasShort(rest, "f")
	for _, o := range c.opVals() {
		_, dst, ok := strings.Cut(o, ":")
		if ok && dst != "" && (force || strings.HasPrefix(o, "+")) && !strings.HasPrefix(dst, "refs/remotes/") {
			c.human("human.history-rewrite", "git fetch with a forced refspec overwrites local branches")
		}
	}
}

// clone writes the directory it creates; its hooks and programs ask.
func (c *gitCall) clone() {
	rest, g, gsc, gidx, a := c.rest, c.g, c.sc, c.idx, c.a
	if hasLongAbbrev(rest, "--template", "--separate-git-dir") {
		g.ask = reason("ask.flag", "git clone --template installs hooks that run at once")
	}
	if hasLongAbbrev(rest, "--config") || hasShort(rest, "cu") {
		g.ask = reason("ask.flag", "git clone -c/-u sets configuration or a program that runs")
	}
	cops := operands(rest, map[string]bool{"-b": true, "--branch": true, "-o": true, "--origin": true, "--depth": true,
		"-c": true, "--config": true, "--reference": true, "--reference-if-able": true, "-u": true, "--upload-pack": true,
		"-j": true, "--jobs": true, "--filter": true, "--shallow-since": true, "--shallow-exclude": true, "--server-option": true})
	if len(cops) > 1 {
		a.writeWord(rest[cops[1]], gsc, gidx) // the directory it creates
	}
}

// push reads a force-push, a remote deletion or a push to a URL.
func (c *gitCall) push() {
	rest, ops, g := c.rest, c.ops, c.g
	// a URL, or --repo, instead of a configured remote: the repository goes anywhere
	if hasLongAbbrev(rest, "--repo") || len(ops) > 0 && isRemoteURL(rest[ops[0]].val) {
		g.ask = reason("ask.flag", "git push to a URL, not a configured remote")
	}
	// git takes unique prefixes of long options: --force-w, --dele, --mi
	force := hasLongAbbrev(rest, "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune") || hasShort(rest, "fd")
	for _, o := range c.opVals() {
		if strings.HasPrefix(o, "+") || strings.HasPrefix(o, ":") {
			force = true
		}
	}
	if force {
		c.human("human.force-push", "force-push or remote deletion rewrites shared history")
	}
	c.decided(summary{net: true})
}

// clean reads git clean -f as a history rewrite; -n only reads.
func (c *gitCall) clean() {
	rest := c.rest
	if hasShort(rest, "f") || hasLongAbbrev(rest, "--force") {
		c.human("human.history-rewrite", "git clean -f deletes untracked files")
	} else if hasShort(rest, "n") || hasFlag(rest, "--dry-run") {
		c.safe()
	}
}

// checkout finds the forms that discard local changes or overwrite perm-peer's files.
func (c *gitCall) checkout() {
	sub, rest, g, gsc, gidx, a := c.sub, c.rest, c.g, c.sc, c.idx, c.a
	// -B / -C reset an existing branch to another commit
	discard := hasLongAbbrev(rest, "--force", "--discard-changes", "--force-create") || hasShort(rest, "f") && sub != "restore" ||
		sub == "checkout" && hasShort(rest, "B") || sub == "switch" && hasShort(rest, "C")
	for _, o := range c.opVals() {
		if o == "." || o == ":/" || o == "*" {
			discard = true
		}
	}
	// pathspecs (restore's operands, checkout's after --) overwrite
	// uncommitted work; a directory or pattern is checkout -- . for a tree
	dd := c.dd
	if sub == "restore" || sub == "checkout" && dd >= 0 {
		from := rest
		if sub == "checkout" {
			from = rest[dd:]
		}
		for _, o := range operands(from, map[string]bool{"-s": true, "--source": true}) {
			if from[o].dyn || c.broadPathspec(from[o].val) {
				discard = true
			}
		}
		if sub == "restore" && hasFlag(rest, "--pathspec-from-file") {
			discard = true
		}
	}
	staged := hasFlag(rest, "--staged") || hasShort(rest, "S")
	worktree := hasFlag(rest, "--worktree") || hasShort(rest, "W")
	if sub == "restore" && staged && !worktree {
		discard = false // only unstages
	}
	if sub == "restore" && staged && worktree && !discard {
		// a grant for git restore --staged must not cover it
		g.ask = reason("ask.flag", "git restore --worktree discards local changes")
	}
	if discard {
		c.human("human.history-rewrite", "git "+sub+" discards local changes")
	}
	// a pathspec of perm-peer's own files or of a persistence file
	// overwrites it from the index or a commit (checkout HEAD~ .perm-peer,
	// checkout evil -- CLAUDE.md, restore --source=X .github/workflows/ci.yml)
	if !(sub == "restore" && staged && !worktree) {
		for _, o := range operands(rest, map[string]bool{"-s": true, "--source": true, "-b": true, "-B": true, "-c": true, "-C": true, "--orphan": true}) {
			if r := a.resolveMaybe(rest[o], rest[o].val, gsc, true); a.protectedWrite(r, false) || a.persistence(r) != "" {
				a.writeFact(r, gidx)
			}
		}
	}
}

// rm deletes its operands unless --cached.
func (c *gitCall) rm() {
	rest, gsc, gidx, a := c.rest, c.sc, c.idx, c.a
	if !hasFlag(rest, "--cached") {
		how := rmPlain
		if hasShort(rest, "f") || hasFlag(rest, "--force") {
			how = rmForce
		}
		if hasShort(rest, "r") {
			how = rmRecursive
		}
		for _, o := range operands(rest, nil) {
			a.deleteWord(rest[o], gsc, gidx, how)
		}
	}
}

// mv renames like mv: a secret under another name.
func (c *gitCall) mv() {
	rest, gsc, gidx, a := c.rest, c.sc, c.idx, c.a
	// git mv .env notes.txt renames like mv: a secret under a name
	// later reads do not recognise (the rest stays git's own rules:
	// git mv .perm-peer x is human.protected-touch)
	if o := operands(rest, nil); len(o) > 1 {
		// moving into or out of perm-peer's own files writes them
		for _, i := range o {
			if r := a.resolveMaybe(rest[i], rest[i].val, gsc, true); a.protectedWrite(r, false) {
				a.writeFact(r, gidx)
			}
		}
		for _, i := range o[:len(o)-1] {
			if r := a.resolveMaybe(rest[i], rest[i].val, gsc, false); a.sensitive(r) {
				a.add(&rfact{kind: protocol.FactRead, path: r, parent: gidx,
					human: reason("human.sensitive-read", "git mv gives a sensitive file another name")})
			}
		}
	}
}

// queries finds a group's action known-safe when the table declares it
// among the group's read-only actions (git notes list, git bisect log).
func (c *gitCall) queries() {
	if len(c.ops) > 0 && !c.rest[c.ops[0]].dyn && c.spec.Cmd.Sub(c.rest[c.ops[0]].val) != nil {
		c.safe()
	}
}

// reflog shows the reflog or destroys recovery points.
func (c *gitCall) reflog() {
	rest, ops := c.rest, c.ops
	if len(ops) > 0 && (rest[ops[0]].val == "expire" || rest[ops[0]].val == "delete") {
		c.human("human.history-rewrite", "git reflog "+rest[ops[0]].val+" destroys recovery points")
	} else {
		// git reflog [show] is git log -g: -p .env prints the secret's changes
		c.safe()
		c.log()
	}
}

// branch reads deleting or overwriting a branch as a history rewrite.
func (c *gitCall) branch() {
	rest, ops := c.rest, c.ops
	del := hasShort(rest, "d") || hasLongAbbrev(rest, "--delete")
	force := hasShort(rest, "f") || hasLongAbbrev(rest, "--force")
	if hasShort(rest, "DMC") || del && force || force && len(ops) > 1 {
		// -D deletes, -M/-C overwrite a branch, -f NAME START moves one
		c.human("human.history-rewrite", "git branch deletes or overwrites a branch")
	} else if !hasFlag(rest, "-d", "--delete", "-m", "-M", "-c", "-C", "--move", "--copy", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-f", "--force") &&
		(len(ops) == 0 || hasFlag(rest, "--list", "-l", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")) {
		c.safe()
	}
}

// stash lists, shows or destroys stashed work.
func (c *gitCall) stash() {
	rest, ops := c.rest, c.ops
	if len(ops) > 0 && (rest[ops[0]].val == "list" || rest[ops[0]].val == "show") {
		c.safe()
	}
	if len(ops) > 0 && (rest[ops[0]].val == "drop" || rest[ops[0]].val == "clear") {
		c.human("human.history-rewrite", "git stash "+rest[ops[0]].val+" destroys stashed work")
	}
}

// tag reads deleting or moving a tag as a history rewrite.
func (c *gitCall) tag() {
	rest, ops := c.rest, c.ops
	if hasFlag(rest, "-d", "--delete", "-f", "--force") || hasShort(rest, "df") {
		c.human("human.history-rewrite", "git tag -d/-f deletes or moves a tag")
	}
	// --contains, --merged, --points-at and their negations imply --list
	// (git-tag(1)): the operands are patterns, no tag is created
	if len(ops) == 0 || hasFlag(rest, "-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at") &&
		!hasFlag(rest, "-d", "--delete", "-f", "--force", "-a", "-s", "-m") {
		if !hasFlag(rest, "-d", "--delete", "-f", "--force", "-a", "-s", "-m", "-F") {
			c.safe()
		}
	}
}

// remote prints URLs or changes where pushes go.
func (c *gitCall) remote() {
	rest, ops := c.rest, c.ops
	switch {
	case len(ops) == 0 || rest[ops[0]].val == "show" || rest[ops[0]].val == "get-url":
		c.safe()
		// git remote -v prints the URLs, a token written into one too
		c.readConfig()
	case rest[ops[0]].val == "add" || rest[ops[0]].val == "set-url" || rest[ops[0]].val == "rename":
		// later pushes and fetches go where the new URL says
		c.human("human.persistence-write", "git remote "+rest[ops[0]].val+" changes where pushes and fetches go")
	}
}

// worktree lists, removes or checks out work trees.
func (c *gitCall) worktree() {
	rest, ops, gsc, gidx, a := c.rest, c.ops, c.sc, c.idx, c.a
	if len(ops) > 0 && rest[ops[0]].val == "list" {
		c.safe()
	}
	if len(ops) > 0 && rest[ops[0]].val == "remove" && (hasFlag(rest, "--force") || hasShort(rest, "f")) {
		c.human("human.history-rewrite", "git worktree remove --force deletes uncommitted work")
	}
	if len(ops) > 0 && rest[ops[0]].val == "add" {
		// git worktree add [-b BRANCH] PATH: checks files out at PATH
		add := rest[ops[0]+1:]
		if p := operands(add, map[string]bool{"-b": true, "-B": true, "--reason": true}); len(p) > 0 {
			a.writeWord(add[p[0]], gsc, gidx)
		}
	}
}

// symbolicRef with a target or -d moves a ref.
func (c *gitCall) symbolicRef() {
	rest := c.rest
	// with a target (or -d) it rewrites HEAD or another ref, like update-ref
	if len(operands(rest, map[string]bool{"-m": true})) > 1 || hasShort(rest, "d") || hasFlag(rest, "--delete") {
		c.human("human.history-rewrite", "git symbolic-ref moves a ref, past what the reflog shows")
	} else {
		c.safe()
	}
}

// blame reads its file operands.
func (c *gitCall) blame() {
	rest, ops, gsc, gidx, a := c.rest, c.ops, c.sc, c.idx, c.a
	for j, w := range rest {
		if w.val == "--contents" && j+1 < len(rest) {
			a.readWord(rest[j+1], gsc, gidx, false)
		}
	}
	for _, o := range ops {
		a.readWord(rest[o], gsc, gidx, false)
	}
}

// show reads the files its operands name.
func (c *gitCall) show() {
	rest, ops, gsc, gidx, cwd, a := c.rest, c.ops, c.sc, c.idx, c.cwd, c.a
	// git show --stat REV -- .env names the file, as git log does; REV:F
	// prints F's contents whatever the flags
	namesOnly := gitNamesOnly(false, c.flagWords())
	for _, o := range ops {
		v := rest[o].val
		if colon := strings.IndexByte(v, ':'); colon >= 0 && colon+1 < len(v) {
			a.readFact(a.resolvePath(v[colon+1:], cwd, false), gidx, false)
		} else {
			a.readWord(rest[o], gsc, gidx, namesOnly)
		}
		c.pathspecGlob(rest[o], namesOnly)
	}
}

// log reads the paths its operands name.
func (c *gitCall) log() {
	sub, rest, ops, gsc, gidx, a := c.sub, c.rest, c.ops, c.sc, c.idx, c.a
	// operands may be paths: git diff .env shows the secret's changes;
	// git log --format=%ci -- .env or git diff --stat only name them
	namesOnly := gitNamesOnly(c.spec.NamesOnly, c.flagWords())
	for _, o := range ops {
		if sub == "log" && o > 0 && rest[o-1].val == "-L" {
			continue // read below
		}
		// for f in $(git ls-files): git diff -- "$f" shows part of
		// what git diff over the whole tree does
		w := rest[o]
		a.readWord(w, gsc, gidx, namesOnly || w.dyn && w.projPaths && w.secretPaths && w.broadPaths)
		c.pathspecGlob(w, namesOnly)
	}
	// git log -L START,END:FILE, -L :FUNC:FILE, -L /regex/,+5:FILE
	// print lines of FILE, after the last colon; START may be /regex/
	for i, w := range c.flagWords() {
		v, ok := strings.CutPrefix(w.val, "-L")
		if sub != "log" || !ok || w.dyn {
			continue
		}
		if v == "" && i+1 < len(rest) {
			w = rest[i+1]
			v = w.val
		}
		if c := strings.LastIndexByte(v, ':'); c >= 0 && !w.dyn {
			v = v[c+1:]
		}
		a.readWord(word{val: v, dyn: w.dyn}, gsc, gidx, false)
	}
}

// pathspecGlob reads a pathspec that is a wildcard aimed at secrets as
// the secrets it selects: git's * and ? match a leading dot and a /, so
// git show HEAD -- '*.env' or git log -p -- ':/*env' print .env's
// contents from history even where the work tree holds no file the
// shell's glob would match. One that also matches ordinary source names
// ('*', 'src/*') reads the tree, as git diff without a pathspec does.
// namesOnly: the call prints only names (git log --stat).
func (c *gitCall) pathspecGlob(w word, namesOnly bool) {
	if w.dyn || namesOnly || !pathspecAimsAtSecret(w.val) {
		return
	}
	c.a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: w.val}, parent: c.idx,
		human: reason("human.sensitive-read", "a git pathspec whose wildcard matches a leading dot may select a secret such as .env")})
}

// pathspecAimsAtSecret reports a git pathspec with a wildcard (after its
// magic: :/, :(top,icase)) that can match a secret's name and no plain
// source file's; an exclusion (:!, :^, :(exclude)) selects nothing, and
// :(literal) has no wildcard.
func pathspecAimsAtSecret(v string) bool {
	magic := ""
	switch {
	case strings.HasPrefix(v, ":("):
		end := strings.IndexByte(v, ')')
		if end < 0 {
			return false
		}
		magic, v = v[2:end], v[end+1:]
	case strings.HasPrefix(v, ":"):
		// short magic: the signs / ! ^ up to an optional closing :
		end := 1
		for end < len(v) && strings.IndexByte("/!^", v[end]) >= 0 {
			end++
		}
		magic, v = v[1:end], strings.TrimPrefix(v[end:], ":")
	}
	if strings.ContainsAny(magic, "!^") || strings.Contains(magic, "exclude") || strings.Contains(magic, "literal") || !hasGlob(v) {
		return false
	}
	if !patternMaySelectSecret(v, true) {
		return false
	}
	base := strings.ToLower(v[strings.LastIndexByte(v, '/')+1:])
	return !slices.ContainsFunc(sourceNames, func(n string) bool { return shellGlobMatch(base, n) })
}

// grep reads its path operands, and outside the index the files on disk.
func (c *gitCall) grep() {
	rest, gsc, gidx, a, gs := c.rest, c.sc, c.idx, c.a, &c.gs
	// PATTERN [REV...] [-- PATH...]: a path operand is read (git grep
	// -h . .env prints it), and outside the index (--no-index,
	// --untracked) the search reaches hidden files like grep -r.
	for _, w := range gs.paths {
		a.readWord(w, gsc, gidx, false)
		c.pathspecGlob(w, false)
	}
	// -f FILE reads its patterns from FILE, as grep -f does
	for _, w := range gs.patternFiles {
		a.readWord(w, gsc, gidx, false)
	}
	if hasLongAbbrev(rest, "--no-index", "--untracked") {
		// the files on disk, as grep -r -R reads them (searchscope.go)
		gs.follow = true
		if chk := gs.checkScope(a, gs.searchRoots(a, gsc)); chk.code != "" {
			c.human(chk.code, "git grep outside the index: "+chk.why)
		}
		if why := gs.huntsSecrets(); why != "" {
			c.human("human.sensitive-read", "git grep outside the index reads hidden files such as .env and "+why)
		}
	}
}

// config reads .git/config or the file it names, writes the file its
// writing forms change, and reads a credential key as a secret; done:
// the call is decided (c.done).
func (c *gitCall) config() {
	rest, ops, g, gsc, gidx, cwd, a := c.rest, c.ops, c.g, c.sc, c.idx, c.cwd, c.a
	if !hasFlag(rest, "--global", "--system", "-f", "--file", "--blob") && !hasLongAbbrev(rest, "--file") {
		// git config -l or --get remote.origin.url print .git/config
		c.readConfig()
	}
	for j, w := range rest {
		if (w.val == "-f" || w.val == "--file" || w.val == "--blob") && j+1 < len(rest) {
			a.readWord(rest[j+1], gsc, gidx, false)
		} else if strings.HasPrefix(w.val, "--file=") {
			a.readFact(a.resolvePath(strings.TrimPrefix(w.val, "--file="), cwd, false), gidx, false)
		}
	}
	write := hasFlag(rest, "--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e", "--rename-section", "--remove-section") || len(ops) >= 2 && !hasFlag(rest, "--get", "--get-all", "--get-regexp", "-l", "--list")
	secretKey := false
	for _, o := range ops {
		secretKey = secretKey || gitSecretKey().MatchString(rest[o].val)
	}
	switch {
	case write:
	case secretKey:
		// http.extraHeader, credential.*, *.token, *password: the value is a secret
		a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: "git config " + c.opVals()[0]}, parent: gidx,
			human: reason("human.sensitive-read", "reads a credential from git config")})
		c.decided(summary{taint: true})
		return
	case hasFlag(rest, "-l", "--list", "--get-regexp", "--get-urlmatch") || hasShort(rest, "l") || len(ops) > 0 && rest[ops[0]].val == "list":
		g.ask = reason("ask.config-dump", "lists git config, which may hold credentials (http.extraHeader, tokens in URLs)")
		c.decided(summary{})
		return
	}
	if write {
		target := filepath.Join(cwd, ".git", "config")
		switch {
		case hasFlag(rest, "--global"):
			target = filepath.Join(a.env.Home, ".gitconfig")
		case hasFlag(rest, "--system"):
			target = "/etc/gitconfig"
		}
		a.writeFact(a.resolvePath(target, "", true), gidx)
	} else {
		c.safe()
	}
}

// listing is the summary of what the subcommand prints: paths of the
// repository (cmds.GitSub.Paths: ls-files, log --name-only), and whether
// they may name secrets. A read-only subcommand outside the project asks.
func (c *gitCall) listing() summary {
	rest, ops, g, cwd, a, otherRepo := c.rest, c.ops, c.g, c.cwd, c.a, c.otherRepo
	if g.safe != nil && (otherRepo || cwd == "" || !within(cwd, a.env.Project)) {
		g.safe = nil
		g.ask = reason("ask.outside-read", "git in a directory outside the project")
	}
	// git ls-files and --name-only print paths of the repository
	paths := c.spec.Paths
	lists := paths == cmds.PathsAlways || paths == cmds.PathsNameOnly && hasFlag(rest, "--name-only")
	s := summary{projList: lists && g.safe != nil && cwd != "" && within(cwd, a.env.Project)}
	// git ls-files .., :/ or /abs lists the repository outside the project:
	// not project names, but they may still be secrets (secretList below)
	outside := paths == cmds.PathsAlways && slices.ContainsFunc(ops, func(o int) bool {
		v := rest[o].val
		return rest[o].dyn || strings.HasPrefix(v, ":") || !within(a.resolvePath(v, cwd, false).abs, a.env.Project)
	})
	// git ls-files '*.go': every pathspec a wildcard that cannot match a
	// secret's name (a literal one names a directory, all files below it)
	s.cleanList = s.projList && paths == cmds.PathsAlways && len(ops) > 0 && !slices.ContainsFunc(ops, func(o int) bool {
		v := rest[o].val
		return rest[o].dyn || !hasGlob(v) || strings.HasPrefix(v, ":") || patternMaySelectSecret(v, true)
	})
	// like find without a name filter: a tracked (or, with -o, untracked)
	// .env may be among the names (also of git diff --name-only)
	s.secretList = s.projList && !s.cleanList
	// no pathspec aimed at secrets, nor the ignored files where they live
	s.broadList = s.secretList && !hasFlag(rest, "-i", "--ignored") && !slices.ContainsFunc(ops, func(o int) bool {
		return rest[o].dyn || patternMaySelectSecret(rest[o].val, true)
	})
	if outside {
		s.projList, s.cleanList, s.broadList = false, false, false
	}
	return s
}

// gitSecretKey matches git config keys whose values are credentials.
var gitSecretKey = lazyRE(`(?i)(extraheader|token|passw|secret|smtppass|oauth|apikey|api-key|authorization)`)

// broadPathspec reports a pathspec that names more than one file: a
// directory, a pattern or pathspec magic. A missing name without an
// extension (src) is taken for a directory.
func (c *gitCall) broadPathspec(v string) bool {
	if v == "." || strings.HasPrefix(v, ":") || hasGlob(v) || strings.HasSuffix(v, "/") {
		return true
	}
	r := c.a.resolvePath(v, c.sc.cwd, false)
	if !r.known {
		return true
	}
	if st, err := os.Stat(r.abs); err == nil {
		return st.IsDir()
	}
	return !strings.Contains(filepath.Base(v), ".")
}

// isRemoteURL reports a git remote written as a URL or path rather than
// the name of a configured remote.
func isRemoteURL(v string) bool {
	return strings.Contains(v, "://") || strings.Contains(v, ":") && !strings.HasPrefix(v, "+") && !strings.HasPrefix(v, ":") ||
		strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~")
}

// gitCommandKey matches git configuration keys whose value is a command
// line git runs (core.pager, alias.x=!cmd, diff.external, filters, ...).
var gitCommandKey = lazyRE(`^(core\.(pager|sshcommand|fsmonitor|editor|askpass)|pager\..*|alias\..*|diff\.external|diff\..*\.(command|textconv)|(difftool|mergetool)\..*\.cmd|merge\..*\.driver|filter\..*\.(clean|smudge|process)|credential(\..*)?\.helper|sequence\.editor|gpg(\..*)?\.program|uploadpack\.packobjectshook|remote\..*\.(uploadpack|receivepack)|` +
	`interactive\.difffilter|trailer\..*\.(command|cmd)|submodule\..*\.update|core\.alternaterefscommand|sendemail\.(sendmailcmd|smtpserver|tocmd|cccmd)|` +
	`core\.(hookspath|gitproxy)|protocol\..*\.allow|ssh\.variant|gpg\..*\.program|credential\..*\.helper)$`)

// gitConfigCommand analyses the command of a git -c key=value that names
// one, so a floor or an upload in it is seen (git -c core.pager='rm -rf ~'
// log is rm -rf ~).
func (a *analyzer) gitConfigCommand(kv string, sc *scope, idx int) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || !gitCommandKey().MatchString(strings.ToLower(k)) {
		return
	}
	a.reparse(strings.TrimPrefix(v, "!"), sc, idx)
}

// gitIncludeKey matches the keys whose value is another config file git
// reads (include.path, includeIf.COND.path).
var gitIncludeKey = lazyRE(`^include(if\..*)?\.path$`)

// gitConfigFile analyses a git config file the call supplies (git -c
// include.path=<(…), GIT_CONFIG_GLOBAL=<(…), a file this call wrote): each
// key that holds a command is read as git -c key=value.
func (a *analyzer) gitConfigFile(w word, sc *scope, idx int) {
	if w.procText != nil {
		w = word{val: w.val, dyn: true, proc: true, procText: w.procText, sub: w.sub}
	}
	in := a.scriptFrom(w)
	if in == nil {
		t, ok := a.written[a.resolvePath(w.val, sc.cwd, false).abs]
		if !ok || w.dyn {
			return
		}
		in = &stdinSrc{text: t, known: true}
	}
	if !in.known {
		a.humanFact("human.eval-opaque", "git reads a config file only known at run time")
	}
	section := ""
	for _, line := range strings.Split(in.text, "\n") {
		line = strings.TrimSpace(line)
		if end := strings.IndexByte(line, ']'); strings.HasPrefix(line, "[") && end > 0 {
			// [core], [alias], [diff "x"] → core., alias., diff.x.; a
			// variable may follow on the same line
			name, sub, _ := strings.Cut(line[1:end], " ")
			section = strings.TrimSuffix(name+"."+strings.Trim(strings.TrimSpace(sub), `"`), ".") + "."
			line = strings.TrimSpace(line[end+1:])
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			a.gitConfigCommand(section+strings.TrimSpace(k)+"="+strings.Trim(strings.TrimSpace(v), `"`), sc, idx)
		}
	}
}

// longValue is the value of args[j] when it is one of names, or a prefix
// of one, spelled --name=VALUE or --name VALUE.
func longValue(args []word, j int, names []string) (string, bool) {
	n, val, attached := strings.Cut(args[j].val, "=")
	if !slices.ContainsFunc(names, func(name string) bool { return strings.HasPrefix(name, n) }) {
		return "", false
	}
	if attached {
		return val, true
	}
	if j+1 < len(args) {
		return args[j+1].val, true
	}
	return "", false
}

// runsCommand analyses the commands git subcommands run: submodule
// foreach CMD, rebase -x CMD, bisect run CMD..., difftool -x CMD, the
// --upload-pack/--receive-pack programs and ext:: remotes.
func (c *gitCall) runsCommand() {
	a, sub, rest, sc, idx := c.a, c.sub, c.rest, c.sc, c.idx
	for j, w := range rest {
		v := w.val
		switch {
		case sub == "submodule" && v == "foreach":
			var cmd []string
			for _, x := range rest[j+1:] {
				if len(cmd) == 0 && strings.HasPrefix(x.val, "-") {
					continue // --recursive, -q
				}
				cmd = append(cmd, x.val)
			}
			a.reparse(strings.Join(cmd, " "), sc, idx)
			return
		case sub == "bisect" && v == "run" && j+1 < len(rest):
			a.inner(rest[j+1:], sc, idx)
			return
		case strings.HasPrefix(v, "ext::"):
			// split as git does, and as a shell would: either reading only adds facts
			a.reparse(extCommand(strings.TrimPrefix(v, "ext::")), sc, idx)
			a.reparse(strings.TrimPrefix(v, "ext::"), sc, idx)
		default:
			c.commandOption(j)
		}
	}
}

// commandOption reads rest[j] as one of the subcommand's options whose
// value is a command (cmds.GitSub.Commands) or, for clone, configuration.
func (c *gitCall) commandOption(j int) {
	a, rest, sc, idx := c.a, c.rest, c.sc, c.idx
	v := rest[j].val
	if strings.HasPrefix(v, "--") && len(v) > 3 {
		// git takes a unique prefix of a long option (--exe= is --exec=):
		// every option a prefix may stand for is read, which only adds facts
		if cmd, ok := longValue(rest, j, c.spec.Commands); ok {
			a.reparse(cmd, sc, idx)
		}
		if kv, ok := longValue(rest, j, gitCloneConfig(c.sub)); ok {
			a.gitConfigCommand(kv, sc, idx)
		}
		return
	}
	for _, o := range c.spec.Commands {
		// -x CMD, -ix CMD, -xCMD: parse-options clusters short options
		if len(o) == 2 {
			if cmd, ok := shortValue(rest, j, o[1], c.spec.ValueLetters); ok {
				a.reparse(cmd, sc, idx)
			}
		}
	}
	if kv, ok := shortValue(rest, j, 'c', c.spec.ValueLetters); ok && c.sub == "clone" {
		a.gitConfigCommand(kv, sc, idx) // clone -c KEY=VALUE sets the new repository's config
	}
}

// gitCloneConfig are the long options of git clone whose value is
// configuration it writes into the new repository and uses at once.
func gitCloneConfig(sub string) []string {
	if sub == "clone" {
		return []string{"--config"}
	}
	return nil
}

// extCommand turns git's ext:: remote syntax into a shell command line:
// words split at spaces, "% " a space inside a word, "%%" a percent sign.
func extCommand(ext string) string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(ext); i++ {
		switch c := ext[i]; {
		case c == '%' && i+1 < len(ext) && (ext[i+1] == ' ' || ext[i+1] == '%'):
			i++
			b.WriteByte(ext[i])
		case c == ' ':
			out = append(out, shellQuote(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return strings.Join(append(out, shellQuote(b.String())), " ")
}

// ownRepo reports a --git-dir that is the project's own .git, or a
// --work-tree that is the project root (gitDir false).
func ownRepo(r pathRef, project string, gitDir, dyn bool) bool {
	if dyn || !r.known || project == "" {
		return false
	}
	want := project
	if gitDir {
		want = filepath.Join(want, ".git")
	}
	if r.abs == want || r.real == want {
		return true
	}
	got, err1 := filepath.EvalSymlinks(r.abs)
	real, err2 := filepath.EvalSymlinks(want)
	return err1 == nil && err2 == nil && got == real
}

// gitListFlags are git log/diff options that print no file contents.
// The list is of what is harmless: any other option (-p, -S, -G, --check,
// --word-diff, -m/--cc, --dd, an abbreviation) may show lines of the files.
var gitListFlags = map[string]bool{"--oneline": true, "--format": true, "--pretty": true, "-n": true, "--max-count": true,
	"--skip": true, "--abbrev-commit": true, "--no-abbrev-commit": true, "--abbrev": true, "--date": true, "--relative-date": true,
	"--since": true, "--until": true, "--after": true, "--before": true, "--author": true, "--committer": true, "--grep": true,
	"-i": true, "--all": true, "--branches": true, "--tags": true, "--remotes": true, "--decorate": true, "--no-decorate": true,
	"--graph": true, "--first-parent": true, "--no-merges": true, "--merges": true, "--reverse": true, "--follow": true,
	"--topo-order": true, "--date-order": true, "--author-date-order": true, "--no-color": true, "--color": true,
	"--name-only": true, "--name-status": true, "--stat": true, "--numstat": true, "--shortstat": true, "--summary": true,
	"--dirstat": true, "--compact-summary": true, "--raw": true, "--no-patch": true, "-s": true, "--quiet": true,
	"--exit-code": true, "--cached": true, "--staged": true, "--diff-filter": true, "--no-renames": true, "-M": true,
	"--find-renames": true, "--": true}

// gitNamesOnly reports a git log or diff whose output shows no contents of
// the files it is given (git log -1 --format=%ci -- f, git diff --stat -- f):
// its path operands are only listed. git diff prints a patch unless a
// summary option replaces it; names: the subcommand prints none by
// default (cmds.GitSub.NamesOnly: git log). opts are the words before
// the end of its options (gitCall.flagWords).
func gitNamesOnly(names bool, opts []word) bool {
	summary := names
	for _, w := range opts {
		v := w.val
		if !strings.HasPrefix(v, "-") {
			continue
		}
		name, _, _ := strings.Cut(v, "=")
		if w.dyn || !gitListFlags[name] && !isDigits(v[1:]) { // -N: the last N commits
			return false
		}
		summary = summary || gitSummaryFlags[name]
	}
	return summary
}

// flagWords are the subcommand's words before the "--" that ends its
// options (all of them without one): where its flags are.
func (c *gitCall) flagWords() []word {
	if c.dd >= 0 {
		return c.rest[:c.dd]
	}
	return c.rest
}

// gitSummaryFlags replace git diff's patch with names or counts.
var gitSummaryFlags = map[string]bool{"--name-only": true, "--name-status": true, "--stat": true, "--numstat": true,
	"--shortstat": true, "--dirstat": true, "--raw": true, "--no-patch": true, "-s": true, "--quiet": true}

// readConfig records a read of the .git/config around the directory git
// runs in, if any.
func (c *gitCall) readConfig() {
	// only one with a token counts: the repository may lie above the
	// project, and reading its plain config is git's own business
	if p := gitConfigOf(c.cwd); p != "" && gitConfigHasCreds(p) {
		c.a.readFact(c.a.resolvePath(p, "", false), c.idx, false)
	}
}

// gitConfigOf is the .git/config of the repository around dir (the
// nearest .git directory above it); "" when there is none.
func gitConfigOf(dir string) string {
	for i := 0; i < 64 && dir != ""; i++ {
		if st, err := os.Stat(filepath.Join(dir, ".git")); err == nil && st.IsDir() {
			return filepath.Join(dir, ".git", "config")
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return ""
}

// gitPacks reads a git archive or bundle create: whether it streams the
// repository to stdout, else the files it packs it into.
func gitPacks(args []word) (stdout bool, files []word) {
	if rest, ok := pathRest(args, []string{"archive"}, false); ok && !hasLongAbbrev(rest, "--remote", "--list") && !hasShort(rest, "l") {
		files = optionValues(rest, 'o', "--output")
		return len(files) == 0, files
	}
	if rest, ok := pathRest(args, []string{"bundle", "create"}, false); ok {
		if ops := operands(rest, nil); len(ops) > 0 {
			return rest[ops[0]].val == "-", rest[ops[0] : ops[0]+1]
		}
	}
	return false, nil
}
