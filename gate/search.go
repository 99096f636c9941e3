package gate

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// A search command line (grep and its variants, rg, ag, ack) read the way
// the tool reads it: which words are patterns and which are paths, and the
// options that decide what reaches the output. A recursive search that
// also reads hidden files prints what .env and key files hold whenever its
// pattern can match their lines: that is a sensitive read (SPEC 5.4).

// searchCmd is what a search command line says.
type searchCmd struct {
	patterns     []word // -e/--regexp values, else the first operand
	patternGiven bool   // the patterns came from -e or -f
	patternFiles []word // -f/--file: patterns read from these files
	flagFiles    []word // the values of its flags of Role Read (rg --ignore-file F)
	fromFile     bool   // some patterns come from a file (or stdin)
	paths        []word // the operands that are not the pattern
	globs        []string

	recursive bool // grep -r/-R/-d recurse
	hidden    bool // rg --hidden/-./-uu, ag --hidden/-u
	unrestr   int  // rg -u count
	// askedHidden: a flag asked for hidden files (rg --hidden, -., -u),
	// whatever came after it (--no-hidden)
	askedHidden bool
	follow      bool // grep -R, rg -L, --follow: goes where links point
	// skipsHidden: rg and ag leave out hidden names unless told not to
	skipsHidden bool
	// reGlobs: the globs are ag's -G/-g regexps, not name globs
	reGlobs bool
	// hiddenRule: when the search reads hidden files
	hiddenRule cmds.Hidden

	dialect    dialect
	ignoreCase bool // the last of -i/-y/-s/--no-ignore-case given
	smartCase  bool
	word, line bool
	invert     bool
	// everyLine: it prints every line of each file it searches, the
	// matching ones marked (rg --passthru)
	everyLine bool
	// context: the output holds more than the matching lines (-A/-B/-C,
	// grep -z reading a whole file as one line, rg -U across lines).
	context bool
	pre     bool     // rg --pre/-z runs a program on each file
	preCmds []string // the programs of --pre, --pager and git grep -O, when given
	pager   bool     // ag --pager: its output goes through a program
	files   bool     // rg --files: the operands are all paths
	// namesOnly: the output holds file names, counts or nothing, no line
	// (-l, -L, -c, -q); it overrides context and -o
	namesOnly bool
	// listsNames: the output is the names of files searched (-l, -L, -c)
	listsNames bool
	// odd are long options given a value that the table says take none
	// (rg --hidden=~/.ssh)
	odd []string
	// unknown: a flag the table does not declare was given (grep -g):
	// what it picks is not known
	unknown bool
}

// dialect is how a search reads its patterns (cmds.Dialect).
type dialect = cmds.Dialect

const (
	basicRE      = cmds.BasicRE
	extendedRE   = cmds.ExtendedRE
	fixedStrings = cmds.FixedStrings
	perlRE       = cmds.PerlRE
	rustRE       = cmds.RustRE
)

// readSearch reads args as the search sp reads them: each flag the table
// declares sets what its entry says, whatever its spelling (grep -e .env
// and --regexp=.env are both a pattern, grep -R and
// --dereference-recursive both follow links); the first operand is the
// pattern unless a flag gave one.
func readSearch(sp *cmds.Search, args []word) searchCmd {
	s := searchCmd{dialect: sp.Dialect, recursive: sp.Recursive, hiddenRule: sp.Hidden,
		skipsHidden: sp.Hidden == cmds.HiddenIfAsked, smartCase: sp.SmartCase, reGlobs: sp.RegexpGlobs}
	inv := parseArgs(sp.Cmd, args)
	for _, u := range inv.Uses {
		v, ok := valueWord(args, u)
		s.set(u.Flag, v, ok)
		if u.Flag.Role == argv.Read && ok {
			s.flagFiles = append(s.flagFiles, v)
		}
		if u.Flag.Sets == cmds.SearchColorWhen && ok && !slices.Contains(cmds.ColorWhens, v.val) {
			// --color=WHEN of a value the program refuses
			name, _, _ := strings.Cut(args[u.At].val, "=")
			s.odd = append(s.odd, name)
		}
	}
	s.unknown = len(inv.Unknown) > 0
	for _, w := range inv.Unknown {
		// --x=V of a flag that takes no value, or of one the table lacks:
		// odd, and read as the flag it names (fail closed: ag --hidden=x
		// still reads hidden files)
		if name, _, eq := strings.Cut(w, "="); eq && strings.HasPrefix(w, "--") {
			s.odd = append(s.odd, name)
			for _, u := range sp.Cmd.Parse([]string{name}, nil).Uses {
				s.set(u.Flag, word{}, false)
			}
		}
	}
	ops := inv.Operands
	if !s.patternGiven && !s.files && len(ops) > 0 {
		s.patterns, ops = append(s.patterns, args[ops[0]]), ops[1:]
	}
	s.paths = make([]word, 0, len(ops))
	for _, i := range ops {
		s.paths = append(s.paths, args[i])
	}
	return s
}

// positive reports a context length the tool accepts and that is above 0;
// a value it cannot read counts (fail closed).
func positive(w word) bool {
	n, err := strconv.Atoi(strings.TrimSpace(w.val))
	return w.dyn || err != nil || n > 0
}

func (s *searchCmd) pattern(w word, ok bool) {
	if ok {
		s.patterns, s.patternGiven = append(s.patterns, w), true
	}
}

func (s *searchCmd) patternFile(w word, ok bool) {
	s.patternGiven, s.fromFile = true, true
	if ok {
		s.patternFiles = append(s.patternFiles, w)
	}
}

// set applies what flag f sets (cmds.Search…), with its value v when ok.
func (s *searchCmd) set(f *argv.Flag, v word, ok bool) {
	switch f.Sets {
	case cmds.SearchPattern:
		s.pattern(v, ok)
	case cmds.SearchPatternFile:
		s.patternFile(v, ok)
	case cmds.SearchIgnoreCase:
		s.ignoreCase, s.smartCase = true, false
	case cmds.SearchMatchCase:
		s.ignoreCase, s.smartCase = false, false
	case cmds.SearchSmartCase:
		s.ignoreCase, s.smartCase = false, true
	case cmds.SearchWords:
		s.word = true
	case cmds.SearchLines:
		s.line = true
	case cmds.SearchInvert:
		s.invert = true
	case cmds.SearchEveryLine:
		s.everyLine = true
	case cmds.SearchContextLines:
		s.context = s.context || !ok || positive(v)
	case cmds.SearchContext:
		s.context = true
	case cmds.SearchExtended:
		s.dialect = extendedRE
	case cmds.SearchFixed:
		s.dialect = fixedStrings
	case cmds.SearchBasic:
		s.dialect = basicRE
	case cmds.SearchPerl:
		s.dialect = perlRE
	default:
		s.setScope(f, v, ok)
	}
}

// setScope applies what flag f sets of where the search goes and what it
// prints (recursion, links, hidden files, names, programs it runs).
func (s *searchCmd) setScope(f *argv.Flag, v word, ok bool) {
	switch f.Sets {
	case cmds.SearchRecurse:
		s.recursive = true
	case cmds.SearchRecurseFollow:
		s.recursive, s.follow = true, true
	case cmds.SearchRecurseIf:
		s.recursive = s.recursive || v.val == "recurse" || v.dyn
	case cmds.SearchFollow:
		s.follow = true
	case cmds.SearchHidden:
		s.hidden, s.askedHidden = true, true
	case cmds.SearchNoHidden:
		s.hidden = false
	case cmds.SearchUnrestricted:
		s.unrestr++
		s.askedHidden = true
	case cmds.SearchNamesOnly:
		s.namesOnly = true
	case cmds.SearchListNames:
		s.namesOnly, s.listsNames = true, true
	case cmds.SearchInclude:
		s.globs = append(s.globs, v.val)
	case cmds.SearchPreprocess:
		s.pre = true
		if f.Role == argv.Run && ok && v.val != "" {
			s.preCmds = append(s.preCmds, v.val)
		}
	case cmds.SearchPager:
		s.pager = true
		if ok && v.val != "" {
			s.preCmds = append(s.preCmds, v.val)
		}
	case cmds.SearchListFiles:
		s.files = true
	}
}

// nameListing is what a command's output lists for what reads it (a
// search's hook or fd's says, prints reads): names of files under the
// project (names), which may be secrets' (secret: hidden files are
// listed), and not aimed at them by a glob (broad: the listing of a
// whole tree, as git ls-files is).
type nameListing struct{ names, secret, broad bool }

// listing is what search sp prints for what reads its output: the names
// of the files it searched (-l, -L, -c's NAME:COUNT, rg --files) when
// its entry says they are read so (cmds.Search's Listing); they may be
// secrets' when it reads hidden files (grep -r without --include; rg
// asked for them, -u once included), and are broad when no glob, and no
// flag the table lacks (grep -g), picks them.
func (s searchCmd) listing(sp *cmds.Search) nameListing {
	if !sp.Listing || !s.listsNames && !s.files {
		return nameListing{}
	}
	switch s.hiddenRule {
	case cmds.HiddenIfRecursive:
		secret := s.recursive && len(s.globs) == 0
		return nameListing{names: true, secret: secret, broad: secret && !s.unknown}
	case cmds.HiddenIfAsked:
		return nameListing{names: true, secret: s.askedHidden, broad: s.askedHidden && len(s.globs) == 0 && !s.unknown}
	}
	return nameListing{names: true, secret: true} // fail closed
}

// hiddenSecretNames are files a search that reaches hidden files reads
// secrets from; an include glob that matches none of them keeps them out.
var hiddenSecretNames = []string{".env", ".env.local", ".envrc", ".npmrc", ".netrc", ".pgpass", "id_rsa", "id_ed25519"}

// searchesHidden reports a recursive search that reads hidden files: grep
// -r (unless every --include glob keeps the secrets out), rg --hidden / -.
// / -uu, ag --hidden / -u.
func (s searchCmd) searchesHidden() bool {
	switch s.hiddenRule {
	case cmds.HiddenIfRecursive:
		if !s.recursive {
			return false
		}
		if len(s.globs) == 0 {
			return true
		}
		for _, g := range s.globs {
			for _, n := range hiddenSecretNames {
				if shellGlobMatch(g, n) {
					return true
				}
			}
		}
		return false
	case cmds.HiddenIfAsked:
		return s.hidden || s.unrestr >= 2
	}
	return false
}

// secretSearch matches search patterns that look for secrets: names of
// secrets (token and key as words, not tokenizer or monkey), and the
// prefixes of well-known token formats.
var secretSearch = lazyRE(`(?i)pass(word|wd|phrase)|secret|credential|authorization|bearer|private[ _-]?key|-----begin|` +
	`(^|[^a-z])(token|key|apikey)s?([^a-z]|$)|(^|[^a-z])(akia|ghp_|github_pat|glpat-|xox[abposr]-|sk-)`)

// secretLines are lines of the shapes .env, .envrc and key files hold,
// with values that hold no two letters in a row: a search pattern that
// matches one of them prints such lines (API_KEY=..., export X=..., a key's
// BEGIN line) without naming a secret, like grep -rn "=" . or grep -rn API .
var secretLines = []string{
	"API_KEY=8c1f0e27d5",
	`export DB_PASSWORD="8c1f0e27d5"`,
	"-----BEGIN OPENSSH PRIVATE KEY-----",
	// a key's body (every RSA or PKCS#8 key starts MII) and a bare
	// NAME=value: grep -r MII . and grep -r 'T=' . print them where the
	// gate cannot walk the scope (searchscope.go decides where it can)
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
	"SECRET=8c1f0e27d5",
	"GITHUB_TOKEN=ghp_8c1f0e27d5",
	// the names a service's key is kept under (grep -rn aws . prints
	// AWS_SECRET_ACCESS_KEY=…), and connection strings with a password
	// (grep -rn postgres:// . prints DATABASE_URL=postgres://u:pw@…)
	"AWS_ACCESS_KEY_ID=8C1F0E27D5",
	"DATABASE_URL=postgres://8c1f:8c1f0e27d5@10.0.0.1/8", "DATABASE_URL=postgresql://8c1f:8c1f0e27d5@10.0.0.1/8",
	"DATABASE_URL=mysql://8c1f:8c1f0e27d5@10.0.0.1/8", "MONGODB_URI=mongodb+srv://8c1f:8c1f0e27d5@10.0.0.1/8",
	"REDIS_URL=redis://:8c1f0e27d5@10.0.0.1", "AMQP_URL=amqp://8c1f:8c1f0e27d5@10.0.0.1",
	"OPENAI_API_KEY=8c1f0e27d5", "ANTHROPIC_API_KEY=8c1f0e27d5", "STRIPE_SECRET_KEY=8c1f0e27d5",
	"SLACK_BOT_TOKEN=8c1f0e27d5", "NPM_TOKEN=8c1f0e27d5", "GITLAB_TOKEN=8c1f0e27d5", "HF_TOKEN=8c1f0e27d5",
	"HEROKU_API_KEY=8c1f0e27d5", "VERCEL_TOKEN=8c1f0e27d5", "CLOUDFLARE_API_TOKEN=8c1f0e27d5",
	"DIGITALOCEAN_TOKEN=8c1f0e27d5", "PYPI_TOKEN=8c1f0e27d5",
}

// huntsSecrets says why a search's output would carry secrets, or "": the
// match is inverted or prints more than the matching lines (context, whole
// files as one line), or a pattern names a secret, matches (nearly) every
// line or a line shaped like a secret's (secretLines), or cannot be known
// (a pattern file, a variable, a regexp Go cannot read).
func (s searchCmd) huntsSecrets() string {
	if s.namesOnly {
		// grep -rl postgres . prints names, not lines: only a pattern aimed
		// at a secret (one that names it, or unknown) probes its value
		if s.fromFile {
			return "reads its patterns from a file"
		}
		for _, p := range s.patterns {
			if p.dyn || secretSearch().MatchString(p.val) {
				return "has a pattern aimed at secrets"
			}
		}
		return ""
	}
	switch {
	case s.invert:
		return "prints every line that does not match"
	case s.everyLine:
		return "prints every line of each file it searches"
	case s.context:
		return "prints the lines around each match"
	case s.fromFile:
		return "reads its patterns from a file"
	}
	for _, p := range s.patterns {
		if p.dyn {
			return "has a pattern only known at run time"
		}
		// grep reads each line of a pattern as a pattern of its own.
		for _, line := range strings.Split(p.val, "\n") {
			if s.matchesSecretLine(line) {
				return "has a pattern that matches lines secrets are kept in"
			}
		}
	}
	return ""
}

func (s searchCmd) matchesSecretLine(p string) bool {
	if strings.Trim(p, "^$.*") == "" || secretSearch().MatchString(p) {
		return true
	}
	expr, ok := s.regexp(p)
	if !ok {
		return true
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return true
	}
	for _, line := range secretLines {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

// regexp is a search pattern as a Go regexp, in the tool's dialect and
// with its case, word and line options; false when it cannot be written
// so (a back-reference).
func (s searchCmd) regexp(p string) (string, bool) {
	re := p
	switch s.dialect {
	case fixedStrings:
		re = regexp.QuoteMeta(p)
	case basicRE, extendedRE:
		var ok bool
		if re, ok = gnuToGo(p, s.dialect == basicRE); !ok {
			return "", false
		}
	}
	switch {
	case s.line:
		re = `^(?:` + re + `)$`
	case s.word:
		// GNU -w: no word character right before or after the match.
		re = `(?:^|\W)(?:` + re + `)(?:\W|$)`
	}
	if s.ignoreCase || s.smartCase && strings.ToLower(p) == p {
		re = `(?i)` + re
	}
	return re, true
}

// gnuToGo rewrites a GNU basic (basic) or extended regexp in Go's syntax.
// In a basic one \( \) \{ \} \+ \? \| are the operators and the bare
// characters literals. GNU's \< \> become \b, \w \W \s \S \b \B stay, and
// any other backslashed letter or digit is that character (grep -E '\A'
// is "A", not Go's start of text). A back-reference (\1) cannot be
// written in Go: false.
func gnuToGo(p string, basic bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			e := p[i]
			switch {
			case basic && strings.IndexByte("(){}+?|", e) >= 0:
				b.WriteByte(e)
			case e == '<' || e == '>':
				b.WriteString(`\b`)
			case strings.IndexByte("wWsSbB", e) >= 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			case e >= '1' && e <= '9':
				return "", false
			case e == '`':
				b.WriteString(`\A`)
			case e == '\'':
				b.WriteString(`\z`)
			default:
				b.WriteString(regexp.QuoteMeta(string(e)))
			}
		case basic && (strings.IndexByte("(){}+?|", c) >= 0 || c == '*' && b.Len() == 0):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// regularFiles reports search operands that are all regular files on disk
// now (a symlink counts as what it points to): grep -r of a file reads
// only that file, no hidden file beside it.
func (pl *places) regularFiles(paths []word, sc *scope) bool {
	if len(paths) == 0 {
		return false
	}
	for _, w := range paths {
		if w.dyn {
			return false
		}
		r := pl.resolvePath(w.val, sc.cwd, false)
		if !r.known || r.glob {
			return false
		}
		fi, err := os.Stat(r.real)
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// clearedSearch is the hidden-file fact of a search (by its index) and
// why it reads no secret after all.
type clearedSearch struct {
	fact int
	why  string
}

// searchesOnlyFiles clears the hidden-file read of a recursive search of
// regular files, or of directories that hold no sensitive file, when
// nothing else in the call writes, deletes or runs an unknown program: the
// files cannot become a directory or a link to one (rm x.yml; ln -s . x.yml),
// nor a .env appear, before or while grep reads them.
func (fl *factLog) searchesOnlyFiles() {
	if len(fl.fileSearches) == 0 {
		return
	}
	only := make(map[int]bool, len(fl.fileSearches))
	for _, c := range fl.fileSearches {
		only[c.fact] = true
	}
	for i, f := range fl.facts {
		if only[i] {
			continue
		}
		switch {
		case f.floor != nil || f.human != nil || f.ask != nil,
			f.kind == protocol.FactExec && f.safe == nil,
			f.kind != protocol.FactExec && f.kind != protocol.FactRead:
			return
		}
	}
	for _, c := range fl.fileSearches {
		fl.facts[c.fact].human = nil
		fl.facts[c.fact].safe = reason("gate.read", c.why)
	}
}
