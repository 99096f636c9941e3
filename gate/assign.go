// assign.go is what assignments and declarations do to the shell the gate
// models: the values variables take, their taint, arrays, and the
// environment variables that change what a command runs.

package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
	"mvdan.cc/sh/v3/syntax"
)

// decl handles export/declare/local/readonly/typeset.
func (a *analyzer) decl(c *syntax.DeclClause, sc *scope) summary {
	var s summary
	variant := c.Variant.Value
	names := 0
	var flags []string
	for _, as := range c.Args {
		if as.Name == nil {
			if as.Value != nil {
				w := a.word(as.Value, sc)
				s.or(w.sub)
				flags = append(flags, w.val)
				// export $(cat .env | xargs): the file's secrets become variables
				a.secretEnv = a.secretEnv || w.dyn && (w.taint || w.sub.taint)
			}
			continue
		}
		names++
		if declFlag(flags, 'n') && a.refs != nil {
			delete(a.refs, as.Name.Value) // declare -n r=…: r itself is set
		}
		s.or(a.assign(as, sc, true))
		// declare -p GITHUB_TOKEN prints it; declare -n r=GITHUB_TOKEN
		// (or a name only known at run time) makes $r expand it
		target, known := "", false
		if as.Value != nil {
			target, known = litText(as.Value)
		}
		if known && declFlag(flags, 'n') {
			a.subscript(target, sc) // declare -n r='a[$(cmd)]': $r runs cmd
			if a.refs == nil {
				a.refs = map[string]string{}
			}
			a.refs[as.Name.Value] = target
		}
		if known && declFlag(flags, 'i') {
			a.evalAgain(target, sc) // declare -i n='a[$(cmd)]' evaluates the value
		}
		if secretVarName(as.Name.Value) && declFlag(flags, 'p') ||
			as.Value != nil && declFlag(flags, 'n') && (!known || secretVarName(target)) {
			a.humanFact("human.env-dump", variant+" reads a variable that holds a secret")
			s.taint = true
		}
	}
	argv := append([]string{variant}, flags...)
	if names == 0 && variant != "local" && variant != "readonly" && variant != "nameref" && !onlyFuncFlags(flags) {
		a.add(&rfact{kind: protocol.FactExec, argv: argv, parent: -1,
			human: reason("human.env-dump", variant+" without names prints the environment")})
		s.taint = true
		return s
	}
	a.simple++
	a.add(&rfact{kind: protocol.FactExec, argv: argv, parent: -1, safe: reason("gate.safe", "shell variable declaration")})
	return s
}

// declFlag reports a flag letter among a declaration's flags (-p, -xp).
func declFlag(flags []string, c byte) bool {
	for _, f := range flags {
		if len(f) > 1 && (f[0] == '-' || f[0] == '+') && strings.IndexByte(f[1:], c) >= 0 {
			return true
		}
	}
	return false
}

func onlyFuncFlags(flags []string) bool {
	for _, f := range flags {
		if f == "-f" || f == "-F" {
			return true
		}
	}
	return false
}

// assign handles NAME=VALUE, as a prefix (persist=false) or a statement.
func (a *analyzer) assign(as *syntax.Assign, sc *scope, persist bool) summary {
	var s summary
	taint := false
	val := ""
	static := true
	var known *varVals
	var w word
	if as.Value != nil {
		w = a.word(as.Value, sc)
		s.or(w.sub)
		taint = w.taint
		val = w.val
		static = !w.dyn
		if w.secretVar && persist && as.Name != nil {
			if a.secrets == nil {
				a.secrets = map[string]bool{}
			}
			a.secrets[as.Name.Value] = true
			if w.secretPart {
				// x=${KEY/#sk-a*/}: [ -z "$x" ] answers about KEY
				if a.secretParts == nil {
					a.secretParts = map[string]bool{}
				}
				a.secretParts[as.Name.Value] = true
			}
		}
		switch {
		case !w.dyn:
			known = &varVals{vals: []string{w.val}}
		case w.alts != nil:
			known = &varVals{vals: w.alts}
		}
	} else if as.Array == nil && as.Index == nil && !as.Naked {
		known = &varVals{vals: []string{""}}
	}
	if as.Append || as.Array != nil || as.Index != nil {
		known = nil
	}
	if persist && as.Name != nil {
		a.setArray(as, a.env.Home)
	}
	if as.Array != nil {
		s.or(a.walkSubst(as.Array, sc))
		taint = taint || s.taint
	}
	if as.Index != nil {
		a.arith(as.Index, sc) // a['$(cmd)']=1: an indexed array's subscript is arithmetic
		s.or(a.walkSubst(as.Index, sc))
	}
	name := ""
	if as.Name != nil {
		name = a.ref(as.Name.Value)
	}
	a.cdpath = a.cdpath || name == "CDPATH"
	if persist && name != "" {
		a.setTaint(name, taint)
		a.setVals(name, known)
	}
	if riskyEnv(name, val, static && as.Array == nil && as.Index == nil && !as.Append) {
		a.add(&rfact{kind: protocol.FactEnv, detail: name + "=" + clip(val, 80), parent: -1,
			ask: reason("ask.env-prefix", name+" changes what the command runs")})
		a.envCommand(name, val, sc)
		if name == "BASH_ENV" || name == "ENV" {
			a.startupFile(w, sc, -1) // the file the next shell sources
		}
		if name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM" || name == "GIT_CONFIG" {
			a.gitConfigFile(w, sc, -1)
		}
	} else if strings.HasPrefix(name, "GIT_TRACE") {
		a.envCommand(name, val, sc) // it writes a file, it does not change what runs
	}
	return s
}

// commandEnv are variables whose value is a command line some program runs.
var commandEnv = map[string]bool{"GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "PAGER": true,
	"GIT_EDITOR": true, "EDITOR": true, "VISUAL": true, "LESSOPEN": true, "LESSCLOSE": true, "PROMPT_COMMAND": true,
	"SSH_ASKPASS": true, "GIT_ASKPASS": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "GIT_SEQUENCE_EDITOR": true}

// isCommandEnv: commandEnv, or a tool's own pager/editor/browser variable
// (BAT_PAGER, GH_BROWSER, SVN_EDITOR, WGET_ASKPASS, FZF_DEFAULT_COMMAND,
// RSYNC_RSH …), which the tool runs the same way.
func isCommandEnv(n string) bool {
	return commandEnv[n] || n == "BROWSER" || strings.HasSuffix(n, "_PAGER") ||
		strings.HasSuffix(n, "_EDITOR") || strings.HasSuffix(n, "_BROWSER") || strings.HasSuffix(n, "_ASKPASS") ||
		strings.HasSuffix(n, "_COMMAND") || strings.HasSuffix(n, "_RSH") || n == "RSYNC_CONNECT_PROG"
}

// optionEnv are variables a tool reads as options before its own.
var optionEnv = map[string]string{"ZIPOPT": "zip", "MANOPT": "man", "TAR_OPTIONS": "tar", "GREP_OPTIONS": "grep"}

// envCommand analyses the command a variable like GIT_SSH_COMMAND holds,
// so a floor hidden in it is still seen.
func (a *analyzer) envCommand(name, val string, sc *scope) {
	switch {
	case name == "LESSOPEN" || name == "LESSCLOSE":
		// less runs it on every file it opens, with the file's name
		a.humanFact("human.eval-opaque", name+" makes less run a command on every file it opens")
		a.reparse(strings.TrimLeft(val, "|-"), sc, -1)
	case isCommandEnv(name) && val != "":
		a.reparse(strings.TrimPrefix(strings.TrimPrefix(val, "|"), "|"), sc, -1)
	case strings.HasPrefix(name, "BASH_FUNC_"):
		// BASH_FUNC_ls%%='() { …; }' defines ls in a child bash
		a.reparse(strings.TrimSuffix(strings.TrimPrefix(name, "BASH_FUNC_"), "%%")+" "+val, sc, -1)
	case name == "PS4" || name == "PS1" || name == "PS0":
		a.evalAgain(val, sc) // prompt-expanded (PS4 under set -x): $(…) runs
	case strings.HasPrefix(name, "GIT_CONFIG_VALUE_") || name == "GIT_CONFIG_PARAMETERS":
		// GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=CMD: like git -c,
		// the value may be a command git runs
		a.reparse(strings.TrimPrefix(strings.Trim(val, "'"), "!"), sc, -1)
	case name == "LESS" || name == "MORE":
		a.lessOptions(val, sc, -1)
	case name == "LESSKEY_CONTENT":
		a.lesskeyText(val, sc)
	case optionEnv[name] != "":
		a.reparse(optionEnv[name]+" "+val, sc, -1) // MANOPT='-P CMD' is man -P CMD
	case strings.HasPrefix(name, "GIT_TRACE") && strings.HasPrefix(val, "/"):
		// GIT_TRACE*=/abs/path: git appends its trace to that file
		a.writeWord(word{val: val}, sc, -1)
	}
}

// setArray records the elements of a=(…) when they are all known, so
// "${a[@]}" as a command is seen ("a=(rm -rf ~); ${a[@]}"); home is what
// an element's ~ expands to. It needs nothing but the shell's state.
func (ss *shellState) setArray(as *syntax.Assign, home string) {
	name := as.Name.Value
	if ss.arrays != nil {
		delete(ss.arrays, name)
	}
	if as.Array == nil || as.Append {
		return
	}
	var elems []word
	for _, e := range as.Array.Elems {
		if e.Index != nil || e.Value == nil {
			return
		}
		t, ok := litText(e.Value)
		if !ok {
			return
		}
		if t == "~" || strings.HasPrefix(t, "~/") {
			t = home + t[1:]
		}
		elems = append(elems, word{val: t, glob: hasGlob(t)})
	}
	if ss.arrays == nil {
		ss.arrays = map[string][]word{}
	}
	ss.arrays[name] = elems
}

// arrayWords returns the elements "${a[@]}" or ${a[*]} expands to.
func (ss *shellState) arrayWords(w *syntax.Word) ([]word, bool) {
	if len(ss.arrays) == 0 || len(w.Parts) != 1 {
		return nil, false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Exp != nil || p.Slice != nil || p.Repl != nil || p.Length || p.Excl {
		return nil, false
	}
	if p.Index == nil && (p.Param.Value == "@" || p.Param.Value == "*") {
		elems, ok := ss.arrays["@"] // the positional parameters (set -- …)
		return elems, ok
	}
	idx, ok := p.Index.(*syntax.Word)
	if !ok || (idx.Lit() != "@" && idx.Lit() != "*") {
		return nil, false
	}
	elems, ok := ss.arrays[p.Param.Value]
	return elems, ok
}

// wordsOf normalizes words without analysing their substitutions again.
func wordsOf(ws []*syntax.Word) []word {
	out := make([]word, 0, len(ws))
	for _, w := range ws {
		t, ok := litText(w)
		out = append(out, word{val: t, dyn: !ok, glob: hasGlob(t)})
	}
	return out
}

// setTaint records whether a variable holds a secret; the keys are also
// "&N" for a file descriptor (exec 3<.env) and "(history)" for the shell's
// history list (history -r ~/.ssh/id_rsa).
func (ss *shellState) setTaint(name string, t bool) {
	if ss.taint == nil {
		ss.taint = map[string]bool{}
	}
	ss.taint[name] = t
}

// setVals records the values the call gave a variable (nil: unknown). They
// only make answers stricter unless exact.
func (ss *shellState) setVals(name string, v *varVals) {
	delete(ss.listVars, name)
	if v == nil {
		if ss.vals != nil {
			delete(ss.vals, name)
		}
		return
	}
	if ss.vals == nil {
		ss.vals = map[string]*varVals{}
	}
	ss.vals[name] = v
}

// setsVar records a builtin or loop that assigns the variable name (for
// PATH in …, read PATH, printf -v PATH): like PATH=… it changes what the
// commands after it run.
// dyn: the name is only known at run time (printf -v "$n"), so it may be
// any of them.
func (a *analyzer) setsVar(by, name string, dyn bool) {
	name = a.ref(name)
	delete(a.listVars, name)
	if dyn {
		a.add(&rfact{kind: protocol.FactEnv, detail: by + " sets a variable named at run time", parent: -1,
			ask: reason("ask.env-prefix", by+" sets a variable whose name is only known at run time, which may be PATH")})
		return
	}
	if lookupEnv[name] || a.allexport && dangerousEnv(name) {
		a.add(&rfact{kind: protocol.FactEnv, detail: by + " sets " + name, parent: -1,
			ask: reason("ask.env-prefix", by+" sets "+name+", which changes what the command runs")})
	}
}

// ref is the variable assigning name assigns: the target of a nameref.
func (ss *shellState) ref(name string) string {
	if t := ss.refs[name]; t != "" {
		return t
	}
	return name
}

// lookupEnv are the variables that change what runs even when a loop or a
// builtin sets them without export: PATH is exported already and is the
// shell's own command lookup; the loader and BASH_ENV ones are usually
// exported too. (An unexported GIT_DIR or ENV reaches no child.)
var lookupEnv = map[string]bool{"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "BASH_ENV": true, "PS4": true, "PROMPT_COMMAND": true}

// builtinTargets are the variables a builtin assigns (its entry spec's
// argv.State and Assigns flags): read, mapfile and getopts their operands
// (every non-option word counts, read -a's too, which can only ask more),
// printf -v its value. printed is the parse that found the Assigns flags
// (the targets hold what the call prints), nil for the others.
func builtinTargets(spec *argv.Command, args []word) (out []word, printed *argv.Invocation) {
	switch {
	case spec == nil:
	case spec.State == argv.ReadsLine || spec.State == argv.SetsVars || spec.State == argv.ReadsLines:
		for _, w := range args {
			if !strings.HasPrefix(w.val, "-") || w.dyn {
				out = append(out, w)
			}
		}
	case slices.ContainsFunc(spec.Flags, func(f argv.Flag) bool { return f.Role == argv.Assigns }):
		inv := spec.ParseAt(len(args), func(i int) (string, bool) { return args[i].val, args[i].dyn })
		for _, u := range inv.Uses {
			switch {
			case u.Flag.Role != argv.Assigns || u.ValAt < 0:
			case u.ValAt == u.At:
				out = append(out, word{val: u.Value, dyn: args[u.At].dyn}) // printf -vNAME
			default:
				out = append(out, args[u.ValAt])
			}
		}
		printed = &inv
	}
	return out, printed
}

// builtinValue is what printf -v NAME FORMAT ARGS may store: one of its
// words that are not its Assigns flags or their values, when all are
// literal (stricter answers only); nil when nothing was printed (read and
// the others).
func builtinValue(printed *argv.Invocation, args []word) *varVals {
	if printed == nil {
		return nil
	}
	v := &varVals{}
	for i, w := range args {
		switch {
		case slices.ContainsFunc(printed.Uses, func(u argv.Use) bool {
			return u.Flag.Role == argv.Assigns && (u.At == i || u.ValAt == i)
		}):
		case w.dyn:
			return nil
		default:
			v.vals = append(v.vals, w.val)
		}
	}
	return v
}

// dangerousEnv lists variables that change what a command runs (SPEC §5.1).
func dangerousEnv(n string) bool {
	switch n {
	case "NODE_OPTIONS", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "BASH_ENV", "ENV", "PERL5OPT", "PERL5LIB",
		"RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER",
		"GIT_EDITOR", "EDITOR", "VISUAL", "GIT_ASKPASS", "SSH_ASKPASS", "GOFLAGS", "PATH", "PROMPT_COMMAND", "PS4",
		"GIT_SEQUENCE_EDITOR", "MAKEFLAGS", "RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER",
		"SHELLOPTS", "BASHOPTS", "IFS", "ZDOTDIR", "LESSOPEN", "GCONV_PATH", "MANPAGER", "GIT_DIR", "GIT_WORK_TREE",
		"CDPATH", "BASH_CMDS", "BASH_ALIASES", "GLOBIGNORE", "BASH_LOADABLES_PATH", "LESSCLOSE", "SYSTEMD_PAGER",
		"MAKEFILES", "GOENV", "GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOSUMDB", "GOINSECURE", "GOTOOLCHAIN",
		"CC", "CXX", "LD", "AR", "RUSTC", "RUSTDOC", "CARGO_HOME", "RUSTFLAGS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL",
		// config discovery: git, npm, pip … read $HOME/.gitconfig, $XDG_CONFIG_HOME/git/config,
		// so pointing them at a planted file runs its fsmonitor, textconv, script-shell
		"HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS",
		// module and library search paths: the program loads code from there
		"NODE_PATH", "PYTHONUSERBASE", "PERLLIB", "PERL5DB", "CLASSPATH", "LUA_INIT", "LUA_PATH", "LUA_CPATH",
		"RUBYGEMS_GEMDEPS", "RUSTC_LINKER",
		// less options (+!CMD) and lesskey files, whose #env sets LESSOPEN
		"LESS", "MORE", "LESSKEY", "LESSKEYIN", "LESSKEY_CONTENT", "LESSKEY_SYSTEM", "LESSKEYIN_SYSTEM",
		// options and config files a tool reads from the environment
		"ZIPOPT", "MANOPT", "RIPGREP_CONFIG_PATH", "WGETRC", "CURL_HOME",
		// the host and repository gh's queries talk to, and its configuration;
		// the cluster kubectl talks to, whose configuration may run a credential program
		"GH_HOST", "GH_REPO", "GH_CONFIG_DIR", "KUBECONFIG",
		// man's formatter: groff -U (unsafe requests), its programs and macros, the pages it formats
		"MANROFFOPT", "MANPATH", "GROFF_BIN_PATH", "GROFF_COMMAND_PREFIX", "GROFF_TMAC_PATH":
		return true
	}
	if isCommandEnv(n) {
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG", "GIT_SSH", "NPM_CONFIG_", "GIT_EXEC", "CGO_", "CARGO_TARGET_",
		"CARGO_BUILD_", "LUA_INIT_"} {
		// npm reads npm_config_* in any case
		if strings.HasPrefix(strings.ToUpper(n), p) {
			return true
		}
	}
	// MAVEN_OPTS, GRADLE_OPTS, JDK_JAVA_OPTIONS, SBT_OPTS, FZF_DEFAULT_OPTS …:
	// options for a JVM or tool (-javaagent:, --preview CMD) that load or run code;
	// RUSTC_WORKSPACE_WRAPPER and the like run in place of the compiler
	for _, suf := range []string{"_OPTS", "_OPTIONS", "_WRAPPER"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

// riskyEnv: NAME=VALUE changes what the command runs; static says the
// value is known (no expansion).
func riskyEnv(name, val string, static bool) bool {
	return dangerousEnv(name) && !(static && harmlessEnv(name, val))
}

// harmlessEnv reports a known value of a dangerousEnv variable that runs or
// loads nothing beyond what the command runs without it: a plain pager or
// no-op editor (GIT_PAGER=cat, EDITOR=true), CGO_ENABLED=0, GOFLAGS=-mod=mod,
// NODE_OPTIONS=--max-old-space-size=4096, JAVA_OPTS=-Xmx2g, MAKEFLAGS=-j4,
// npm_config_loglevel=silent. Agents set these on everyday builds and tests;
// asking for them trains users to approve env prefixes without reading.
// Anything else (a flag that names a file, a command, a URL) still asks.
// lessHarmless is a $LESS of long options that neither run nor write.
var lessHarmless = lazyRE(`^(\s*(-[A-Za-jl-nN-Zp-z#~0-9]+|--(mouse|no-init|chop-long-lines|ignore-case|use-color|incsearch|quit-if-one-screen|RAW-CONTROL-CHARS|raw-control-chars|tabs=\d+|wheel-lines=\d+|redraw-on-quit|status-column)))*\s*$`)

func harmlessEnv(name, val string) bool {
	if name == "IFS" {
		// IFS= read -r line: splitting on no more than white space, which
		// the gate already splits expansions on, hides no word
		return strings.Trim(val, " \t\n") == ""
	}
	if strings.ContainsAny(val, "\"'`$;|&<>(){}\n") {
		return false
	}
	fields := strings.Fields(val)
	if isCommandEnv(name) {
		return val == "" || val == "none" || shownCommand(val)
	}
	up := strings.ToUpper(name)
	switch {
	case up == "CGO_ENABLED":
		return val == "0" || val == "1"
	case up == "GOTOOLCHAIN":
		return val == "local" || val == "auto"
	case up == "LESS" || up == "MORE":
		// -R, -FRX, -x4, --mouse: not +CMD, -k/--lesskey-*, -o/-O log files
		return !strings.ContainsAny(val, "+kOo") || lessHarmless().MatchString(val)
	case up == "GOPROXY":
		for _, p := range strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == '|' }) {
			if p != "off" && p != "direct" && p != "https://proxy.golang.org" {
				return false
			}
		}
		return val != ""
	case strings.HasPrefix(up, "NPM_CONFIG_"):
		return harmlessNpmConfig[strings.ReplaceAll(strings.ToLower(name[len("NPM_CONFIG_"):]), "-", "_")]
	}
	flagOK := func(f string) bool { return false }
	switch {
	case up == "GOFLAGS":
		flagOK = func(f string) bool { return harmlessFlag(f, harmlessGoFlags) }
	case up == "NODE_OPTIONS":
		flagOK = func(f string) bool { return harmlessFlag(f, harmlessNodeFlags) }
	case up == "MAKEFLAGS":
		flagOK = func(f string) bool {
			return harmlessFlag(f, harmlessMakeFlags) || strings.Trim(f, "-j0123456789") == "" && strings.HasPrefix(f, "-j")
		}
	case strings.HasSuffix(up, "_OPTS") || strings.HasSuffix(up, "_OPTIONS"):
		// a JVM's heap and stack sizes; -D and -XX:OnError=… stay asks
		flagOK = func(f string) bool {
			for _, p := range []string{"-Xmx", "-Xms", "-Xss"} {
				if strings.HasPrefix(f, p) && len(f) > len(p) && strings.Trim(f[len(p):], "0123456789kKmMgG") == "" {
					return true
				}
			}
			return false
		}
	}
	for _, f := range fields {
		if !flagOK(f) {
			return false
		}
	}
	return len(fields) > 0
}

// shownCommand reports a command line its program's table entry declares
// harmless as a variable's command (argv.Command.CommandEnv): cat, true,
// less -R. The arguments must be spelled as declared.
func shownCommand(val string) bool {
	prog, args, _ := strings.Cut(val, " ")
	c := cmds.Lookup(prog)
	return c != nil && slices.Contains(c.CommandEnv, args)
}

// harmlessFlag: f is one of names, alone or as name=VALUE.
func harmlessFlag(f string, names map[string]bool) bool {
	if i := strings.IndexByte(f, '='); i > 0 {
		f = f[:i]
	}
	return names[f]
}

var (
	harmlessGoFlags = map[string]bool{"-mod": true, "-count": true, "-v": true, "-race": true, "-trimpath": true,
		"-buildvcs": true, "-short": true, "-p": true, "-tags": true, "-modcacherw": true, "-failfast": true,
		"-cover": true, "-timeout": true, "-json": true}
	harmlessNodeFlags = map[string]bool{"--max-old-space-size": true, "--max_old_space_size": true,
		"--enable-source-maps": true, "--no-warnings": true, "--trace-warnings": true, "--no-deprecation": true,
		"--trace-deprecation": true, "--trace-uncaught": true, "--openssl-legacy-provider": true,
		"--experimental-vm-modules": true, "--unhandled-rejections": true, "--stack-trace-limit": true,
		"--dns-result-order": true}
	harmlessMakeFlags = map[string]bool{"-k": true, "-s": true, "-w": true, "--silent": true, "--keep-going": true,
		"--no-print-directory": true, "--jobs": true}
	harmlessNpmConfig = map[string]bool{"loglevel": true, "fund": true, "audit": true, "progress": true, "color": true,
		"update_notifier": true, "yes": true, "legacy_peer_deps": true, "save_exact": true, "prefer_offline": true,
		"engine_strict": true, "unicode": true}
)
