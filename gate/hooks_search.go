// hooks_search.go reads grep and its kin: whether a pattern may select a
// secret's line, the values of their flags that name secrets.

package gate

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// grep reads a search (grep and its kin, rg, ag, ack): what it reads,
// the programs it runs, and whether its output may carry a secret.
func (c *plainCall) grep() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	sp := cmds.SearchOf(lb)
	s := readSearch(sp, args)
	c.listing = s.listing(sp)
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
	for _, w := range s.flagFiles {
		a.readWord(w, sc, idx, false) // rg --ignore-file F: its bad lines are echoed in errors
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
	if s.searchesHidden() {
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
	if s.pager {
		f.ask = reason("ask.flag", lb+" --pager runs a program its output goes through")
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

// filterMayKeepSecret reports a search used as a line filter (… | grep
// PATTERN, rg, egrep, fgrep) whose kept names may include a secret's: -v,
// -e/-f or a pattern, read in the program's dialect, that is unknown or
// matches one of secretNameSamples (grep .env does, grep '\.go$' does not).
func filterMayKeepSecret(lb string, args []word) bool {
	ops := operands(args, nil)
	if len(ops) != 1 || hasShort(args, "vef") || hasLongAbbrev(args, "--invert-match", "--regexp", "--file") || args[ops[0]].dyn {
		return true
	}
	p := args[ops[0]].val
	d := cmds.BasicRE // the program's dialect with no flag: egrep's is extended, rg's its own
	if sp := cmds.SearchOf(lb); sp != nil {
		d = sp.Dialect
	}
	switch {
	case hasShort(args, "F") || hasLongAbbrev(args, "--fixed-strings") || d == cmds.FixedStrings:
		p = regexp.QuoteMeta(p)
	case !hasShort(args, "EP") && !hasLongAbbrev(args, "--extended-regexp", "--perl-regexp") && d == cmds.BasicRE:
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

// hooked says the program's table entry names hook h.
func (c *plainCall) hooked(h string) bool { return c.spec != nil && c.spec.Hook == h }

// fdCommand analyses the command fd -x/-X runs on each entry found: a
// placeholder ({}, {/}, {//}, {.}, {/.}) stands for a path only known at run
// time, and without one fd appends the path.
// secret: the entries may be secrets (fd -H env -X cat).
func (c *plainCall) fdCommand(cmd []word, secret bool) summary {
	if len(cmd) == 0 {
		return summary{}
	}
	inner := append([]word{}, cmd...)
	placed := false
	for k := range inner {
		if fdRepl().MatchString(inner[k].val) {
			inner[k].dyn, inner[k].secretPaths, placed = true, secret, true
		}
	}
	if !placed {
		inner = append(inner, word{val: "{}", dyn: true, secretPaths: secret})
	}
	return c.a.inner(inner, c.sc, c.idx)
}

// fdMaySelectSecret reports an fd search (its options opts, operands
// ops of them: the pattern, then the roots) whose filter may keep a
// secret's name: no pattern, one only known at run time, a regular
// expression (any case) or -g glob (whose * matches a leading dot) that
// matches a secret's name, or an -e extension of one (fd -e pem).
// hidden: it lists hidden names (-H, -u); else only secrets whose names
// do not start with a dot count (id_rsa, server.pem).
func fdMaySelectSecret(opts []word, ops []int, hidden bool) bool {
	for _, e := range flagValues(opts, "-e", "--extension") {
		if e.dyn || isSensitiveName("x."+strings.ToLower(strings.TrimPrefix(e.val, "."))) {
			return true
		}
	}
	if len(ops) == 0 || opts[ops[0]].dyn {
		return len(flagValues(opts, "-e", "--extension")) == 0 // every name
	}
	p := opts[ops[0]].val
	if hasFlag(opts, "-g", "--glob") {
		return patternMaySelectSecret(p, true) && (hidden || !strings.HasPrefix(p, "."))
	}
	re, err := regexp.Compile("(?i)" + p)
	return err != nil || slices.ContainsFunc(secretNameSamples, func(s string) bool {
		base := path.Base(s)
		return (hidden || base[0] != '.') && re.MatchString(base)
	})
}

// searches reads the searches and the languages: grep, sed, awk, jq, fd.
// It reports whether one of its arms matched.
func (c *plainCall) searches() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	s := &c.s
	switch {
	case c.hooked("search"):
		c.grep()
	case c.hooked("sed"):
		a.sed(f, idx, c.spec, args, sc)
	case c.hooked("awk"):
		s.taint = a.awk(f, idx, c.spec, args, sc) || s.taint
	case c.hooked("jq"), c.hooked("yq"):
		s.taint = a.jq(f, idx, c.hooked("yq"), lb, args, sc) || s.taint
	case c.hooked("fd"):
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
		// its output is names under the project, hidden ones with -H or
		// -u; its pattern may aim at secrets (never broad)
		c.listing = nameListing{names: true, secret: c.setsAny(cmds.SearchHidden, cmds.SearchUnrestricted)}
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
			under := roots
			if len(under) == 0 {
				under = []word{{val: "."}}
			}
			a.changesUnder(cmd, under, fdRepl(), true, sc)
			c.s.or(c.fdCommand(cmd, fdMaySelectSecret(opts, ops, c.setsAny(cmds.SearchHidden, cmds.SearchUnrestricted))))
			f.wrapper = true
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
