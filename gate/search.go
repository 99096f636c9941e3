package gate

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
	fromFile     bool   // some patterns come from a file (or stdin)
	paths        []word // the operands that are not the pattern
	globs        []string

	recursive bool // grep -r/-R/-d recurse
	hidden    bool // rg --hidden/-./-uu, ag --hidden/-u
	unrestr   int  // rg -u count
	follow    bool // grep -R, rg -L, --follow: goes where links point
	// skipsHidden: rg and ag leave out hidden names unless told not to
	skipsHidden bool
	// reGlobs: the globs are ag's -G/-g regexps, not name globs
	reGlobs bool

	dialect    dialect
	ignoreCase bool // the last of -i/-y/-s/--no-ignore-case given
	smartCase  bool
	word, line bool
	invert     bool
	// context: the output holds more than the matching lines (-A/-B/-C,
	// grep -z reading a whole file as one line, rg -U across lines).
	context bool
	pre     bool     // rg --pre/-z runs a program on each file
	preCmds []string // the programs of --pre and git grep -O, when given
	files   bool     // rg --files: the operands are all paths
	// namesOnly: the output holds file names, counts or nothing, no line
	// (-l, -L, -c, -q); it overrides context and -o
	namesOnly bool
	// odd are long options given a value that the table says take none
	// (rg --hidden=~/.ssh)
	odd []string
}

type dialect int

const (
	basicRE dialect = iota // GNU grep's default
	extendedRE
	fixedStrings
	perlRE // grep -P, ag
	rustRE // rg: RE2-like, read as Go reads it
)

// searchOptions lists a tool's options: the short letters that take a
// value, and its long options (true: takes a value). GNU getopt tools
// (grep, ag) accept unique abbreviations of long options; rg does not.
type searchOptions struct {
	shortValue string
	long       map[string]bool
	abbrev     bool
	// choices are the long options that take no separate value but may
	// have one attached from a fixed set (--color[=WHEN]): any other
	// attached value is odd
	choices map[string][]string
	// synonyms are long options that are another's spelling (--colour is
	// --color): a prefix of both is that option, not ambiguous
	synonyms map[string]string
}

// colorChoices are the values of GNU grep's and git's --color[=WHEN].
var colorChoices = map[string][]string{"color": {"auto", "always", "never"}, "colour": {"auto", "always", "never"}}

var grepOptions = searchOptions{shortValue: "ABCDdefmX", abbrev: true, long: map[string]bool{
	"extended-regexp": false, "fixed-strings": false, "basic-regexp": false, "perl-regexp": false,
	"regexp": true, "file": true, "ignore-case": false, "no-ignore-case": false, "word-regexp": false,
	"line-regexp": false, "null-data": false, "no-messages": false, "invert-match": false, "version": false,
	"help": false, "max-count": true, "byte-offset": false, "line-number": false, "no-line-number": false,
	"line-buffered": false, "with-filename": false, "no-filename": false, "label": true,
	"only-matching": false, "quiet": false, "silent": false, "binary-files": true, "text": false,
	"directories": true, "devices": true, "recursive": false, "dereference-recursive": false,
	"include": true, "exclude": true, "exclude-from": true, "exclude-dir": true,
	"files-without-match": false, "files-with-matches": false, "count": false, "initial-tab": false,
	"null": false, "after-context": true, "before-context": true, "context": true,
	"group-separator": true, "no-group-separator": false, "color": false, "colour": false,
}, choices: colorChoices, synonyms: map[string]string{"colour": "color"}}

var rgOptions = searchOptions{shortValue: "ABCEMTdefgjmrt", long: map[string]bool{
	"regexp": true, "file": true, "after-context": true, "before-context": true, "context": true,
	"glob": true, "iglob": true, "type": true, "type-not": true, "type-add": true, "type-clear": true,
	"max-count": true, "max-depth": true, "max-columns": true, "max-filesize": true, "threads": true,
	"replace": true, "encoding": true, "engine": true, "color": true, "colors": true,
	"context-separator": true, "field-context-separator": true, "field-match-separator": true,
	"path-separator": true, "pre": true, "pre-glob": true, "sort": true, "sortr": true,
	"ignore-file": true, "dfa-size-limit": true, "regex-size-limit": true, "hostname-bin": true,
	"hyperlink-format": true, "generate": true, "maxdepth": true,
}}

// gitGrepOptions are git grep's (-O[PAGER] runs a program: see parseSearch).
var gitGrepOptions = searchOptions{shortValue: "ABCefm", abbrev: true, long: map[string]bool{
	"regexp": true, "file": true, "after-context": true, "before-context": true, "context": true,
	"max-depth": true, "threads": true, "max-count": true, "open-files-in-pager": false, "color": false,
	"extended-regexp": false, "fixed-strings": false, "basic-regexp": false, "perl-regexp": false,
	"ignore-case": false, "word-regexp": false, "invert-match": false, "no-index": false, "untracked": false,
	"cached": false, "recurse-submodules": false, "and": false, "or": false, "not": false, "all-match": false,
	"line-number": false, "column": false, "count": false, "files-with-matches": false, "name-only": false,
	"files-without-match": false, "null": false, "heading": false, "break": false, "show-function": false,
	"function-context": false, "only-matching": false, "quiet": false, "text": false, "textconv": false, "no-textconv": false,
	"full-name": false, "exclude-standard": false, "no-exclude-standard": false,
}, choices: colorChoices}

var agOptions = searchOptions{shortValue: "ABCGgmpW", abbrev: true, long: map[string]bool{
	"after": true, "before": true, "context": true, "depth": true, "file-search-regex": true,
	"ignore": true, "ignore-dir": true, "max-count": true, "pager": true, "path-to-ignore": true,
	"width": true, "workers": true, "color-line-number": true, "color-match": true, "color-path": true,
	"hidden": false, "unrestricted": false, "ignore-case": false, "case-sensitive": false,
	"smart-case": false, "literal": false, "word-regexp": false, "invert-match": false,
	"recurse": false, "no-recurse": false, "search-binary": false, "search-zip": false,
}}

// parsedOptions are the tools parseSearch reads by their option tables:
// each spelling of an option reads its value by the option's role (grep
// -e .env and --regexp=.env are both a pattern), so the generic guess of
// flagValueSecrets, that a --x=V value may be a file, does not apply.
var parsedOptions = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "zgrep": true, "rg": true, "ag": true, "ack": true}

// parseSearch reads args as the search tool lb would.
func parseSearch(lb string, args []word) searchCmd {
	s := searchCmd{dialect: basicRE}
	opts := grepOptions
	switch lb {
	case "egrep":
		s.dialect = extendedRE
	case "fgrep":
		s.dialect = fixedStrings
	case "rg":
		opts, s.dialect, s.recursive, s.skipsHidden = rgOptions, rustRE, true, true
	case "git-grep":
		opts = gitGrepOptions
	case "ag":
		s.skipsHidden = true // ack reads hidden files
		fallthrough
	case "ack":
		opts, s.dialect, s.recursive, s.smartCase, s.reGlobs = agOptions, perlRE, true, true, true
	}
	var operands []word
	dd := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.val
		switch {
		case dd || w.dyn || v == "-" || !strings.HasPrefix(v, "-"):
			operands = append(operands, w)
			continue
		case v == "--":
			dd = true
			continue
		}
		// next returns an option's separate value word.
		next := func() (word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return word{}, false
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasVal := strings.Cut(v[2:], "=")
			full, takes := opts.lookup(name)
			if hasVal && !takes && !slices.Contains(opts.choices[full], val) {
				s.odd = append(s.odd, "--"+name)
			}
			vw := word{val: val, dyn: w.dyn}
			if takes && !hasVal {
				vw, hasVal = next()
			}
			s.applyLong(lb, full, vw, hasVal)
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if lb == "git-grep" && c == 'O' {
				s.pre = true // -O[PAGER]: the rest of the cluster is a program
				if v[j+1:] != "" {
					s.preCmds = append(s.preCmds, v[j+1:])
				}
				break
			}
			if lb != "rg" && lb != "ag" && lb != "ack" && lb != "git-grep" && c >= '0' && c <= '9' {
				// grep -NUM: NUM lines of context.
				k := j
				for k < len(v) && v[k] >= '0' && v[k] <= '9' {
					k++
				}
				if n, _ := strconv.Atoi(v[j:k]); n > 0 {
					s.context = true
				}
				j = k - 1
				continue
			}
			if strings.IndexByte(opts.shortValue, c) >= 0 {
				vw, ok := word{val: v[j+1:], dyn: w.dyn}, j+1 < len(v)
				if !ok {
					vw, ok = next()
				}
				s.applyShort(lb, c, vw, ok)
				break
			}
			s.applyShort(lb, c, word{}, false)
		}
	}
	if !s.patternGiven && !s.files && len(operands) > 0 {
		s.patterns, operands = append(s.patterns, operands[0]), operands[1:]
	}
	s.paths = operands
	return s
}

// synonymOf says a synonym of the option full starts with name.
func (o searchOptions) synonymOf(full, name string) bool {
	for syn, of := range o.synonyms {
		if of == full && strings.HasPrefix(syn, name) {
			return true
		}
	}
	return false
}

// lookup resolves a long option name, by unique prefix where the tool
// allows it; unknown names take no value.
func (o searchOptions) lookup(name string) (string, bool) {
	if takes, ok := o.long[name]; ok {
		return name, takes
	}
	if !o.abbrev || name == "" {
		return name, false
	}
	found := ""
	for full := range o.long {
		if syn, ok := o.synonyms[full]; ok {
			full = syn
		}
		if strings.HasPrefix(full, name) || o.synonymOf(full, name) {
			if found != "" && found != full {
				return name, false // ambiguous: the tool refuses to run
			}
			found = full
		}
	}
	if found == "" {
		return name, false
	}
	return found, o.long[found]
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

func (s *searchCmd) applyShort(lb string, c byte, v word, ok bool) {
	rgOrAg := lb == "rg" || lb == "ag" || lb == "ack"
	switch {
	case rgOrAg && (c == 'S' || c == 's'):
		s.ignoreCase, s.smartCase = false, c == 'S'
	case lb == "rg" && c == 'u':
		s.unrestr++
	case rgOrAg && c == 'u', lb == "rg" && c == '.':
		s.hidden = true
	case lb == "rg" && c == 'U', !rgOrAg && c == 'z':
		s.context = true // across lines; grep -z: a whole file is one "line"
	case lb == "rg" && c == 'z':
		s.pre = true
	case rgOrAg && (c == 'g' || c == 'G'):
		s.globs = append(s.globs, v.val)
	case c == 'F' && lb != "ag", c == 'Q' && lb == "ag":
		s.dialect = fixedStrings
	case c == 'P':
		s.dialect = perlRE
	case !rgOrAg && c == 'E':
		s.dialect = extendedRE
	case !rgOrAg && c == 'G':
		s.dialect = basicRE
	case !rgOrAg && c == 'y':
		s.ignoreCase = true
	case !rgOrAg && (c == 'r' || c == 'R'):
		s.recursive, s.follow = true, s.follow || c == 'R'
	case !rgOrAg && c == 'd':
		s.recursive = s.recursive || v.val == "recurse" || v.dyn
	case c == 'L' && lb == "rg":
		s.follow = true // rg -L follows links; grep -L lists names
	case c == 'l' || c == 'c' || c == 'q' && lb != "ag" || c == 'L':
		s.namesOnly = true
	default:
		if name, ok2 := sharedShort[c]; ok2 {
			s.applyLong(lb, name, v, ok)
		}
	}
}

// sharedShort are the short options grep, rg and ag share, by the long
// option each stands for.
var sharedShort = map[byte]string{
	'e': "regexp", 'f': "file", 'i': "ignore-case", 'w': "word-regexp", 'x': "line-regexp",
	'v': "invert-match", 'A': "after-context", 'B': "before-context", 'C': "context",
}

func (s *searchCmd) applyLong(lb, name string, v word, ok bool) {
	switch name {
	case "regexp":
		s.pattern(v, ok)
	case "file":
		s.patternFile(v, ok)
	case "ignore-case":
		s.ignoreCase, s.smartCase = true, false
	case "no-ignore-case", "case-sensitive":
		s.ignoreCase, s.smartCase = false, false
	case "smart-case":
		s.ignoreCase, s.smartCase = false, true
	case "word-regexp":
		s.word = true
	case "line-regexp":
		s.line = true
	case "invert-match":
		s.invert = true
	case "after-context", "before-context", "context", "after", "before":
		s.context = s.context || !ok || positive(v)
	case "null-data", "multiline", "multiline-dotall":
		s.context = true
	case "extended-regexp":
		s.dialect = extendedRE
	case "fixed-strings", "literal":
		s.dialect = fixedStrings
	case "basic-regexp":
		s.dialect = basicRE
	case "perl-regexp", "pcre2":
		s.dialect = perlRE
	case "recursive":
		s.recursive = true
	case "dereference-recursive":
		s.recursive, s.follow = true, true
	case "follow":
		s.follow = true
	case "directories":
		s.recursive = s.recursive || v.val == "recurse" || v.dyn
	case "hidden":
		s.hidden = true
	case "no-hidden":
		s.hidden = false
	case "unrestricted":
		if lb == "rg" {
			s.unrestr++
		} else {
			s.hidden = true
		}
	case "files-with-matches", "files-without-match", "files-without-matches", "count", "count-matches", "quiet", "name-only":
		s.namesOnly = true
	case "silent": // ag --silent only hushes its log
		s.namesOnly = s.namesOnly || lb != "ag"
	case "include", "glob", "iglob", "file-search-regex":
		s.globs = append(s.globs, v.val)
	case "pre", "pre-glob", "search-zip", "hostname-bin", "open-files-in-pager":
		s.pre = true
		if (name == "pre" || name == "open-files-in-pager") && ok && v.val != "" {
			s.preCmds = append(s.preCmds, v.val)
		}
	case "files":
		s.files = lb == "rg"
	}
}

// hiddenSecretNames are files a search that reaches hidden files reads
// secrets from; an include glob that matches none of them keeps them out.
var hiddenSecretNames = []string{".env", ".env.local", ".envrc", ".npmrc", ".netrc", ".pgpass", "id_rsa", "id_ed25519"}

// searchesHidden reports a recursive search that reads hidden files: grep
// -r (unless every --include glob keeps the secrets out), rg --hidden / -.
// / -uu, ag --hidden / -u.
func (s searchCmd) searchesHidden(lb string) bool {
	switch lb {
	case "grep", "egrep", "fgrep", "zgrep":
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
	case "rg":
		return s.hidden || s.unrestr >= 2
	case "ag":
		return s.hidden
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
func (a *places) regularFiles(paths []word, sc *scope) bool {
	if len(paths) == 0 {
		return false
	}
	for _, w := range paths {
		if w.dyn {
			return false
		}
		r := a.resolvePath(w.val, sc.cwd, false)
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
func (a *factLog) searchesOnlyFiles() {
	if len(a.fileSearches) == 0 {
		return
	}
	only := make(map[int]bool, len(a.fileSearches))
	for _, c := range a.fileSearches {
		only[c.fact] = true
	}
	for i, f := range a.facts {
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
	for _, c := range a.fileSearches {
		a.facts[c.fact].human = nil
		a.facts[c.fact].safe = reason("gate.read", c.why)
	}
}
