package hook

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
)

// hostAllow are the command prefixes the user's own Codex execpolicy
// allows: prefix_rule(pattern=[...], decision="allow") in
// $CODEX_HOME/rules/*.rules (else ~/.codex/rules), the user layer, where
// Codex's "always allow" writes (codex-rs execpolicy; developers.openai.com
// /codex/rules). A pattern is a token prefix of the command's argv, which
// is the gate's Bash(w1 w2:*). The files are Starlark, which perm-peer does
// not evaluate: a file is read only when it is nothing but prefix_rule
// calls with literal arguments (what Codex itself writes); any other file
// is left out whole, with a warning. A project's .codex/rules is the
// repository's and never loosens.
func (codex) hostAllow(_ context.Context, _ Pin, home, _ string) []string {
	dir := codexRulesDir(home)
	if dir == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.rules"))
	if err != nil {
		slog.Warn("Codex rules ignored", "dir", dir, "err", err)
		return nil
	}
	sort.Strings(files)
	var rules []string
	for _, f := range files {
		data, ok := readUserFile("Codex", f)
		if !ok {
			continue
		}
		calls, err := parseCodexRules(string(data))
		if err != nil {
			slog.Warn("Codex rules file left out: perm-peer reads only literal prefix_rule calls", "file", f, "err", err)
			continue
		}
		for _, c := range calls {
			rules = append(rules, c.allowRules(f)...)
		}
	}
	return rules
}

// codexRulesDir is the user layer's rules directory: $CODEX_HOME/rules
// when CODEX_HOME is set (it must then be absolute: Codex resolves a
// relative one against its own working directory, which the hook does not
// know), else ~/.codex/rules.
func codexRulesDir(home string) string {
	return userConfigFile("CODEX_HOME", home, ".codex", "rules")
}

// codexRule is one prefix_rule call: pattern's elements are a token or a
// list of alternative tokens.
type codexRule struct {
	pattern  [][]string
	decision string
	src      string // the call as written, for warnings
}

// maxCodexAlternatives bounds the rules one pattern's alternatives expand to.
const maxCodexAlternatives = 64

// allowRules are the gate rules of an allow rule (decision "allow", Codex's
// default), one per combination of its alternatives; a prompt or forbidden
// rule gives none (Codex applies it itself, after the hook).
func (r codexRule) allowRules(file string) []string {
	if r.decision != "allow" {
		return nil
	}
	combos := [][]string{nil}
	for _, alts := range r.pattern {
		if len(combos)*len(alts) > maxCodexAlternatives {
			dropRule("Codex", file, r.src, "too many alternatives")
			return nil
		}
		var next [][]string
		for _, c := range combos {
			for _, a := range alts {
				next = append(next, append(c[:len(c):len(c)], a))
			}
		}
		combos = next
	}
	var out []string
	for _, words := range combos {
		if rule, ok := commandPrefixRule(words); ok {
			out = append(out, rule)
		} else {
			dropRule("Codex", file, r.src, "a token is not plain text")
		}
	}
	return out
}

// parseCodexRules reads a rules file that is nothing but prefix_rule calls
// with keyword arguments pattern (a non-empty list whose first element is
// a string and whose others are strings or non-empty lists of strings),
// decision ("allow", "prompt" or "forbidden") and justification, each a
// literal; "#" comments. Anything else (another function, a variable,
// match/not_match examples, which Codex checks when it loads the file, an
// escape in a string) is an error: the file's meaning is then Starlark's,
// not a reading perm-peer can vouch for.
func parseCodexRules(text string) ([]codexRule, error) {
	toks, err := starlarkTokens(text)
	if err != nil {
		return nil, err
	}
	p := &codexParser{toks: toks}
	var rules []codexRule
	for !p.done() {
		r, err := p.call()
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// starlarkToken is an identifier, a punctuation mark or a string literal.
type starlarkToken struct {
	kind byte // 'i' identifier, 's' string, else the punctuation itself
	text string
	pos  int
}

// starlarkTokens splits text into the few tokens literal prefix_rule calls
// are made of.
func starlarkTokens(text string) ([]starlarkToken, error) {
	var toks []starlarkToken
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case strings.IndexByte("()[],=", c) >= 0:
			toks = append(toks, starlarkToken{kind: c, text: string(c), pos: i})
			i++
		case c == '"' || c == '\'':
			end := strings.IndexByte(text[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("byte %d: string not closed on its line", i)
			}
			s := text[i+1 : i+1+end]
			if strings.ContainsAny(s, "\\\n\r") || strings.HasPrefix(text[i:], `""`) || strings.HasPrefix(text[i:], `''`) {
				return nil, fmt.Errorf("byte %d: only plain one-line strings are read", i)
			}
			toks = append(toks, starlarkToken{kind: 's', text: s, pos: i})
			i += end + 2
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
				j++
			}
			if j < len(text) && (text[j] == '"' || text[j] == '\'') {
				return nil, fmt.Errorf("byte %d: a prefixed string (r\"\", b\"\") is not read", i)
			}
			toks = append(toks, starlarkToken{kind: 'i', text: text[i:j], pos: i})
			i = j
		default:
			return nil, fmt.Errorf("byte %d: %q is not part of a literal prefix_rule call", i, c)
		}
	}
	return toks, nil
}

type codexParser struct {
	toks []starlarkToken
	i    int
}

func (p *codexParser) done() bool { return p.i >= len(p.toks) }

func (p *codexParser) peek() starlarkToken {
	if p.done() {
		return starlarkToken{kind: 0, pos: -1}
	}
	return p.toks[p.i]
}

func (p *codexParser) expect(kind byte) (starlarkToken, error) {
	t := p.peek()
	if t.kind != kind {
		return t, fmt.Errorf("byte %d: want %q, found %q", t.pos, string(kind), t.text)
	}
	p.i++
	return t, nil
}

// call reads prefix_rule(KEY=VALUE, ...).
func (p *codexParser) call() (codexRule, error) {
	start := p.peek().pos
	name, err := p.expect('i')
	if err != nil {
		return codexRule{}, err
	}
	if name.text != "prefix_rule" {
		return codexRule{}, fmt.Errorf("byte %d: %s is not read (only prefix_rule)", name.pos, name.text)
	}
	if _, err := p.expect('('); err != nil {
		return codexRule{}, err
	}
	r := codexRule{decision: "allow"}
	seen := map[string]bool{}
	for p.peek().kind != ')' {
		key, err := p.expect('i')
		if err != nil {
			return codexRule{}, err
		}
		if seen[key.text] {
			return codexRule{}, fmt.Errorf("byte %d: %s given twice", key.pos, key.text)
		}
		seen[key.text] = true
		if _, err := p.expect('='); err != nil {
			return codexRule{}, err
		}
		if err := p.argument(&r, key); err != nil {
			return codexRule{}, err
		}
		if p.peek().kind != ')' {
			if _, err := p.expect(','); err != nil {
				return codexRule{}, err
			}
		}
	}
	end, _ := p.expect(')')
	if r.pattern == nil {
		return codexRule{}, fmt.Errorf("byte %d: prefix_rule without a pattern", start)
	}
	r.src = fmt.Sprintf("prefix_rule at byte %d-%d", start, end.pos)
	return r, nil
}

// argument reads the value of one keyword argument into r.
func (p *codexParser) argument(r *codexRule, key starlarkToken) error {
	switch key.text {
	case "pattern":
		pattern, err := p.pattern()
		r.pattern = pattern
		return err
	case "decision":
		d, err := p.expect('s')
		switch d.text {
		case "allow", "prompt", "forbidden":
		default:
			return fmt.Errorf("byte %d: decision %q", d.pos, d.text)
		}
		r.decision = d.text
		return err
	case "justification":
		_, err := p.expect('s')
		return err
	}
	return fmt.Errorf("byte %d: argument %s is not read", key.pos, key.text)
}

// pattern reads [TOKEN | [TOKEN, ...], ...] with a token first.
func (p *codexParser) pattern() ([][]string, error) {
	open, err := p.expect('[')
	if err != nil {
		return nil, err
	}
	var out [][]string
	for p.peek().kind != ']' {
		if p.peek().kind == '[' {
			if len(out) == 0 {
				return nil, fmt.Errorf("byte %d: a pattern's program is not read as alternatives", p.peek().pos)
			}
			alts, err := p.alternatives()
			if err != nil {
				return nil, err
			}
			out = append(out, alts)
		} else {
			s, err := p.expect('s')
			if err != nil {
				return nil, err
			}
			out = append(out, []string{s.text})
		}
		if p.peek().kind != ']' {
			if _, err := p.expect(','); err != nil {
				return nil, err
			}
		}
	}
	p.i++
	if len(out) == 0 {
		return nil, fmt.Errorf("byte %d: empty pattern", open.pos)
	}
	return out, nil
}

// alternatives reads a non-empty [STRING, ...].
func (p *codexParser) alternatives() ([]string, error) {
	open, err := p.expect('[')
	if err != nil {
		return nil, err
	}
	var out []string
	for p.peek().kind != ']' {
		s, err := p.expect('s')
		if err != nil {
			return nil, err
		}
		out = append(out, s.text)
		if p.peek().kind != ']' {
			if _, err := p.expect(','); err != nil {
				return nil, err
			}
		}
	}
	p.i++
	if len(out) == 0 {
		return nil, fmt.Errorf("byte %d: empty alternatives", open.pos)
	}
	return out, nil
}
