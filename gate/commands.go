package gate

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
	"mvdan.cc/sh/v3/syntax"
)

// exec analyses one simple command (argv already normalized), unwrapping
// wrappers to a fixed point.
// argvOf is the command line words give: their values, how many lead
// before the first known only at run time, and whether one is an ANSI-C
// string ($'\x72m'), which no known-safe answer trusts.
func argvOf(words []word) (argv []string, static int, noSafe bool) {
	argv = make([]string, len(words))
	static = len(words)
	for i, w := range words {
		argv[i] = w.val
		if w.dyn && static == len(words) {
			static = i
		}
		noSafe = noSafe || w.ansiC
	}
	return argv, static, noSafe
}

func (a *analyzer) exec(words []word, sc *scope, parent int) summary {
	var s summary
	noFunc := a.noFunc
	a.noFunc = false
	if len(words) == 0 {
		return s
	}
	if a.depth > maxDepth {
		a.opaque("human.too-deep", "wrappers nested too deeply for the gate to read", true)
		return s
	}
	// a wrapper's NAME=VALUE words set the environment (sudo X=1 cmd)
	for parent >= 0 && len(words) > 1 && !words[0].dyn && isAssignWord(words[0].val) {
		n := words[0].val[:strings.IndexByte(words[0].val, '=')]
		if riskyEnv(n, words[0].val[len(n)+1:], true) {
			a.add(&rfact{kind: protocol.FactEnv, detail: clip(words[0].val, 80), parent: -1, ask: reason("ask.env-prefix", n+" changes what the command runs")})
			a.envCommand(n, words[0].val[len(n)+1:], sc)
		}
		words = words[1:]
	}
	if sub, ok := cmds.GitDashed(words[0].val); ok && !words[0].dyn && a.funcs[words[0].val] == nil && a.aliases[words[0].val] == "" {
		// found on PATH, git-grep runs git grep. A path (./git-grep) may be
		// a file this command wrote: it stays an unknown program.
		words = append([]word{{val: "git"}, {val: sub}}, words[1:]...)
	}
	in := a.stdin
	a.simple++
	argv, static, noSafe := argvOf(words)
	f := &rfact{kind: protocol.FactExec, argv: argv, static: static, parent: parent, cwd: sc.cwd}
	idx := a.add(f)
	name := words[0]
	if name.dyn {
		a.noAlways = true
		f.ask = reason("ask.dynamic-command", "the command name is only known at run time")
		if name.sub.downloader {
			f.human = reason("human.download-exec", "runs the output of a download")
		}
		if name.lookup != "" {
			// $(which rm) -rf ~ runs rm
			alt := append([]word{{val: name.lookup}}, words[1:]...)
			return a.inner(alt, sc, idx)
		}
		if len(words) > 2 && words[1].val == "-c" && !words[1].dyn {
			// "$SHELL" -c 'rm -rf ~': the string is analysed as shell code
			return a.reparse(words[2].val, sc, idx)
		}
		if name.val == "$BASH" || name.val == "$SHELL" {
			// "$BASH" <<< 'cmd' is a shell reading its stdin
			return a.inner(append([]word{{val: "bash"}}, words[1:]...), sc, idx)
		}
		// x=rm; $x -rf ~ or c='rm -rf /'; $c: the values the call gave
		// the variables, split into words as an unquoted expansion is
		for _, alt := range name.alts {
			var ws []word
			for _, v := range ifsFields(a.vals, alt) {
				ws = append(ws, word{val: v, glob: hasGlob(v)})
			}
			if len(ws) > 0 {
				s.or(a.inner(append(ws, words[1:]...), sc, idx))
			}
		}
		a.dynamicFloors(f, words, sc, idx)
		return s
	}
	base := name.val
	if len(base) > 1 && base[0] == '=' && !strings.ContainsAny(base[1:], "=/") {
		// zsh expands =rm to the path of rm, which then runs
		base = base[1:]
		f.pathExec = true
	}
	if strings.Contains(base, "/") {
		f.pathExec = true
		base = path.Base(base)
	}
	if name.glob && isGlobName(base) {
		return a.globCommand(f, idx, base, words, sc)
	}
	if v, ok := a.aliases[base]; ok && !f.pathExec {
		return a.aliasCall(f, idx, v, words, sc)
	}
	if f.pathExec {
		a.runsFetched(f, name, sc)
	}
	lb := strings.ToLower(base)
	cased := lb != base
	if r, ok := cmds.Renamed(lb); ok {
		lb = r
	} else if n, ok := gnuNamesake(lb); ok {
		lb, f.namesake = n, n
	}
	a.depth++
	s = a.dispatch(f, idx, lb, words, sc)
	if !a.guessing && a.funcs[base] == nil && a.aliases[base] == "" {
		switch {
		case unmodelled(f, idx, len(a.facts), lb):
			a.flagValueSecrets(lb, words[1:], sc, idx, f)
		case flagOutsideModel(f):
			a.handedPaths(words[1:], sc, idx)
		}
	}
	if f.pathExec {
		s.or(a.runsWritten(name, sc, idx)) // echo 'cmd' > x.sh; ./x.sh
	}
	a.depth--
	// a call of a function defined in this command runs its body, which is
	// analysed where it is defined; the name is still analysed as a command,
	// because the definition may not run (if false; then rm() { :; }; fi)
	body := a.funcs[base]
	if noFunc {
		body = nil
	}
	if body != nil && !f.pathExec && len(a.facts) == idx+1 && f.floor == nil && f.human == nil && f.ask == nil && f.safe == nil {
		f.safe = reason("gate.safe", "calls a function defined in this command")
	}
	if body != nil && !f.pathExec {
		// the body runs here, in this shell: its cd moves the caller, it
		// reads the call's stdin and its output is the call's (cat .env | f)
		a.depth++
		a.pendingStdin = in
		restore := a.funcArgs(body, words[1:])
		s.or(a.stmt(body, sc))
		restore()
		a.pendingStdin = nil
		a.depth--
	}
	// a command that read a secret or dumped the environment taints what
	// it feeds: a pipe, a substitution, a variable, a file it writes
	for _, g := range a.facts[idx:] {
		if g.human != nil && (g.human.Code == "human.sensitive-read" || g.human.Code == "human.env-dump") {
			s.taint = true
		}
	}
	if s.taint {
		for _, g := range a.facts[idx:] {
			if g.kind == protocol.FactWrite && g.path.known {
				a.markTainted(g.path)
			}
		}
	}
	if noSafe || f.pathExec || cased || base != lb && f.namesake == "" {
		f.safe = nil
	}
	return s
}

// ifsFields splits an unquoted expansion's value into words as bash does:
// on the IFS the call set (IFS=,; x=rm,-rf,/; $x), else on white space.
func ifsFields(vals map[string]*varVals, s string) []string {
	v := vals["IFS"]
	if v == nil || len(v.vals) != 1 {
		return strings.Fields(s)
	}
	ifs := v.vals[0]
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(ifs, r) })
}

// ipNetnsName is how many words name the namespace after ip netns exec:
// none with -all (-a, -al), which runs the command in every namespace.
func ipNetnsName(args []word) int {
	for _, w := range args {
		if w.val == "netns" {
			break
		}
		if len(w.val) > 1 && strings.HasPrefix("-all", w.val) {
			return 0
		}
	}
	return 1
}

// isGlobName reports a command name bash would glob-expand: * or ?, or a
// closed [...] class ([ itself is the test command).
func isGlobName(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	o := strings.IndexByte(s, '[')
	return o >= 0 && strings.IndexByte(s[o+1:], ']') > 0
}

// globCommand analyses a command whose name is a glob as every dangerous
// command it could match; it is never known-safe.
func (a *analyzer) globCommand(f *rfact, idx int, base string, words []word, sc *scope) summary {
	a.noAlways = true
	f.ask = reason("ask.dynamic-command", "the command name is a glob")
	var s summary
	for _, n := range cmds.GlobTrials {
		if ok, _ := path.Match(base, n); ok {
			alt := append([]word{{val: n}}, words[1:]...)
			s.or(a.inner(alt, sc, idx))
		}
	}
	return s
}

// dynamicFloors tries the arguments of a command whose name is only known
// at run time with each of cmds.DynamicTrials (x=RM; ${x,,} -rf ~, read c; $c -rf
// ~): if one of them would be a floor, the call is human-only — not a
// floor, as the name may be harmless. The trial leaves no trace.
func (a *analyzer) dynamicFloors(f *rfact, words []word, sc *scope, idx int) {
	if len(words) < 2 || a.shadow {
		return
	}
	saved, fsaved := *a, *f
	clones := []*map[string]bool{&a.taint, &a.secrets, &a.tainted, &a.fetched}
	for _, m := range clones {
		*m = maps.Clone(*m)
	}
	a.funcs, a.vals, a.arrays, a.aliases = maps.Clone(a.funcs), maps.Clone(a.vals), maps.Clone(a.arrays), maps.Clone(a.aliases)
	a.refs, a.written, a.coprocs, a.fdText = maps.Clone(a.refs), maps.Clone(a.written), maps.Clone(a.coprocs), maps.Clone(a.fdText)
	a.listVars, a.listings = maps.Clone(a.listVars), maps.Clone(a.listings)
	a.shadow = true
	var floor, persist *protocol.Reason
	for _, n := range cmds.DynamicTrials {
		mark := len(a.facts)
		a.inner(append([]word{{val: n}}, words[1:]...), sc.copy(), idx)
		for _, g := range a.facts[mark:] {
			if g.floor != nil && floor == nil {
				floor = g.floor
				floor.Detail = "as " + n + ": " + floor.Detail
			}
			// echo … | $c -a ~/.bashrc: as tee it installs a startup command
			if g.human != nil && g.human.Code == "human.persistence-write" && persist == nil {
				persist = &protocol.Reason{Code: g.human.Code, Detail: "as " + n + ": " + g.human.Detail}
			}
		}
		a.facts = a.facts[:mark]
		if floor != nil {
			break
		}
	}
	// the trials' statements still count against maxNodes: restoring the
	// counter would let each dynamic command re-analyse up to maxNodes
	// statements per name ($x eval "$y", repeated); and the too-long fact a
	// trial raised went with its facts
	nodes := a.nodes
	*a, *f = saved, fsaved
	a.nodes = nodes
	if nodes > maxNodes && saved.nodes <= maxNodes {
		a.opaque("human.too-long", "too many commands for the gate to read", true)
	}
	if floor != nil && f.human == nil {
		f.human = reason("human.dynamic-floor", "the command name is only known at run time, and "+floor.Detail)
	}
	if persist != nil && f.human == nil {
		f.human = reason("human.persistence-write", "the command name is only known at run time, and "+persist.Detail)
	}
}

// aliasCall analyses a call of an alias defined earlier in the command as
// its value followed by the arguments.
func (a *analyzer) aliasCall(f *rfact, idx int, value string, words []word, sc *scope) summary {
	a.noAlways = true
	f.wrapper = true
	f.safe = reason("gate.wrapper", "calls an alias; its value is analysed")
	var b strings.Builder
	b.WriteString(value)
	// a value ending in a blank makes bash alias-expand the next word too
	// (alias a='command ' b=rm; a b -rf ~)
	next := strings.HasSuffix(value, " ") || strings.HasSuffix(value, "\t")
	for _, w := range words[1:] {
		b.WriteByte(' ')
		v, ok := a.aliases[w.val]
		if next && ok && !w.dyn {
			b.WriteString(v)
			next = strings.HasSuffix(v, " ") || strings.HasSuffix(v, "\t")
			continue
		}
		next = false
		if w.dyn {
			b.WriteString("$_") // stays unknown when re-parsed
		} else {
			b.WriteString(shellQuote(w.val))
		}
	}
	saved := a.aliases
	a.aliases = nil // bash does not expand an alias inside its own value
	s := a.reparse(b.String(), sc, idx)
	a.aliases = saved
	return s
}

// inner analyses the command a wrapper runs, owned by the wrapper's fact.
func (a *analyzer) inner(words []word, sc *scope, idx int) summary {
	a.noAlways = true
	return a.exec(words, sc, idx)
}

// reparse analyses a string the shell will parse again (sh -c, eval).
func (a *analyzer) reparse(src string, sc *scope, idx int) summary {
	return a.reparseIn(src, sc.copy(), idx)
}

// reparseIn is reparse for code that runs in this shell (eval, a DEBUG
// trap): its cd moves the commands after it.
func (a *analyzer) reparseIn(src string, sc *scope, idx int) summary {
	a.noAlways = true
	saved := a.owner
	a.owner = idx
	s := a.shell(src, sc)
	a.owner = saved
	return s
}

// isShell reports a shell the table declares (sh, bash, zsh, fish, …).
func isShell(name string) bool {
	w := cmds.WrapperOf(name)
	return w != nil && w.Wrap == cmds.Shell
}

// isInterpreter reports a program the table declares an interpreter
// (cmds/interps.go).
func isInterpreter(lb string) bool { return cmds.InterpOf(lb) != nil }

// reachesNetwork reports a DNS lookup (getent hosts NAME) or an opener
// given a URL (open https://…, open -u URL, gio open URL): the name or URL
// leaves the machine like curl's does.
func reachesNetwork(lb string, args []word) bool {
	return lookupSubcmd(resolvers, lb, args) ||
		lookupSubcmd(openers, lb, args) && slices.ContainsFunc(args, func(w word) bool { return isURLWord(w.val) })
}

// isURLWord reports a word with a URL scheme (https://x, mailto:a@b).
func isURLWord(v string) bool {
	scheme, rest, ok := strings.Cut(v, ":")
	if !ok || scheme == "" || len(scheme) > 32 || strings.ContainsAny(scheme, "/.~ ") || strings.HasPrefix(scheme, "-") {
		return false
	}
	for _, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-') {
			return false
		}
	}
	return strings.HasPrefix(rest, "//") || len(scheme) > 1 && rest != "" // C:\x is a drive, not a scheme
}

// gnuPrograms are the GNU programs Homebrew installs on macOS with a g
// prefix beside the BSD ones (coreutils, findutils, gnu-sed, gnu-tar, grep,
// make, inetutils, binutils, gpatch, m4, gnu-which, gnu-indent): gls, grm,
// gtimeout, gsed, gxargs are their namesakes. Not du: gdu is also a disk
// usage browser of its own.
var gnuPrograms = setOf("[ b2sum base32 base64 basename basenc cat chcon chgrp chmod chown chroot cksum comm cp csplit cut date dd df " +
	"dir dircolors dirname echo env expand expr factor false fmt fold groups head hostid id install join kill link ln logname ls " +
	"md5sum mkdir mkfifo mknod mktemp mv nice nl nohup nproc numfmt od paste pathchk pinky pr printenv printf ptx pwd readlink " +
	"realpath rm rmdir runcon seq sha1sum sha224sum sha256sum sha384sum sha512sum shred shuf sleep sort split stat stdbuf stty sum " +
	"sync tac tail tee test timeout touch tr true truncate tsort tty uname unexpand uniq unlink uptime users vdir wc who whoami yes " +
	"find xargs locate updatedb sed tar grep egrep fgrep make indent which m4 patch libtool libtoolize " +
	"ftp ping telnet traceroute whois hostname ifconfig logger rcp rexec rlogin rsh tftp dnsdomainname " +
	"strings objdump readelf nm objcopy strip")

// setOf is the set of the space-separated words in s.
func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// printsHelp reports a call whose words are all the program's help or
// version words (git --version, node -h), for a tool that reads them
// after a subcommand also after its name (docker compose up --help): it
// prints and exits.
func printsHelp(lb string, args []word) bool {
	i := 0
	if len(args) > 1 && !args[0].dyn && (len(args) < 3 || !args[1].dyn) {
		i = cmds.HelpSubcommands(lb, []string{args[0].val, args[min(1, len(args)-1)].val})
	}
	return len(args) > i && !slices.ContainsFunc(args[i:], func(w word) bool { return w.dyn || !cmds.HelpWord(lb, w.val) })
}

// gnuNamesake is the GNU program a g-prefixed name stands for (grm: rm).
func gnuNamesake(lb string) (string, bool) {
	n, ok := strings.CutPrefix(lb, "g")
	return n, ok && gnuPrograms[n]
}

func (a *analyzer) dispatch(f *rfact, idx int, lb string, words []word, sc *scope) summary {
	var s summary
	args := words[1:]
	if printsHelp(lb, args) {
		f.safe = reason("gate.safe", lb+" only prints its help or version")
		return s
	}
	if pkg, ok := remoteRunner(lb, args, a.env.Project); ok {
		f.human, f.ruleClears = reason(remoteCode, lb+" runs "+pkg+", which is not in the project's lockfile"), true
	} else if m, ok := remoteModule(lb, args); ok {
		f.human, f.ruleClears = reason(remoteCode, lb+" runs "+m+", fetched from outside the project"), true
	}
	spec := cmds.Lookup(lb)
	if spec != nil && spec.Hook == "apply_patch" {
		// Codex's shell handler applies apply_patch "PATCH" and
		// apply_patch <<'EOF' … EOF itself: the files the patch names are
		// written (a patch the gate cannot read asks)
		text, known := "", false
		if len(args) > 0 {
			text, known = args[0].val, !args[0].dyn
		} else if in := a.stdinCode(); in != nil {
			text, known = in.text, in.known
		}
		if ps := a.patchPaths(text, sc, idx); len(ps) == 0 || !known {
			f.ask = reason("ask.bad-input", "a patch whose files the gate cannot find")
		}
		return s
	}
	if w := cmds.WrapperOf(lb); w != nil && w.Runs(firstVal(args), len(args)) {
		c := wrapCall{a: a, f: f, idx: idx, w: w, args: args, sc: sc}
		if s, ok := c.run(); ok {
			return s
		}
	}
	switch ip := cmds.InterpOf(lb); {
	case ip != nil:
		return a.interpreter(f, idx, lb, ip, args, sc)
	case toolHook(lb) == "git":
		return a.git(f, idx, lb, args, sc)
	case spec != nil && spec.Hook == "find":
		return a.find(f, idx, args, sc)
	}
	return a.plain(f, idx, lb, args, sc)
}

// outsideCwd makes a command that runs another in dir (env -C, go -C,
// npm --prefix) ask when dir is outside the project or unknown: whatever
// a rule allows for the project, the build files there are someone else's.
func (pl *places) outsideCwd(f *rfact, by, dir string) {
	if r := pl.resolvePath(dir, "", false); dir == "" || !pl.inProject(r) {
		f.ask = reason("ask.outside-cwd", by+" runs it outside the project")
	}
}

// noInner: the wrapper changes a running process instead of running a
// command; not known-safe.
func noInner(f *rfact, lb string) summary {
	f.safe, f.wrapper = nil, false
	f.ask = reason("ask.unknown-command", lb+" changes a running process")
	return summary{}
}

// moduleCLI reports a module run as a program (python -m NAME) whose name
// is a tool the gate's subcommand tables know (keyring, pip).
func moduleCLI(module string) bool {
	return module != "" && (secretPrinters()[module] != nil || configWriters()[module] != nil)
}

// revShellRe opens a connection (Python/Ruby/Perl/PHP sockets, node's net
// and tls, Deno and Bun, Java's Socket from jrunscript, JXA's NSStream);
// revShellExecRe starts a program to wire to it.
var revShellRe = lazyRE(`(?i)(socket|fsockopen|tcpsocket|net::|/dev/tcp|io::socket|\bnet\.(connect|createConnection)|\btls\.connect|` +
	`require\(\s*['"](node:)?net['"]\s*\)|Deno\.connect|Bun\.connect|NSStream|getStreamsToHost|NSFileHandle.*fileHandleWithSocket)`)
var revShellExecRe = lazyRE(`(?i)(/bin/(ba|z|da)?sh|subprocess|pty\.spawn|exec|system|popen|spawn|cmd\.exe|dup2|ProcessBuilder|NSTask|Deno\.Command)`)

// interpreter reads a call of interpreter ip by the name lb.
func (a *analyzer) interpreter(f *rfact, idx int, lb string, ip *cmds.Interp, args []word, sc *scope) summary {
	a.noAlways = true
	if len(args) == 1 && (args[0].val == "--version" || args[0].val == "-V" || args[0].val == "-v" || args[0].val == "version") {
		f.safe = reason("gate.safe", "prints the interpreter version")
		return summary{}
	}
	f.ask = reason("ask.interpreter", lb+" runs code the gate cannot analyse")
	for _, w := range args {
		if w.sub.downloader {
			f.human = reason("human.download-exec", lb+" runs the output of a download")
		}
	}
	c := parseInterp(ip, args)
	if ip.Drives {
		// AppleScript drives other applications, the keychain and the system
		f.human = reason("human.system-write", "osascript controls other applications and the system")
	}
	for _, code := range c.code {
		if revShellRe().MatchString(code) && revShellExecRe().MatchString(code) {
			f.floor = reason("floor.reverse-shell", lb+" code opens a socket and runs a shell")
		}
		a.inlineCode(f, idx, lb, code, sc)
	}
	if c.serves() {
		f.human = reason("human.file-server", lb+" serves the directory, secrets such as .env included, to the network")
	}
	rest := args[min(c.rest, len(args)):]
	ops := operands(rest, nil)
	if moduleCLI(c.module) {
		// python -m keyring get S U is keyring get S U: a module that is
		// a command-line tool the gate knows is read as that tool
		a.inner(append([]word{{val: c.module}}, rest...), sc, idx)
	}
	switch {
	case codeModules[c.module]:
		for _, w := range rest {
			a.inlineCode(f, idx, lb, w.val, sc) // python -m timeit [-s SETUP] STMT: each word may be code
		}
		return summary{}
	case len(c.code) > 0 || c.module != "":
		// the words after the code or module are its arguments, mostly
		// files (perl -ne CODE FILE, python -m base64 FILE): read, or
		// written by perl -i and by an extraction's last operand
		for n, o := range ops {
			switch {
			case c.inPlace || n == len(ops)-1 && (n > 0 || c.module == "venv" || c.module == "virtualenv") && c.extracts(rest):
				a.writeWord(rest[o], sc, idx)
			default:
				a.readWord(rest[o], sc, idx, false)
			}
		}
		return summary{}
	case len(rest) == 0 || rest[0].val == "-":
		if in := a.stdin; in != nil && in.text != "" {
			a.inlineCode(f, idx, lb, in.text, sc) // python3 - <<'EOF'
		}
		if in := a.stdin; in != nil && !in.known && f.human == nil {
			// base64 -d | python3 -: like | sh, code no one can read first
			f.human = reason("human.eval-opaque", lb+" runs code piped to it that the gate cannot read")
		}
		return summary{shellSink: true}
	}
	if in := a.scriptFrom(rest[0]); in != nil {
		// python3 /dev/stdin <<< CODE, ruby <(echo CODE): the script is that text
		a.inlineCode(f, idx, lb, in.text, sc)
		a.runsFetched(f, rest[0], sc)
		return summary{shellSink: !rest[0].proc}
	}
	a.readFact(a.pathWord(rest[0], sc, false), idx, false)
	a.runsFetched(f, rest[0], sc)
	return summary{}
}

// codeModules are python -m modules whose operands are code (timeit's
// statements and setup, pdb -c's commands).
var codeModules = map[string]bool{"timeit": true, "pdb": true}

// interpCall is an interpreter's command line: its inline code, the module
// or libraries it loads, and where its operands start.
type interpCall struct {
	ip      *cmds.Interp
	code    []string
	module  string   // python -m, perl -M
	libs    []string // ruby -r, node -r
	inPlace bool     // perl/ruby -i
	serve   bool     // php -S
	rest    int      // first word after the options
}

// parseInterp reads an interpreter's options by its entry, short ones
// clustered as its getopt does (perl -lne CODE, python3 -Ic CODE, ruby
// -rsocket -we CODE; cmds.Interp). For interpreters whose options the
// table does not declare, any -c/-e/--eval word's value is code.
func parseInterp(ip *cmds.Interp, args []word) interpCall {
	c := interpCall{ip: ip, rest: len(args)}
	if !ip.Getopt {
		for i, w := range args {
			switch w.val {
			case "-c", "-e", "-E", "--eval", "-p", "--print", "-r", "eval", "-Command", "-command":
				if i+1 < len(args) {
					c.code = append(c.code, args[i+1].val)
				}
			}
		}
		return c
	}
	inv := parseArgs(ip.Cmd, args)
	if len(inv.Operands) > 0 {
		c.rest = inv.Operands[0] // the script, or the code's argv (python -c CODE ARGS)
	}
	for _, u := range inv.Uses {
		v, _ := valueWord(args, u) // none: "" (python -c at the end)
		switch {
		case u.Flag.Role == argv.Code:
			c.code = append(c.code, v.val)
		case u.Flag.Role == argv.Load:
			c.libs = append(c.libs, v.val)
		case u.Flag.Sets == cmds.InterpModule:
			c.module = v.val
		case u.Flag.Sets == cmds.InterpServe:
			c.serve = true
		}
		c.inPlace = c.inPlace || u.Flag.Sets == cmds.InterpInPlace
	}
	return c
}

// serves reports an interpreter's built-in file server: python -m
// http.server (SimpleHTTPServer), php -S, ruby -run -e httpd. They listen
// on every interface by default.
func (c interpCall) serves() bool {
	return c.serve || slices.Contains(c.ip.ServeModules, c.module) ||
		c.ip.ServeLib != "" && slices.Contains(c.libs, c.ip.ServeLib) && slices.ContainsFunc(c.code, func(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "httpd") })
}

// extracts reports a python -m zipfile/tarfile -e: its last operand is the
// directory written.
func (c interpCall) extracts(rest []word) bool {
	return (c.module == "zipfile" || c.module == "tarfile") && (hasFlag(rest, "-e", "--extract")) || c.module == "venv" || c.module == "virtualenv"
}

// scriptArgs reads script's command line: the files it writes (the
// typescript, its first operand, unless -p plays one back, and util-linux's
// log files) and BSD's command after the typescript (script -q /dev/null
// CMD ARGS), nil without one.
func scriptArgs(args []word) (writes, cmd []word) {
	for _, l := range []struct {
		letter byte
		long   string
	}{{'I', "--log-in"}, {'O', "--log-out"}, {'B', "--log-io"}, {'T', "--log-timing"}} {
		writes = append(writes, optionValues(args, l.letter, l.long)...)
	}
	ops := parseArgs(cmds.Script, args).Operands
	if len(ops) > 0 && !hasShort(args, "p") {
		writes = append(writes, args[ops[0]])
	}
	if len(ops) > 1 {
		cmd = args[ops[1]:]
	}
	return writes, cmd
}

// firstVal is the first argument's value, "" without one.
func firstVal(args []word) string {
	if len(args) == 0 {
		return ""
	}
	return args[0].val
}

// isPrefixRunner reports a program that runs the command after its own
// flags on every call (strace, fakeroot), not only after a subcommand.
func isPrefixRunner(lb string) bool {
	w := cmds.WrapperOf(lb)
	return w != nil && w.Wrap == cmds.Prefix && len(w.Subs) == 0
}

// isAssignWord reports NAME=VALUE.
func isAssignWord(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range s[:eq] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// funcArgs sets the positional parameters a function body sees to the
// call's words (f /; f(){ cd "$1"; }) and returns what restores the
// caller's. The values are exact only when every word is known and the body
// cannot move or reset them (shift, set, eval, a name only known at run
// time); otherwise they only make answers stricter.
func (a *analyzer) funcArgs(body *syntax.Stmt, args []word) func() {
	exact := true
	walkNodes(body, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			if lit, known := litText(call.Args[0]); !known || movesArgs(lit) || a.aliases[lit] != "" {
				exact = false
			}
		}
		return exact
	})
	var saved []*varVals
	for n := 1; n <= 9; n++ {
		name := strconv.Itoa(n)
		saved = append(saved, a.vals[name])
		switch {
		case n > len(args):
			if exact {
				a.setVals(name, &varVals{vals: []string{""}, exact: true})
			} else {
				a.setVals(name, nil)
			}
		case args[n-1].dyn:
			a.setVals(name, &varVals{vals: args[n-1].alts})
		default:
			a.setVals(name, &varVals{vals: []string{args[n-1].val}, exact: exact})
		}
	}
	restoreAt := a.positionalAt(args)
	if !exact && a.arrays != nil {
		delete(a.arrays, "@")
	}
	return func() {
		for n, v := range saved {
			a.setVals(strconv.Itoa(n+1), v)
		}
		restoreAt()
	}
}

// positionalAt makes "$@" the words args, when each is known (else it is
// only known at run time), and returns what puts the old "$@" back.
func (ss *shellState) positionalAt(args []word) func() {
	savedAt, hadAt := ss.arrays["@"]
	if !slices.ContainsFunc(args, func(w word) bool { return w.dyn }) {
		if ss.arrays == nil {
			ss.arrays = map[string][]word{}
		}
		ss.arrays["@"] = slices.Clone(args)
	} else if ss.arrays != nil {
		delete(ss.arrays, "@")
	}
	return func() {
		switch {
		case hadAt:
			ss.arrays["@"] = savedAt
		case ss.arrays != nil:
			delete(ss.arrays, "@")
		}
	}
}
