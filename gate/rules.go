package gate

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// ruleKind is what a policy rule talks about.
type ruleKind int

const (
	ruleBash  ruleKind = iota // Bash(PATTERN): each normalized simple command
	ruleRead                  // Read(GLOB): reads, searches, listings
	ruleWrite                 // Write(GLOB) / Edit(GLOB): writes, edits, deletes, moves
	ruleFetch                 // WebFetch(domain:HOSTGLOB)
	ruleTool                  // Tool(NAME) or NAME: any other tool by name
)

// rule is one compiled policy rule or grant pattern.
type rule struct {
	src  string
	kind ruleKind
	// Bash: the pattern with whitespace collapsed; prefix is set when the
	// pattern ends in " *" or ":*" (word boundary kept).
	pat     string
	prefix  string
	hasStar bool
	lits    []string // literal leading words, before any *
	// Read/Write: glob, absolute when it starts with / or ~/; else relative
	// to the project root.
	glob string
	// WebFetch: lower-case host glob. Tool: lower-case name glob.
	name string
	port string // WebFetch(domain:localhost:3000): only that port
	// exact: a Read/Write grant names one path, not the tree below it
	// (an always for Read /etc must not cover /etc/ssl/private/…)
	exact bool
}

var ruleRe = lazyRE(`^([A-Za-z][A-Za-z0-9_]*)(?:\((.*)\))?$`)
var toolNameRe = lazyRE(`^[A-Za-z0-9_.*:\-]+$`)

// parseRule compiles one rule; the error says what is wrong with it.
func parseRule(s string) (*rule, error) {
	m := ruleRe().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		if strings.HasPrefix(s, "mcp__") && toolNameRe().MatchString(s) {
			return &rule{src: s, kind: ruleTool, name: strings.ToLower(s)}, nil
		}
		return nil, fmt.Errorf("rule %q: want Bash(PATTERN), Read(GLOB), Write(GLOB), WebFetch(domain:HOST), Tool(NAME) or a tool NAME", s)
	}
	head, arg, hasArg := m[1], m[2], strings.Contains(s, "(")
	r := &rule{src: s}
	switch strings.ToLower(head) {
	case "bash", "shell":
		r.kind = ruleBash
		if !hasArg {
			arg = "*"
		}
		arg = strings.Join(strings.Fields(arg), " ")
		if arg == "" {
			return nil, fmt.Errorf("rule %q: empty Bash pattern (use Bash(*) for every command)", s)
		}
		r.pat = arg
		if strings.HasSuffix(arg, " *") {
			r.prefix = strings.TrimSuffix(arg, " *")
		} else if strings.HasSuffix(arg, ":*") {
			r.prefix = strings.TrimSuffix(arg, ":*")
			r.pat = r.prefix + " *"
		}
		r.hasStar = strings.Contains(arg, "*")
		for _, w := range strings.Fields(strings.TrimSuffix(arg, ":*")) {
			if strings.Contains(w, "*") {
				break
			}
			r.lits = append(r.lits, w)
		}
	case "read", "write", "edit":
		r.kind = ruleRead
		if strings.ToLower(head) != "read" {
			r.kind = ruleWrite
		}
		if !hasArg {
			arg = "/**"
		}
		if arg == "" {
			return nil, fmt.Errorf("rule %q: empty path glob", s)
		}
		if !doublestar.ValidatePattern(arg) {
			return nil, fmt.Errorf("rule %q: invalid glob %q", s, arg)
		}
		r.glob = arg
	case "webfetch":
		r.kind = ruleFetch
		switch {
		case !hasArg:
			r.name = "*"
		case strings.HasPrefix(arg, "domain:") && len(arg) > len("domain:"):
			r.name = strings.ToLower(strings.TrimPrefix(arg, "domain:"))
			// HOST:PORT or [V6]:PORT names one port; a bare ::1 does not
			if i := strings.LastIndexByte(r.name, ':'); i > 0 && isDigits(r.name[i+1:]) &&
				(strings.Count(r.name, ":") == 1 || strings.HasPrefix(r.name, "[")) {
				r.name, r.port = strings.Trim(r.name[:i], "[]"), r.name[i+1:]
			}
		default:
			return nil, fmt.Errorf("rule %q: WebFetch takes domain:HOSTGLOB, e.g. WebFetch(domain:*.example.com)", s)
		}
	case "tool":
		if !hasArg || !toolNameRe().MatchString(arg) {
			return nil, fmt.Errorf("rule %q: Tool takes a tool name, e.g. Tool(mcp__github__list_issues)", s)
		}
		r.kind, r.name = ruleTool, strings.ToLower(arg)
	default:
		if hasArg {
			return nil, fmt.Errorf("rule %q: unknown rule kind %q (want Bash, Read, Write, Edit, WebFetch or Tool)", s, head)
		}
		r.kind, r.name = ruleTool, strings.ToLower(head)
	}
	return r, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

var grantCache sync.Map // pattern → *rule (nil when invalid)

// compileGrant parses a grant pattern once per process.
func compileGrant(p string) *rule {
	if r, ok := grantCache.Load(p); ok {
		return r.(*rule)
	}
	r, err := parseRule(p)
	if err != nil {
		r = nil
	} else {
		r.exact = true
	}
	grantCache.Store(p, r)
	return r
}

// globMatch matches s against a pattern where * is any run of characters.
func globMatch(pat, s string) bool {
	px, sx := 0, 0
	nextPx, nextSx := -1, -1
	for px < len(pat) || sx < len(s) {
		if px < len(pat) {
			if pat[px] == '*' {
				nextPx, nextSx = px, sx+1
				px++
				continue
			}
			if sx < len(s) && pat[px] == s[sx] {
				px++
				sx++
				continue
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}

// hostMatch matches a host against a domain: glob. To allow, each * stays
// within one DNS label (*.example.com is not a.b.example.com, and
// docs.* is not docs.evil.example); a deny or ask rule's * spans labels,
// the stricter reading. A lone * is every host.
func hostMatch(pat, host string, restrictive bool) bool {
	if pat == "*" || restrictive {
		return globMatch(pat, host)
	}
	pl, hl := strings.Split(pat, "."), strings.Split(host, ".")
	if len(pl) != len(hl) {
		return false
	}
	for i := range pl {
		if !globMatch(pl[i], hl[i]) {
			return false
		}
	}
	return true
}

// matchCmd matches a normalized command line. bare (no *) rules match exactly
// when allowing and as a word prefix when denying or asking: Bash(rm) denies
// every rm.
func (r *rule) matchCmd(line string, restrictive bool) bool {
	if r.prefix != "" {
		return line == r.prefix || globMatch(r.prefix, line) || globMatch(r.pat, line)
	}
	if r.hasStar {
		return globMatch(r.pat, line)
	}
	if line == r.pat {
		return true
	}
	return restrictive && strings.HasPrefix(line, r.pat+" ")
}

// mayMatch reports whether a command whose words from index k on are
// unknown could match: its static words agree with the rule's literals.
func (r *rule) mayMatch(static []string) bool {
	if len(static) >= len(r.lits) {
		return false // the full match already decided
	}
	for i, w := range static {
		if r.lits[i] != w {
			return false
		}
	}
	return true
}

// absGlob makes a Read/Write glob absolute for this project and home.
func (r *rule) absGlob(project, home string) string {
	g := r.glob
	switch {
	case g == "~" || strings.HasPrefix(g, "~/"):
		return home + g[1:]
	case strings.HasPrefix(g, "/"):
		return g
	}
	if project == "" {
		return ""
	}
	return filepath.ToSlash(project) + "/" + strings.TrimPrefix(g, "./")
}

// matchPath matches an absolute path; deny and ask rules ignore case.
func (r *rule) matchPath(p, project, home string, restrictive bool) bool {
	g := r.absGlob(project, home)
	if g == "" {
		return false
	}
	if restrictive {
		g, p = strings.ToLower(g), strings.ToLower(p)
	}
	if ok, _ := doublestar.Match(g, p); ok {
		return true
	}
	if r.exact {
		return false
	}
	// a rule on a directory covers what is inside it
	ok, _ := doublestar.Match(strings.TrimSuffix(g, "/")+"/**", p)
	return ok && !strings.HasSuffix(g, "*")
}
