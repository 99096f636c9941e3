// redirect.go reads a command's redirections: the files it reads and
// writes, here-documents and here-strings as its stdin, descriptors.

package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
	"mvdan.cc/sh/v3/syntax"
)

// redirect turns a redirection into a read or write of its target.
func (a *analyzer) redirect(r *syntax.Redirect, sc *scope) summary {
	var s summary
	if r.Hdoc != nil {
		s.or(a.walkSubst(r.Hdoc, sc))
		s.taint = s.taint || expandsTaint(r.Hdoc, func(n string) bool { return varTainted(a.taint, a.vals, a.secretEnv, n) }) // curl -d @- URL <<EOF ⏎ $KEY (after source .env)
	}
	// cat <<< "$GITHUB_TOKEN", or a here-document that expands one: the
	// command reads the secret on its stdin
	if r.Op == syntax.WordHdoc && r.Word != nil && a.secretExpansion(r.Word, true) ||
		(r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil && a.secretExpansion(r.Hdoc, true) {
		a.humanFact("human.env-dump", "feeds a variable that holds a secret to a command")
		s.secretStdin = true
	}
	if r.Word == nil {
		return s
	}
	w := a.word(r.Word, sc)
	s.or(w.sub)
	if w.taint {
		s.taint = true
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return s
	case syntax.DplIn, syntax.DplOut:
		if isFD(w.val) {
			if r.Op == syntax.DplIn {
				// <&3 after exec 3<.env reads the secret
				s.taint = s.taint || a.taint["&"+w.val]
				s.downloader = s.downloader || a.fetched["&"+w.val]
			}
			return s
		}
		if n, ok := strings.CutPrefix(w.val, "$"); ok && r.Op == syntax.DplIn {
			// <&$fd after exec {fd}<.env
			s.taint = s.taint || a.taint["&{"+strings.Trim(n, "{}")+"}"]
		}
		if cp, ok := a.coprocs[strings.TrimPrefix(w.val, "$")]; ok && r.Op == syntax.DplOut {
			cp.sink = true // >&${COPROC[1]} writes into the coprocess
			return cp
		}
	}
	if strings.HasPrefix(w.val, "/dev/tcp/") || strings.HasPrefix(w.val, "/dev/udp/") {
		a.add(&rfact{kind: protocol.FactNetwork, host: w.val, parent: -1,
			floor: reason("floor.reverse-shell", "redirection to a network socket "+w.val)})
		s.rawNet = true
		return s
	}
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn:
		mid := len(a.facts)
		a.readWord(w, sc, -1, false)
		for _, f := range a.facts[mid:] {
			// < .env, and < /proc/$PPID/environ: the environment is a secret too
			if f.human != nil && (f.human.Code == "human.sensitive-read" || f.human.Code == "human.env-dump") {
				s.taint = true
			}
		}
	default:
		s.sink = w.proc // > >(curl …) feeds the substitution's command
		a.writeWord(w, sc, -1)
	}
	return s
}

// litText is the text of a word without analysing it: quotes removed,
// expansions shown as $_; ok is false when it has any expansion.
// stripLeadingTabs removes the tabs that start each line, as bash does
// with the body of a <<- here-doc: the gate must read the script the
// shell reads (a nested <<X ends at a tab-indented X there).
func stripLeadingTabs(t string) string {
	lines := strings.SplitAfter(t, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "")
}

func litText(w *syntax.Word) (string, bool) { return knownText(w, nil) }

// oneValue knows the value of $NAME when the call gives it one: HOME (not
// reassigned), PWD (a known working directory), a variable the call set
// to one value.
func oneValue(a *analyzer, sc *scope) func(p *syntax.ParamExp) (string, bool) {
	return func(p *syntax.ParamExp) (string, bool) {
		if p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil || p.Param == nil {
			return "", false
		}
		name := p.Param.Value
		v := a.vals[name]
		switch {
		case v != nil && len(v.vals) == 1:
			return v.vals[0], true
		case v != nil:
			return "", false
		case name == "HOME" && a.env.Home != "":
			return a.env.Home, true
		case name == "PWD" && sc.cwd != "":
			return sc.cwd, true
		}
		return "", false
	}
}

// knownText is litText with the parameters param knows the one value of
// ($HOME, a variable assigned once): read h <<< "$HOME" reads the home
// directory.
func knownText(w *syntax.Word, param func(p *syntax.ParamExp) (string, bool)) (string, bool) {
	var b strings.Builder
	ok := true
	var walk func(parts []syntax.WordPart, quoted bool)
	walk = func(parts []syntax.WordPart, quoted bool) {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				if quoted {
					b.WriteString(unescapeDouble(p.Value))
				} else {
					b.WriteString(unescapeBare(p.Value))
				}
			case *syntax.SglQuoted:
				b.WriteString(sglText(p))
			case *syntax.DblQuoted:
				walk(p.Parts, true)
			case *syntax.ParamExp:
				if param != nil {
					if v, known := param(p); known {
						b.WriteString(v)
						continue
					}
				}
				ok = false
				b.WriteString("$_")
			default:
				ok = false
				b.WriteString("$_")
			}
		}
	}
	walk(w.Parts, false)
	return b.String(), ok
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
