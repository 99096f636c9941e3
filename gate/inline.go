package gate

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// Inline code (python -c, node -e, perl -e, ruby -e, php -r …) always asks:
// the gate does not analyse Python or JavaScript. But auto mode clears a
// plain ask, so the few shapes that make a one-liner as dangerous as the
// shell command it stands for are looked for in its text and raise it to
// what that command would get: the string literals that name files, the
// shell commands it hands to os.system or child_process, its recursive
// deletes, environment dumps, and secrets next to a network call. This can
// only add facts; code it does not understand still just asks.

// maxInlineLiterals bounds the literals looked at in one piece of code.
const maxInlineLiterals = 64

var (
	// inlineShellOut runs a string (or a list) as a command.
	inlineShellOut = lazyRE(`os\.system|os\.popen|os\.exec|os\.spawn|subprocess|commands\.getoutput|pty\.spawn|` +
		`child_process|execSync|execFileSync|spawnSync|\bexecFile\(|\bexec\(|\bspawn\(|\bsystem\s*[\(\s'"]|\bpopen|shell_exec|passthru|` +
		`proc_open|\bqx|%x|Open3|IO\.popen|Kernel\.exec|Deno\.Command|Deno\.run|Bun\.spawn|Bun\.\$|\$\.spawn|\$\x60|do shell script|` +
		`\bjobstart\(|\btermopen\(|\bjob_start\(|\bterm_start\(|vim\.system\(`)
	// tclExec is Tcl's exec (and expect's spawn): the words after it are an
	// argv, often unquoted (exec rm -rf /x), up to the end of the command.
	tclExec = lazyRE(`(?:^|[\[;\n{])\s*(?:exec|spawn)\s+([^\]\n;}]+)`)
	// inlineRecursiveDelete deletes a whole tree.
	inlineRecursiveDelete = lazyRE(`rmtree|rmSync|rmdirSync|removeSync|emptyDirSync|\bfs\.rm\(|promises\.rm\(|\brm_rf|\brm_r\b|remove_tree|` +
		`RemoveAll|Remove-Item|removedirs|Deno\.remove|recursive:\s*true`)
	// inlineDeleteArg is a literal handed straight to a recursive delete:
	// rmtree('/x'), rmSync("dist"), rm_rf(File.expand_path("~")).
	inlineDeleteArg = lazyRE(`(?:rmtree|rmSync|rmdirSync|removeSync|emptyDirSync|\bfs\.rm|promises\.rm|rm_rf|rm_r|remove_tree|RemoveAll|removedirs|Deno\.remove)\(\s*(?:(?:os\.path\.)?expanduser\(|File\.expand_path\(|Path\()?\s*['"]([^'"]*)['"]`)
	// inlineHome names the home directory without a literal path.
	inlineHome = lazyRE(`expanduser|homedir\(|Path\.home\(|['"]HOME['"]|\bENV\{HOME\}|env\.HOME|Dir\.home|\$HOME|getenv\(\s*['"]HOME`)
	// inlineHomeString is a string that starts with the home directory
	// interpolated (after a perl open mode): ">>$ENV{HOME}/.bashrc",
	// `${process.env.HOME}/.ssh/id_rsa`, "#{Dir.home}/.aws/credentials".
	inlineHomeString = lazyRE(`^(?:\+?[<>]{1,2}\s*)?(?:\$ENV\{\s*['"]?HOME['"]?\s*\}|\$\{\s*(?:process\.env\.HOME|os\.homedir\(\)|Deno\.env\.get\(['"]HOME['"]\))\s*\}|` +
		`#\{\s*(?:ENV\[['"]HOME['"]\]|Dir\.home)\s*\}|\{\s*(?:os\.environ\[['"]HOME['"]\]|Path\.home\(\)|os\.path\.expanduser\(['"]~['"]\))\s*\}|\$\{?HOME\}?)(/.*)$`)
	// inlineWrite opens or writes a file for writing.
	inlineWrite = lazyRE(`,\s*(mode\s*=\s*)?['"][wax]b?\+?['"]|write_text|write_bytes|writeFileSync|appendFileSync|\bwriteFile\(|` +
		`\bappendFile\(|File\.write|IO\.write|File\.open\([^)]*['"][wa]|\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['"]?\+?>|file_put_contents|copyfile|shutil\.copy|` +
		`shutil\.move|os\.rename|os\.replace|copyFileSync|renameSync|symlink`)
	// inlineEnvDump prints or serialises the whole environment.
	inlineEnvDump = lazyRE(`os\.environ\s*\)|os\.environ\.(items|copy|values)\(|dict\(\s*os\.environ|process\.env\s*(?:[\),;]|$)|` +
		`JSON\.stringify\(\s*process\.env|Object\.(keys|entries|values)\(\s*process\.env|%ENV|\bENV\.(to_h|each|to_a|inspect)|` +
		`\bp\s+ENV\b|getenv\(\s*\)|\$_ENV|Deno\.env\.toObject`)
	// inlineEnvVar reads one environment variable by a literal name:
	// os.environ["X"], os.getenv("X"), process.env.X, ENV["X"], $ENV{X}.
	inlineEnvVar = lazyRE(`(?:environ(?:\.get)?\s*[\[(]\s*|getenv\(\s*|ENV\[\s*|ENV\.fetch\(\s*|process\.env\[\s*|Deno\.env\.get\(\s*)['"]([A-Za-z_]\w*)['"]|` +
		`process\.env\.([A-Za-z_]\w*)|\$ENV\{\s*['"]?([A-Za-z_]\w*)`)
	// inlineNetwork reaches the network.
	inlineNetwork = lazyRE(`urllib|requests\.|http\.client|httpx|socket|\bfetch\(|https?\.(request|get)\(|XMLHttpRequest|` +
		`axios|LWP|HTTP::Tiny|Net::HTTP|open-uri|curl_|smtplib|ftplib|paramiko|WebSocket|dgram|\bnet\.connect`)
	// inlineEval runs a string as code: with a URL in the code, the
	// downloaded text is what runs (php -r "eval(file_get_contents(URL))").
	inlineEval = lazyRE(`\beval\s*\(|\bexec\s*\(|\bFunction\s*\(|\bload(string)?\s*\(|instance_eval|\brequire\s*\(\s*['"]https?:`)
	// inlineList is a list of string literals: ["rm", "-rf", "/x"].
	// Lua writes it in braces: vim.system({"rm", "-rf", "/x"}).
	// inlineArgv is a call's leading string arguments, a list's included:
	// ("rm", "-rf", "x") or ("rm", ["-rf", "x"]).
	inlineArgv = lazyRE(`\(\s*(?:'[^'\\]*'|"[^"\\]*")(?:\s*,\s*\[?\s*(?:'[^'\\]*'|"[^"\\]*"))+`)
	inlineList = lazyRE(`[\[{]\s*(?:(?:'[^'\\]*'|"[^"\\]*")\s*,\s*)*(?:'[^'\\]*'|"[^"\\]*")\s*,?\s*[\]}]`)
)

// inlineCall is the code an interpreter runs, read in stages: the commands
// it runs, the files it names, the trees it deletes, the code it downloads
// and the secrets it reads and sends.
type inlineCall struct {
	a      *analyzer
	f      *rfact
	idx    int
	sc     *scope
	lb     string // the interpreter's name
	code   string
	placed string   // code with the working and home directories written out
	lits   []string // its string literals, `…` included
	home   bool     // it names the home directory (os.homedir())
}

// inlineCode looks at the code an interpreter runs (lb is its name).
func (a *analyzer) inlineCode(f *rfact, idx int, lb, code string, sc *scope) {
	c := &inlineCall{a: a, f: f, idx: idx, sc: sc, lb: lb, code: code,
		home: inlineHome().MatchString(code),
		// what the code runs or deletes is read with its places written out
		placed: placesAsLiterals(code, sc.cwd),
		// `…` is a literal too: JavaScript's template strings do not run
		lits: codeLiterals(code, true)}
	c.commands()
	paths, secret := c.files()
	c.deletes(paths)
	c.downloadsCode()
	c.readsSecretVar()
	if inlineEnvDump().MatchString(code) {
		f.human = reason("human.env-dump", lb+" code prints the whole environment")
		secret = true
	}
	if secret && inlineNetwork().MatchString(code) {
		a.add(&rfact{kind: protocol.FactNetwork, detail: lb + " code", parent: idx,
			floor: reason("floor.exfil", lb+" code reads a secret and reaches the network")})
	}
}

// backticks: in the language `…` runs a shell command.
func (c *inlineCall) backticks() bool {
	ip := cmds.InterpOf(c.lb)
	return ip != nil && ip.Backticks
}

// commands analyses the shell commands the code runs: Tcl's exec, and
// with a call that runs a shell, each literal and concatenation of
// literals, and a program with its arguments given as a list.
func (c *inlineCall) commands() {
	a, sc, idx := c.a, c.sc, c.idx
	backticks := c.backticks()
	if ip := cmds.InterpOf(c.lb); ip != nil && ip.Exec {
		for _, m := range tclExec().FindAllStringSubmatch(c.code, 8) {
			a.reparse(m[1], sc, idx)
		}
	}
	if ip := cmds.InterpOf(c.lb); ip != nil && ip.Commands {
		a.reparse(c.code, sc, idx) // nu -c 'rm -rf ~'
	}
	if !inlineShellOut().MatchString(c.code) && !(backticks && strings.Contains(c.code, "`")) {
		return
	}
	// a command built by concatenation: os.system("r" + "m -rf ~")
	for _, l := range joinedLiterals(c.placed, backticks) {
		a.reparse(l, sc, idx)
	}
	for _, l := range codeLiterals(c.placed, true) {
		if strings.TrimSpace(l) != "" {
			a.reparse(l, sc, idx)
		}
	}
	// spawnSync("rm", ["-rf", "/x"]), system("rm", "-rf", "~"): the
	// program and its arguments, one argv
	for _, list := range append(inlineList().FindAllString(c.placed, 8), inlineArgv().FindAllString(c.placed, 8)...) {
		var argv []string
		for _, l := range codeLiterals(list, false) {
			argv = append(argv, shellQuote(l))
		}
		a.reparse(strings.Join(argv, " "), sc, idx)
	}
}

// files reads the paths the code's literals name: a sensitive one read is
// a secret, a persistence or protected one written a write.
func (c *inlineCall) files() (paths []string, secret bool) {
	a, sc, idx := c.a, c.sc, c.idx
	writes := inlineWrite().MatchString(c.code)
	a.inlineOwnFiles(c.f, idx, c.code, writes, c.backticks(), sc)
	for _, l := range c.lits {
		l = interpolatedHome(l)
		if pathLiteral(l) {
			paths = append(paths, l)
			if c.home && !strings.HasPrefix(l, "/") && !strings.HasPrefix(l, "~") {
				// path.join(os.homedir(), ".ssh"): maybe below the home
				paths = append(paths, "~/"+l)
			}
		}
	}
	for _, l := range paths {
		r := a.resolvePath(l, sc.cwd, false)
		if a.sensitive(r) || r.known && isEnvDumpPath(r.abs) {
			a.readFact(r, idx, false)
			secret = true
		}
		if w := a.resolvePath(l, sc.cwd, true); writes && (a.persistence(w) != "" || a.protectedWrite(w, false)) {
			a.writeFact(w, idx)
		}
	}
	return paths, secret
}

// deletes reads a recursive delete as rm -rf of each one-word literal;
// one the delete call does not name directly is only a guess, which a
// person decides (no one-sided deny).
func (c *inlineCall) deletes(paths []string) {
	a, f, lb := c.a, c.f, c.lb
	if !inlineRecursiveDelete().MatchString(c.code) {
		return
	}
	targets := 0
	direct := map[string]bool{}
	for _, m := range inlineDeleteArg().FindAllStringSubmatch(c.placed, 8) {
		direct[m[1]] = true
	}
	for _, l := range append(paths, codeLiterals(c.placed, true)...) {
		// rmtree('build'): any one-word literal may be the tree
		if l == "" || strings.ContainsAny(l, " \t\n") || len(l) >= 4096 {
			continue
		}
		targets++
		from := len(a.facts)
		a.reparse("rm -rf -- "+tildeQuote(l), c.sc, c.idx)
		if direct[l] {
			continue
		}
		// only a guess (print('/'.join(a)) beside an rmtree)
		for _, g := range a.facts[from:] {
			if g.floor != nil {
				g.human, g.floor = reason("human.rm-unresolved", lb+" code deletes a tree and names "+l), nil
			}
		}
	}
	if targets == 0 || c.home {
		f.human = reason("human.rm-unresolved", lb+" code deletes a tree whose path is only known at run time")
	}
}

// downloadsCode: code that evaluates what it fetches from a URL it names
// runs downloaded code.
func (c *inlineCall) downloadsCode() {
	if inlineEval().MatchString(c.code) && slices.ContainsFunc(c.lits, func(l string) bool {
		return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
	}) {
		c.f.human = reason("human.download-exec", c.lb+" code runs code it downloads")
	}
}

// readsSecretVar: print(os.environ["OPENAI_API_KEY"]) is echo
// $OPENAI_API_KEY; with a network call it is as often the key sent to its
// own service, so only code without one is asked about.
func (c *inlineCall) readsSecretVar() {
	code := c.code
	if inlineNetwork().MatchString(code) || c.f.human != nil {
		return
	}
	for _, ix := range inlineEnvVar().FindAllStringSubmatchIndex(code, maxInlineLiterals) {
		m := inlineEnvVar().FindStringSubmatch(code[ix[0]:ix[1]])
		rest := strings.TrimLeft(code[ix[1]:], "'\"])")
		if strings.HasPrefix(rest, ".length") || strings.HasSuffix(strings.TrimRight(code[:ix[0]], "os. "), "len(") {
			continue // its length, like ${#X}: is it loaded?
		}
		if n := m[1] + m[2] + m[3]; secretVarName(n) {
			c.f.human = reason("human.env-dump", c.lb+" code reads "+n+", a variable that holds a secret")
			return
		}
	}
}

// placesAsLiterals writes the expressions that stand for the working
// directory or the home directory (process.cwd(), os.getcwd(), Dir.pwd,
// os.homedir(), Path.home(), process.env.HOME, ENV["HOME"] …) as the
// string literals they evaluate to, so that what the code does with them
// is read like a path it spells: rmSync(process.cwd(), …) deletes the
// working directory, execSync("rm -rf " + process.env.HOME) is rm -rf ~.
func placesAsLiterals(code, cwd string) string {
	if cwd != "" && !strings.ContainsAny(cwd, `"\`) {
		code = inlineCwdExpr().ReplaceAllLiteralString(code, `"`+cwd+`"`)
	}
	return inlineHomeExpr().ReplaceAllLiteralString(code, `"~"`)
}

var (
	inlineCwdExpr  = lazyRE(`process\.cwd\(\)|\bos\.getcwd\(\)|\bgetcwd\(\)|(?:pathlib\.)?Path\.cwd\(\)|\bDir\.(?:pwd|getwd)\b|Deno\.cwd\(\)`)
	inlineHomeExpr = lazyRE(`(?:require\(\s*['"](?:node:)?os['"]\s*\)|\bos)\.homedir\(\)|(?:pathlib\.)?Path\.home\(\)|os\.path\.expanduser\(\s*['"]~['"]\s*\)|` +
		`File\.expand_path\(\s*['"]~['"]\s*\)|\bDir\.home\b|process\.env\.HOME\b|process\.env\[\s*['"]HOME['"]\s*\]|` +
		`os\.environ\[\s*['"]HOME['"]\s*\]|os\.(?:environ\.get|getenv)\(\s*['"]HOME['"]\s*\)|\bENV\[\s*['"]HOME['"]\s*\]|\$ENV\{\s*['"]?HOME['"]?\s*\}|` +
		`\bgetenv\(\s*['"]HOME['"]\s*\)|Deno\.env\.get\(\s*['"]HOME['"]\s*\)`)
)

// inlineOwnFiles makes code that names perm-peer's own files human-only,
// and a write the gate sees there a floor: in its string literals as
// written, with the variables the shell expanded in the code
// ("open('$XDG_STATE_HOME/…')") or the code expands itself
// (os.path.expandvars) read from the peer's environment, and pieces the
// code joins to a variable (os.environ['XDG_STATE_HOME'] + '/perm-peer/…').
func (a *analyzer) inlineOwnFiles(f *rfact, idx int, code string, writes, backticks bool, sc *scope) {
	for _, c := range a.spellings(code) {
		for _, l := range codeLiterals(c, backticks) {
			for _, s := range a.textSpellings(l, sc) {
				// any literal may be a file name: open('hard.db', 'w') through a hard link
				if r := a.resolvePath(s, sc.cwd, true); writes && fileLiteral(s) && a.protectedWrite(r, false) {
					a.writeFact(r, idx)
				} else if f.human == nil && (ownLiteral(s) || a.protected().mention(s) || strings.Contains(s, "$") && a.mayNameOwn(s)) {
					f.human = reason("human.protected-touch", "interpreter code names perm-peer's own policy, grants or database")
				}
			}
		}
	}
}

// fileLiteral reports a literal that may be a file name.
func fileLiteral(l string) bool {
	return l != "" && len(l) <= 4096 && !strings.ContainsAny(l, " \t\n\x00") && !strings.Contains(l, "://")
}

// ownLiteral is a piece of a path into perm-peer's own directories that
// code joins to a variable: "perm-peer", "/perm-peer/x.db".
func ownLiteral(s string) bool {
	l := strings.ToLower(s)
	return l == "perm-peer" || l == ".perm-peer" || strings.HasPrefix(l, "perm-peer/") || strings.HasPrefix(l, "/perm-peer/")
}

// textSpellings are a literal and, when it has a $, its value as a shell
// word in the peer's environment.
func (a *analyzer) textSpellings(l string, sc *scope) []string {
	if !strings.Contains(l, "$") || len(l) > 4096 {
		return []string{l}
	}
	w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(l))
	if err != nil {
		return []string{l}
	}
	var b strings.Builder
	envExpansion{a.env, a.vals}.word(w.Parts, sc, &b, true, false)
	return []string{l, b.String()}
}

// interpolatedHome rewrites a string that starts with the home directory
// interpolated to ~/…, and drops a perl open mode ("<.env" is .env).
func interpolatedHome(l string) string {
	if m := inlineHomeString().FindStringSubmatch(l); m != nil {
		return "~" + m[1]
	}
	if t := strings.TrimLeft(l, "+<>"); t != l && len(l)-len(t) <= 3 && pathLiteral(strings.TrimSpace(t)) {
		return strings.TrimSpace(t)
	}
	return l
}

// pathLiteral reports a literal that looks like a file name: absolute,
// home- or dot-relative, or with a directory part, or a sensitive base name
// on its own (".env").
func pathLiteral(l string) bool {
	if l == "" || len(l) > 4096 || strings.ContainsAny(l, "\n\x00") || strings.Contains(l, "://") {
		return false
	}
	if strings.HasPrefix(l, "/") || strings.HasPrefix(l, "~") || strings.HasPrefix(l, "./") || strings.HasPrefix(l, "../") {
		return true
	}
	if strings.ContainsAny(l, " \t") {
		return false
	}
	return strings.Contains(l, "/") || strings.HasPrefix(l, ".")
}

// codeLiterals returns the text of the quoted strings in code ('…', "…",
// and `…` when backticks run commands), escapes left as written but for \'
// and \". Python's triple quotes come out as their inner text.
func codeLiterals(code string, backticks bool) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < maxInlineLiterals; i++ {
		q := code[i]
		if q != '\'' && q != '"' && (q != '`' || !backticks) {
			continue
		}
		if strings.HasPrefix(code[i:], strings.Repeat(string(q), 3)) {
			end := strings.Index(code[i+3:], strings.Repeat(string(q), 3))
			if end < 0 {
				return append(out, code[i+3:])
			}
			out = append(out, code[i+3:i+3+end])
			i += 5 + end
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(code) && code[j] != q; j++ {
			if code[j] == '\\' && j+1 < len(code) && (code[j+1] == q || code[j+1] == '\\') {
				j++
			}
			b.WriteByte(code[j])
		}
		out = append(out, b.String())
		i = j
	}
	return out
}

// joinedLiterals returns the strings code builds by joining adjacent
// literals: with + (Python, JS, Ruby), . (Perl, PHP), .. (Lua), << or
// nothing but blanks (Python, awk): "r" + "m -rf ~" is "rm -rf ~".
func joinedLiterals(code string, backticks bool) []string {
	var out []string
	var cur strings.Builder
	parts := 0
	flush := func() {
		if parts > 1 && len(out) < maxInlineLiterals {
			out = append(out, cur.String())
		}
		cur.Reset()
		parts = 0
	}
	for i := 0; i < len(code); {
		q := code[i]
		if q != '\'' && q != '"' && (q != '`' || !backticks) {
			i++
			continue
		}
		j := i + 1
		var b strings.Builder
		for ; j < len(code) && code[j] != q; j++ {
			if code[j] == '\\' && j+1 < len(code) && (code[j+1] == q || code[j+1] == '\\') {
				j++
			}
			b.WriteByte(code[j])
		}
		if j >= len(code) {
			break
		}
		cur.WriteString(b.String())
		parts++
		// what joins it to the next literal, if anything does
		k := j + 1
		for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
			k++
		}
		for _, op := range []string{"..", "<<", "+", "."} {
			if strings.HasPrefix(code[k:], op) {
				k += len(op)
				break
			}
		}
		for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
			k++
		}
		if k >= len(code) || code[k] != '\'' && code[k] != '"' && (code[k] != '`' || !backticks) {
			flush()
		}
		i = k
	}
	flush()
	return out
}

// tildeQuote quotes s as one shell word but leaves a leading ~ to expand:
// the code's ~ is taken as the home directory, the stricter reading.
func tildeQuote(s string) string {
	if s == "~" {
		return s
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		return "~/" + shellQuote(rest)
	}
	return shellQuote(s)
}
