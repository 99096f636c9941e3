// parse.go is the gate's first stage: the command's text becomes bash's
// syntax tree, with what the parser loses kept (comments, here-documents
// joined by backslashes, $(( read as nested subshells), and a text it
// refuses salvaged rather than passed.

package gate

import (
	"errors"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

var commentParserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

// bashComments makes every comment end at its newline, as bash does: the
// parser joins a comment that ends in a backslash with the next line, which
// would hide that line (ls # \⏎rm -rf src) from the gate.
func bashComments(src string) string {
	for round := 0; round < 8; round++ {
		p := commentParserPool.Get().(*syntax.Parser)
		f, err := p.Parse(strings.NewReader(src), "")
		commentParserPool.Put(p)
		if err != nil {
			return src
		}
		cut := -1
		walkNodes(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.Comment); ok && cut < 0 {
				// the text keeps the backslash-newline the parser swallowed
				end := int(c.Hash.Offset()) + 1 + len(c.Text)
				if strings.HasSuffix(c.Text, "\\\n") && end <= len(src) && src[end-2] == '\\' {
					cut = end - 2
				}
			}
			return cut < 0
		})
		if cut < 0 {
			return src
		}
		src = src[:cut] + src[cut+1:]
	}
	return src
}

// bashHeredocs joins the lines of unquoted here-documents as bash reads
// them: a backslash-newline continues a body line before it is compared
// with the delimiter, so EO\⏎F ends <<EOF there and the lines after it
// run, while the parser keeps them in the body.
func bashHeredocs(src string) string {
	for round := 0; round < 8; round++ {
		p := parserPool.Get().(*syntax.Parser)
		f, _ := parseSalvageWith(p, src)
		parserPool.Put(p)
		var cuts []int
		walkNodes(f, func(n syntax.Node) bool {
			r, ok := n.(*syntax.Redirect)
			if !ok || cuts != nil || (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.Hdoc == nil || r.Word == nil {
				return cuts == nil
			}
			// a quoted delimiter (<<'EOF', <<\EOF) makes the body literal
			delim, plain := "", true
			for _, part := range r.Word.Parts {
				l, ok := part.(*syntax.Lit)
				plain = plain && ok && !strings.Contains(l.Value, "\\")
				if ok {
					delim += l.Value
				}
			}
			if plain && int(r.Hdoc.Pos().Offset()) < len(src) {
				cuts = heredocJoins(src, int(r.Hdoc.Pos().Offset()), delim, r.Op == syntax.DashHdoc)
			}
			return cuts == nil
		})
		if cuts == nil {
			return src
		}
		var b strings.Builder
		last := 0
		for _, c := range cuts {
			b.WriteString(src[last:c])
			last = c + 2
		}
		src = b.String() + src[last:]
	}
	return src
}

// heredocJoins reads a here-document body from offset p as bash does and
// returns the offsets of the backslash-newlines it removes up to the
// delimiter, when the delimiter line is one it joined; nil otherwise.
func heredocJoins(src string, p int, delim string, dash bool) []int {
	var cuts []int
	for p < len(src) {
		var line strings.Builder
		joined := false
		for {
			end := strings.IndexByte(src[p:], '\n')
			if end < 0 {
				end = len(src)
			} else {
				end += p
			}
			phys := src[p:end]
			n := len(phys) - len(strings.TrimRight(phys, "\\"))
			if end < len(src) && n%2 == 1 {
				line.WriteString(phys[:len(phys)-1])
				cuts = append(cuts, end-1)
				joined = true
				p = end + 1
				continue
			}
			line.WriteString(phys)
			p = end + 1
			break
		}
		l := line.String()
		if dash {
			l = strings.TrimLeft(l, "\t")
		}
		if l == delim {
			if joined {
				return cuts
			}
			return nil
		}
	}
	return nil
}

// splitDoubleParens rereads "((" as "( (" where the parser fails on it, as
// bash does when the text is not arithmetic (((cd x; ls); pwd), $((cd x
// && ls) 2>&1)); "" when no such reading parses.
func splitDoubleParens(src string, err error) string {
	last := errOffset(err)
	for i, n := 0, 0; n < 8; n++ {
		j := strings.Index(src[i:], "((")
		if j < 0 {
			return ""
		}
		i += j + 1
		alt := src[:i] + " " + src[i:]
		_, aerr := parseSalvage(alt)
		if aerr == nil {
			return alt
		}
		if off := errOffset(aerr); off > last+1 {
			src, last = alt, off // this one was a subshell; the error is further on
		}
	}
	return ""
}

// errOffset is where a parse error is, or -1.
func errOffset(err error) int {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return int(pe.Pos.Offset())
	}
	return -1
}

// parseSalvage parses src; on a syntax error it returns the statements
// before it, which bash has already run when it reaches the bad line.
func parseSalvage(src string) (*syntax.File, error) {
	p := parserPool.Get().(*syntax.Parser)
	defer parserPool.Put(p)
	return parseSalvageWith(p, src)
}

func parseSalvageWith(p *syntax.Parser, src string) (*syntax.File, error) {
	f := &syntax.File{}
	err := p.Stmts(strings.NewReader(src), func(st *syntax.Stmt) bool {
		f.Stmts = append(f.Stmts, st)
		return true
	})
	return f, err
}
