package gate

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/perm-peer/perm-peer/protocol"
)

const (
	maxCommand = 10 * 1024 // bytes of shell the gate will read (SPEC §5.1)
	maxDepth   = 8         // nested re-parses (sh -c, eval, wrappers)
	maxNodes   = 8192      // statements per call, counting re-analysed function bodies
	maxRead    = 256 << 10 // bytes read past maxCommand before giving up (human-only)
)

// scope is the shell state that flows between statements.
type scope struct {
	cwd string // "" when unknown (cd $X)
}

func (s *scope) copy() *scope { c := *s; return &c }

// summary is what a statement tells the statements around it: a pipeline
// stage that read a secret feeding a network tool is exfiltration; a
// downloader feeding a shell is download-then-execute.
type summary struct {
	taint      bool // read a secret or dumped the environment
	net        bool // a network tool
	rawNet     bool // a raw socket tool (nc, socat, telnet, openssl)
	downloader bool // curl, wget, ...
	shellSink  bool // a shell or interpreter reading code from stdin
	// out is the literal text the command prints (echo, printf), for a
	// shell or xargs reading it from a pipe; not merged by or.
	out *stdinSrc
	// projList: it prints only names of files in the project (git
	// ls-files, find ., rg -l); not merged by or.
	projList bool
	// cleanList: a projList whose name filter rules out secrets (git
	// ls-files '*.go', find . -name '*.go'); not merged by or.
	cleanList bool
	// secretList: the names it prints may include secrets (find without a
	// name filter that rules them out); merged by or.
	secretList bool
	// broadList: with secretList, the listing has no filter aimed at
	// secrets (git ls-files, find . -type f): it may name .env only as
	// part of the whole tree, which grep -r reads too; merged by or.
	broadList bool
	// secretStdin: a here-string or here-document feeds a secret variable
	// to the command; not merged by or.
	secretStdin bool
	// sink: a redirection that feeds a process (> >(curl …), >&${COPROC[1]});
	// the rest of the summary is that process's; not merged by or.
	sink bool
}

// stdinSrc is what a command reads on stdin.
type stdinSrc struct {
	text  string // the known text; expansions appear as $_
	known bool   // the whole text is known
	// download: an earlier pipeline stage downloads (curl … | sh)
	download bool
	// projList: the text is a list of project file names
	projList bool
	// cleanList: the names cannot be secrets
	cleanList bool
	// secretList: the names may include secrets
	secretList bool
	// broadList: with secretList, no filter aimed at secrets
	broadList bool
}

// then is the output of x and then y, as a list (x; y, x && y) prints it:
// nil unless each is known, one of them possibly known to be empty.
func (x *stdinSrc) then(y *stdinSrc) *stdinSrc {
	switch {
	case x == nil || y == nil:
		return nil
	case x.known && x.text == "":
		return y
	case y.known && y.text == "":
		return x
	case x.known && y.known:
		return &stdinSrc{text: x.text + y.text, known: true}
	}
	return nil
}

// printsNothing is the output of a command known to print nothing.
var printsNothing = stdinSrc{known: true}

func (s *summary) or(o summary) {
	s.taint = s.taint || o.taint
	s.net = s.net || o.net
	s.rawNet = s.rawNet || o.rawNet
	s.downloader = s.downloader || o.downloader
	s.shellSink = s.shellSink || o.shellSink
	// broad only if every listing that may name secrets is
	s.broadList = (s.broadList || !s.secretList) && (o.broadList || !o.secretList) && (s.secretList || o.secretList)
	s.secretList = s.secretList || o.secretList
}

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

var commentParserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

// walkNodes is syntax.Walk that also visits the offset and length of a
// ${x:offset:length} slice, which syntax.Walk skips: a $(…) there runs, and
// an assignment there assigns.
func walkNodes(node syntax.Node, f func(syntax.Node) bool) {
	syntax.Walk(node, func(n syntax.Node) bool {
		if !f(n) {
			return false
		}
		if p, ok := n.(*syntax.ParamExp); ok && p.Slice != nil {
			if p.Slice.Offset != nil {
				walkNodes(p.Slice.Offset, f)
			}
			if p.Slice.Length != nil {
				walkNodes(p.Slice.Length, f)
			}
		}
		return true
	})
}

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

// shell analyses a command string, re-parsed at every wrapper level.
func (a *analyzer) shell(src string, sc *scope) summary {
	// What the gate does not read may hold a floor, and auto mode clears a
	// plain ask: an unread rest is human-only. Over 10 KB asks (SPEC §5.1)
	// but is still read, up to maxRead, so padding hides nothing.
	if len(src) > maxCommand {
		a.opaque("ask.too-long", "command longer than 10 KB", false)
	}
	if len(src) > maxRead {
		a.opaque("human.too-long", "command too long for the gate to read", true)
		return summary{}
	}
	if a.depth > maxDepth {
		a.opaque("human.too-deep", "wrappers nested too deeply for the gate to read", true)
		return summary{}
	}
	if strings.Contains(src, "\\\n") && strings.Contains(src, "#") {
		src = bashComments(src)
	}
	if strings.Contains(src, "\\\n") && strings.Contains(src, "<<") {
		src = bashHeredocs(src)
	}
	f, err := parseSalvage(src)
	if err != nil && strings.Contains(src, "((") {
		if alt := splitDoubleParens(src, err); alt != "" {
			f, err = parseSalvage(alt)
			a.opaque("ask.parse-reread", "(( … ) read as nested subshells, as bash reads it when it is not arithmetic", false)
		}
	}
	if err != nil && strings.Contains(err.Error(), "unclosed here-document '") {
		// bash ends a here-document at the end of the input (with a
		// warning) and runs its command: the rest of the text is its body
		msg := err.Error()
		delim := msg[strings.Index(msg, "'")+1 : max(strings.LastIndex(msg, "'"), strings.Index(msg, "'")+1)]
		if g, gerr := parseSalvage(src + "\n" + delim + "\n"); gerr == nil && delim != "" && !strings.ContainsAny(delim, "\n'") {
			f, err = g, nil
		}
	}
	if err != nil {
		// bash runs the lines before a syntax error, and zsh reads
		// syntax (=(…), ${~x}) bash rejects: the unread part is human-only
		if a.typedInput && a.depth == 0 {
			a.opaque("ask.parse-error", "text typed into a process that does not parse as shell: "+err.Error(), false)
			a.typedLines(src, err, sc)
		} else {
			a.opaque("human.parse-error", "shell parse error: "+err.Error(), true)
		}
		if len(f.Stmts) == 0 {
			return summary{}
		}
	}
	if strings.Contains(src, "=") || strings.Contains(src, "++") || strings.Contains(src, "--") {
		a.arithAssigns(f)
	}
	a.depth++
	defer func() { a.depth-- }()
	return a.stmts(f.Stmts, sc)
}

func (a *analyzer) stmts(list []*syntax.Stmt, sc *scope) summary {
	var s summary
	out := &printsNothing
	for _, st := range list {
		one := a.stmt(st, sc)
		s.or(one)
		s.projList = len(list) == 1 && one.projList
		s.cleanList = len(list) == 1 && one.cleanList
		out = out.then(one.out)
	}
	if len(list) > 0 {
		s.out = out
	}
	return s
}

func (a *analyzer) stmt(st *syntax.Stmt, sc *scope) summary {
	a.nodes++
	if a.nodes > maxNodes {
		if a.nodes == maxNodes+1 {
			a.opaque("human.too-long", "too many commands for the gate to read", true)
		}
		return summary{}
	}
	var redir, s summary
	var early []summary // redirections from <(…), analysed before the command
	bare, _ := st.Cmd.(*syntax.CallExpr)
	execFDs := bare != nil && len(bare.Args) == 1 && bare.Args[0].Lit() == "exec" // exec 3<<<TEXT
	ownStdin := false
	for i, r := range st.Redirs {
		fd := "0"
		if r.N != nil {
			fd = r.N.Value
		}
		ownStdin = ownStdin || fd == "0" && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc ||
			r.Op == syntax.RdrIn || r.Op == syntax.DplIn)
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				t, ok := litText(r.Hdoc)
				if r.Op == syntax.DashHdoc {
					t = stripLeadingTabs(t) // what bash hands the command
				}
				a.pendingStdin = &stdinSrc{text: t, known: ok}
			}
		case syntax.WordHdoc:
			t, ok := litText(r.Word)
			a.pendingStdin = &stdinSrc{text: t + "\n", known: ok}
		case syntax.DplIn:
			if in := a.fdText[r.Word.Lit()]; in != nil && fd == "0" {
				a.pendingStdin = in // bash <&3 after exec 3<<<'cmd'
			}
		case syntax.RdrIn:
			a.pendingStdin = nil // a file: a script, not a string
			if len(r.Word.Parts) == 1 {
				if p, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok && p.Op == syntax.CmdIn {
					// bash < <(echo 'cmd'): the command reads the substitution's output
					if early == nil {
						early = make([]summary, len(st.Redirs))
					}
					w := a.word(r.Word, sc)
					early[i] = w.sub
					in := *w.procText
					in.download = w.sub.downloader
					a.pendingStdin = &in
				}
			}
		}
		if execFDs && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc || r.Op == syntax.RdrIn) {
			if a.fdText == nil {
				a.fdText = map[string]*stdinSrc{}
			}
			a.fdText[fd] = a.pendingStdin
			a.pendingStdin = nil
		}
	}
	if !ownStdin && a.pendingStdin == nil && a.fdText["0"] != nil {
		a.pendingStdin = a.fdText["0"] // exec <<<'cmd'; bash: the shell's stdin
	}
	if st.Cmd != nil {
		s = a.command(st.Cmd, sc)
	}
	a.pendingStdin = nil
	cmdTaint := s.taint
	mid := len(a.facts)
	for i, r := range st.Redirs {
		var rs summary
		if early != nil && r.Op == syntax.RdrIn && len(r.Word.Parts) == 1 {
			if _, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
				rs = early[i]
			} else {
				rs = a.redirect(r, sc)
			}
		} else {
			rs = a.redirect(r, sc)
		}
		if rs.sink && cmdTaint && rs.net {
			a.floorFact("floor.exfil", "a secret is written into a network tool")
		}
		if rs.sink && s.downloader && rs.shellSink {
			a.humanFact("human.download-exec", "a download is written into a shell")
		}
		if exec, ok := st.Cmd.(*syntax.CallExpr); ok && len(exec.Args) == 1 && exec.Args[0].Lit() == "exec" && (r.Op == syntax.RdrIn || r.Op == syntax.DplIn) {
			// exec 3<.env: fd 3 (0: the shell's stdin) holds the secret
			// or the download for the rest of the call
			fd := "0"
			if r.N != nil {
				fd = r.N.Value
			}
			if rs.taint {
				a.setTaint("&"+fd, true)
			}
			if rs.downloader {
				a.markFetched(pathRef{known: true, abs: "&" + fd, real: "&" + fd})
			}
		}
		redir.or(rs)
		redir.secretStdin = redir.secretStdin || rs.secretStdin
	}
	if (redir.taint || a.taint["&0"]) && s.net {
		a.floorFact("floor.exfil", "a secret is fed to a network tool")
	}
	// cat <<< "$TOKEN" prints the secret (a pipe on to curl is a floor);
	// gh auth login --with-token <<< "$GH_TOKEN" hands it to the tool it is
	// for, like a secret variable in its arguments: human-only, not a floor
	if redir.secretStdin && !s.net {
		s.taint = true
	}
	if c, ok := st.Cmd.(*syntax.CallExpr); ok && (redir.taint || redir.downloader) && len(c.Args) > 1 {
		// read K < .env: K holds the secret; read c < <(curl …): c holds
		// downloaded text (recorded in fetched as $c)
		switch c.Args[0].Lit() {
		case "read", "mapfile", "readarray":
			for _, w := range c.Args[1:] {
				if n := w.Lit(); n != "" && !strings.HasPrefix(n, "-") {
					a.setTaint(n, a.taint[n] || redir.taint)
					if redir.downloader {
						a.markFetched(pathRef{known: true, abs: "$" + n, real: "$" + n})
					}
				}
			}
		}
	}
	if redir.downloader && s.shellSink {
		a.humanFact("human.download-exec", "a shell reads a download")
	}
	if s.downloader {
		// curl URL > x.sh: running x.sh later in the call runs the download
		for _, f := range a.facts[mid:] {
			if f.kind == protocol.FactWrite {
				a.markFetched(f.path)
			}
		}
	}
	if out := textOf(s.out); out != "" {
		// echo 'cmd' > x.sh: running x.sh later in the call runs cmd
		for _, r := range st.Redirs {
			if r.Op != syntax.RdrOut && r.Op != syntax.AppOut && r.Op != syntax.ClbOut || r.N != nil && r.N.Value != "1" {
				continue
			}
			if w, ok := litText(r.Word); ok {
				p := a.resolvePath(w, sc.cwd, true)
				if p.known {
					if a.written == nil {
						a.written = map[string]string{}
					}
					if r.Op != syntax.AppOut {
						a.written[p.abs] = ""
					}
					a.written[p.abs] += out
				}
			}
		}
	}
	if cmdTaint {
		// a file written from a secret is a secret too
		for _, f := range a.facts[mid:] {
			if f.kind == protocol.FactWrite && f.path.known {
				a.markTainted(f.path)
			}
		}
	}
	s.or(redir)
	return s
}

// redirect turns a redirection into a read or write of its target.
func (a *analyzer) redirect(r *syntax.Redirect, sc *scope) summary {
	var s summary
	if r.Hdoc != nil {
		s.or(a.walkSubst(r.Hdoc, sc))
		s.taint = s.taint || expandsTaint(r.Hdoc, func(n string) bool { return varTainted(a.taint, a.vals, a.secretEnv, n) }) // curl -d @- URL <<EOF ⏎ $KEY (after source .env)
	}
	// cat <<< "$GITHUB_TOKEN", or a here-document that expands one: the
	// command reads the secret on its stdin
	if r.Op == syntax.WordHdoc && r.Word != nil && a.mentionsSecretVar(r.Word) ||
		(r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil && a.mentionsSecretVar(r.Hdoc) {
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

func litText(w *syntax.Word) (string, bool) {
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

// pathWord resolves a word used as a file name.
func (a *analyzer) pathWord(w word, sc *scope, forWrite bool) pathRef {
	if w.dyn {
		return pathRef{raw: w.val}
	}
	return a.resolvePath(w.val, sc.cwd, forWrite)
}

func (a *analyzer) command(c syntax.Command, sc *scope) summary {
	switch c := c.(type) {
	case *syntax.CallExpr:
		return a.call(c, sc)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			return a.pipeline(c, sc)
		case syntax.OrStmt:
			before := sc.cwd
			s := a.stmt(c.X, sc)
			if sc.cwd != before {
				sc.cwd = "" // the right side may run in either directory
			}
			s.or(a.stmt(c.Y, sc))
			return s
		default:
			s := a.stmt(c.X, sc)
			y := a.stmt(c.Y, sc)
			s.or(y)
			s.out = s.out.then(y.out) // cd .. && pwd prints the parent
			return s
		}
	case *syntax.Subshell:
		return a.stmts(c.Stmts, sc.copy())
	case *syntax.Block:
		return a.stmts(c.Stmts, sc)
	case *syntax.IfClause:
		return branch(sc, func(in *scope) summary {
			var s summary
			for cl := c; cl != nil; cl = cl.Else {
				s.or(a.stmts(cl.Cond, in))
				s.or(a.stmts(cl.Then, in))
			}
			return s
		})
	case *syntax.WhileClause:
		return branch(sc, func(in *scope) summary {
			s := a.stmts(c.Cond, in)
			s.or(a.stmts(c.Do, in))
			return s
		})
	case *syntax.ForClause:
		return branch(sc, func(in *scope) summary {
			wi, ok := c.Loop.(*syntax.WordIter)
			if !ok {
				s := a.walkSubst(c.Loop, in)
				s.or(a.stmts(c.Do, in))
				return s
			}
			return a.forWords(wi, c.Do, in)
		})
	case *syntax.CaseClause:
		return a.caseClause(c, sc)
	case *syntax.FuncDecl:
		return a.funcDecl(c, sc)
	case *syntax.ArithmCmd:
		a.arith(c.X, sc)
		if a.arithSecret(c.X) {
			// (( 36#${KEY:3:1} > 20 )): its status answers about the value
			a.humanFact("human.env-dump", "arithmetic on a variable that holds a secret")
		}
		return a.walkSubst(c.X, sc)
	case *syntax.TestClause:
		a.testArith(c.X, sc) // -eq and friends evaluate their operands
		a.testSecret(c.X)
		return a.walkSubst(c.X, sc)
	case *syntax.LetClause:
		var s summary
		for _, x := range c.Exprs {
			a.arith(x, sc)
			s.or(a.walkSubst(x, sc))
		}
		return s
	case *syntax.DeclClause:
		return a.decl(c, sc)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return summary{}
		}
		return a.stmt(c.Stmt, sc)
	case *syntax.CoprocClause:
		return a.coproc(c, sc)
	}
	a.opaque("ask.unknown-node", "a shell construct the gate does not model", false)
	return summary{}
}

// caseClause analyses case WORD in PATTERNS) BODY;; …: every branch may
// run.
func (a *analyzer) caseClause(c *syntax.CaseClause, sc *scope) summary {
	return branch(sc, func(in *scope) summary {
		w := a.word(c.Word, in)
		s := w.sub
		if w.secretVar && slices.ContainsFunc(c.Items, func(it *syntax.CaseItem) bool {
			return slices.ContainsFunc(it.Patterns, func(p *syntax.Word) bool { return p.Lit() != "*" })
		}) {
			// case $TOKEN in sk-a*): each branch answers yes or no
			// about the value, and a loop of them spells it out
			a.humanFact("human.env-dump", "compares a variable that holds a secret with a pattern")
		}
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				s.or(a.walkSubst(p, in))
			}
			s.or(a.stmts(it.Stmts, in))
		}
		return s
	})
}

// coproc analyses coproc [NAME] CMD, which runs in a subshell; its stdin
// is ${NAME[1]}: a later >&${NAME[1]} feeds it.
func (a *analyzer) coproc(c *syntax.CoprocClause, sc *scope) summary {
	if c.Stmt == nil {
		return summary{}
	}
	s := a.stmt(c.Stmt, sc.copy())
	name := "COPROC"
	if c.Name != nil {
		name = c.Name.Lit()
	}
	if a.coprocs == nil {
		a.coprocs = map[string]summary{}
	}
	a.coprocs[name] = s
	return s
}

// forWords analyses for NAME in WORDS; do BODY: the variable takes the
// values of the words, exactly so when the body cannot reassign it.
func (a *analyzer) forWords(wi *syntax.WordIter, body []*syntax.Stmt, sc *scope) summary {
	var s summary
	name := wi.Name.Value
	a.setsVar("for", name, false)
	vals := &varVals{exact: len(wi.Items) > 0 && !a.mayAssign(body, name)}
	var first word
	for i, it := range wi.Items {
		w := a.word(it, sc)
		if i == 0 {
			first = w
		}
		s.or(w.sub)
		if w.taint {
			a.setTaint(name, true) // for l in $(cat .env): $l holds the secret
		}
		switch {
		case !w.dyn:
			for _, alt := range appendBraced(nil, w) {
				vals.vals = append(vals.vals, alt.val)
			}
		case w.alts != nil:
			vals.vals = append(vals.vals, w.alts...)
			vals.exact = vals.exact && w.exact
		default:
			vals = nil
		}
		if vals == nil || len(vals.vals) > maxAlts {
			vals = nil
			break
		}
	}
	if len(wi.Items) == 0 {
		vals = nil // for x; do: the positional parameters
	}
	a.setVals(name, vals)
	if len(wi.Items) == 1 && !a.mayAssign(body, name) {
		a.bindListVar(name, first)
	}
	s.or(a.stmts(body, sc))
	// after the loop: the last name, or the old value when the list was empty
	delete(a.listVars, name)
	if vals != nil {
		vals.exact = false // after the loop: the last value, or the old one
	}
	return s
}

// bindListVar records that variable name holds one name from a project
// listing, as w does; any later assignment forgets it.
func (a *analyzer) bindListVar(name string, w word) {
	if !w.projPaths {
		return
	}
	if a.listVars == nil {
		a.listVars = map[string]word{}
	}
	a.listVars[name] = word{projPaths: true, cleanPaths: w.cleanPaths, secretPaths: w.secretPaths, broadPaths: w.broadPaths}
}

// listVarWord is the listing a word "$f" or $f expands, for a variable
// bindListVar recorded.
func (a *analyzer) listVarWord(w *syntax.Word) (word, bool) {
	if len(w.Parts) != 1 || len(a.listVars) == 0 {
		return word{}, false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil {
		return word{}, false
	}
	lv, ok := a.listVars[p.Param.Value]
	return lv, ok
}

// mayAssign reports whether body may change variable name (or anything,
// through eval, source, read, a function call or a dynamic command).
func (a *analyzer) mayAssign(body []*syntax.Stmt, name string) bool {
	may := false
	for _, st := range body {
		walkNodes(st, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Assign:
				may = may || n.Name != nil && n.Name.Value == name
			case *syntax.DeclClause, *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause, *syntax.FuncDecl:
				may = true
			case *syntax.ParamExp:
				may = may || n.Exp != nil && n.Param != nil && n.Param.Value == name
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					switch cmd := n.Args[0].Lit(); cmd {
					case "", "read", "mapfile", "readarray", "printf", "source", ".", "eval", "getopts", "unset",
						"command", "builtin", "trap", "export", "declare", "typeset", "local", "readonly", "alias":
						may = true
					default:
						may = may || a.funcs[cmd] != nil || a.aliases[cmd] != ""
					}
				}
			}
			return !may
		})
	}
	return may
}

// branch runs a conditional body on a copy of the scope; if the body may
// change directory, what follows runs in an unknown one.
func branch(sc *scope, body func(*scope) summary) summary {
	in := sc.copy()
	s := body(in)
	if in.cwd != sc.cwd {
		sc.cwd = ""
	}
	return s
}

// pipeline analyses each stage and then the flow between them.
func (a *analyzer) pipeline(c *syntax.BinaryCmd, sc *scope) summary {
	var stages []*syntax.Stmt
	var flat func(st *syntax.Stmt)
	flat = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(st.Redirs) == 0 {
			flat(b.X)
			flat(b.Y)
			return
		}
		stages = append(stages, st)
	}
	flat(c.X)
	flat(c.Y)
	sums := make([]summary, len(stages))
	var all summary
	for i, st := range stages {
		if i > 0 {
			a.pendingStdin = sums[i-1].out
			if a.pendingStdin == nil {
				dl := false
				for _, p := range sums[:i] {
					dl = dl || p.downloader
				}
				a.pendingStdin = &stdinSrc{text: "$_", known: false, download: dl, projList: sums[i-1].projList, secretList: sums[i-1].secretList,
					cleanList: sums[i-1].cleanList, broadList: sums[i-1].broadList}
			}
		}
		sums[i] = a.stmt(st, sc.copy())
		all.or(sums[i])
	}
	all.projList, all.cleanList = sums[len(sums)-1].projList, sums[len(sums)-1].cleanList
	var tainted, downloaded bool
	for _, s := range sums {
		if tainted && s.net {
			a.floorFact("floor.exfil", "a secret or the environment is piped to a network tool")
		}
		if downloaded && s.shellSink {
			a.humanFact("human.download-exec", "downloaded code is piped to a shell or interpreter")
		}
		tainted = tainted || s.taint
		downloaded = downloaded || s.downloader
	}
	if all.shellSink && all.rawNet {
		a.floorFact("floor.reverse-shell", "a shell is wired to a network socket")
	}
	return all
}

// funcDecl analyses a function body; a function that calls itself from its
// own body is a fork bomb.
func (a *analyzer) funcDecl(c *syntax.FuncDecl, sc *scope) summary {
	name := c.Name.Value
	if a.funcs == nil {
		a.funcs = map[string]*syntax.Stmt{}
	}
	a.funcs[name] = c.Body
	recursive := false
	walkNodes(c.Body, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 && call.Args[0].Lit() == name {
			recursive = true
		}
		return !recursive
	})
	if recursive {
		a.add(&rfact{kind: protocol.FactExec, argv: []string{name + "()"}, parent: -1,
			floor: reason("floor.fork-bomb", "function "+name+" calls itself (fork bomb)")})
	}
	a.noAlways = true
	return a.stmt(c.Body, sc.copy())
}

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
		a.setArray(as, sc)
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
// "${a[@]}" as a command is seen ("a=(rm -rf ~); ${a[@]}").
func (a *analyzer) setArray(as *syntax.Assign, sc *scope) {
	name := as.Name.Value
	if a.arrays != nil {
		delete(a.arrays, name)
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
			t = a.env.Home + t[1:]
		}
		elems = append(elems, word{val: t, glob: hasGlob(t)})
	}
	if a.arrays == nil {
		a.arrays = map[string][]word{}
	}
	a.arrays[name] = elems
}

// arrayWords returns the elements "${a[@]}" or ${a[*]} expands to.
func (a *analyzer) arrayWords(w *syntax.Word) ([]word, bool) {
	if len(a.arrays) == 0 || len(w.Parts) != 1 {
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
		elems, ok := a.arrays["@"] // the positional parameters (set -- …)
		return elems, ok
	}
	idx, ok := p.Index.(*syntax.Word)
	if !ok || (idx.Lit() != "@" && idx.Lit() != "*") {
		return nil, false
	}
	elems, ok := a.arrays[p.Param.Value]
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

// runsWritten analyses a script this call wrote known text to earlier
// (echo 'cmd' > x.sh && sh x.sh).
func (a *analyzer) runsWritten(w word, sc *scope, idx int) summary {
	if a.written == nil || w.dyn {
		return summary{}
	}
	if text, ok := a.written[a.resolvePath(w.val, sc.cwd, false).abs]; ok {
		return a.reparse(text, sc, idx)
	}
	return summary{}
}

// setTaint records whether a variable holds a secret; the keys are also
// "&N" for a file descriptor (exec 3<.env) and "(history)" for the shell's
// history list (history -r ~/.ssh/id_rsa).
func (a *analyzer) setTaint(name string, t bool) {
	if a.taint == nil {
		a.taint = map[string]bool{}
	}
	a.taint[name] = t
}

// setVals records the values the call gave a variable (nil: unknown). They
// only make answers stricter unless exact.
func (a *analyzer) setVals(name string, v *varVals) {
	delete(a.listVars, name)
	if v == nil {
		if a.vals != nil {
			delete(a.vals, name)
		}
		return
	}
	if a.vals == nil {
		a.vals = map[string]*varVals{}
	}
	a.vals[name] = v
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
func (a *analyzer) ref(name string) string {
	if t := a.refs[name]; t != "" {
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

// builtinTargets are the variables a builtin assigns: read and mapfile
// their operands (and -a), printf -v, getopts its second operand. Every
// non-option word counts, which can only ask more.
func builtinTargets(lb string, args []word) []word {
	var out []word
	switch lb {
	case "read", "mapfile", "readarray", "getopts":
		for _, w := range args {
			if !strings.HasPrefix(w.val, "-") || w.dyn {
				out = append(out, w)
			}
		}
	case "printf":
		for i, w := range args {
			switch {
			case w.val == "-v" && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(w.val, "-v") && len(w.val) > 2:
				out = append(out, word{val: w.val[2:], dyn: w.dyn})
			}
		}
	}
	return out
}

// builtinValue is what printf -v NAME FORMAT ARGS may store: one of its
// literal words (stricter answers only); nil for read and the others.
func builtinValue(lb string, args []word) *varVals {
	if lb != "printf" {
		return nil
	}
	v := &varVals{}
	for i, w := range args {
		switch {
		case w.val == "-v", i > 0 && args[i-1].val == "-v", strings.HasPrefix(w.val, "-v"):
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
		return harmlessCommandEnv[val]
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

// harmlessFlag: f is one of names, alone or as name=VALUE.
func harmlessFlag(f string, names map[string]bool) bool {
	if i := strings.IndexByte(f, '='); i > 0 {
		f = f[:i]
	}
	return names[f]
}

var (
	harmlessCommandEnv = map[string]bool{"": true, "cat": true, "less": true, "less -R": true, "less -r": true,
		"less -FRX": true, "less -FR": true, "more": true, "true": true, ":": true, "none": true}
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

// call handles a simple command.
func (a *analyzer) call(c *syntax.CallExpr, sc *scope) summary {
	var s summary
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			s.or(a.assign(as, sc, true))
		}
		a.simple++
		a.add(&rfact{kind: protocol.FactExec, argv: []string{"(assignment)"}, parent: -1, safe: reason("gate.safe", "shell variable assignment")})
		return s
	}
	in := a.pendingStdin
	a.pendingStdin = nil
	for _, as := range c.Assigns {
		s.or(a.assign(as, sc, false))
	}
	words := make([]word, 0, len(c.Args))
	if len(a.arrays) > 0 {
		// "${a[@]}" or "$@" with known elements, as the command or its
		// arguments (a=(-rf ~); rm "${a[@]}"). The array may have changed
		// since (read -a, mapfile): its elements only add facts, the
		// command stays dynamic.
		var alt []word
		arr := false
		for _, w := range c.Args {
			if elems, ok := a.arrayWords(w); ok {
				alt, arr = append(alt, elems...), true
			} else {
				alt = append(alt, wordsOf([]*syntax.Word{w})...)
			}
		}
		if arr && len(alt) > 0 {
			s.or(a.exec(alt, sc, a.owner))
		}
	}
	var splits []bool // the word is an unquoted expansion bash field-splits
	for _, arg := range c.Args {
		for _, w := range ifsSplit(arg, a.vals, a.arrays) {
			nw := a.word(w, sc)
			s.or(nw.sub)
			words = appendBraced(words, nw)
			for len(splits) < len(words) {
				splits = append(splits, unquotedExpansion(w))
			}
		}
	}
	for _, alt := range fieldSplits(words, splits, a.vals) {
		// x='-rf /'; rm $x is rm -rf /: the known values, split into words
		a.stdin = in
		s.or(a.exec(alt, sc, a.owner))
	}
	a.stdin = in
	e := a.exec(words, sc, a.owner)
	s.or(e)
	s.out, s.projList, s.cleanList = e.out, e.projList, e.cleanList
	return s
}

// ifsSplit splits a word where an unquoted $IFS expansion sits: bash
// splits the expansion's value into fields, so rm${IFS}-rf${IFS}/ is three
// words. Only an IFS the call set to "" expands to nothing.
func ifsSplit(w *syntax.Word, vals map[string]*varVals, args map[string][]word) []*syntax.Word {
	if v := vals["IFS"]; v != nil && v.exact && slices.Equal(v.vals, []string{""}) {
		return []*syntax.Word{w}
	}
	var out []*syntax.Word
	start := 0
	for i, part := range w.Parts {
		if !ifsExpansion(part) {
			continue
		}
		if i > start {
			out = append(out, &syntax.Word{Parts: w.Parts[start:i]})
		}
		start = i + 1
	}
	if out == nil && start == 0 {
		return []*syntax.Word{w}
	}
	if start < len(w.Parts) {
		out = append(out, &syntax.Word{Parts: w.Parts[start:]})
	}
	// cat$IFS$9/etc/passwd: an unset positional parameter is empty
	for _, piece := range out {
		piece.Parts = slices.DeleteFunc(slices.Clone(piece.Parts), func(p syntax.WordPart) bool {
			pe, ok := p.(*syntax.ParamExp)
			return ok && pe.Param != nil && pe.Exp == nil && !pe.Length && len(pe.Param.Value) == 1 &&
				strings.Contains("123456789@*", pe.Param.Value) && vals[pe.Param.Value] == nil && args["@"] == nil
		})
	}
	return slices.DeleteFunc(out, func(w *syntax.Word) bool { return len(w.Parts) == 0 })
}

// unquotedExpansion reports a word with a parameter expansion outside quotes,
// whose value bash splits into words.
func unquotedExpansion(w *syntax.Word) bool {
	return slices.ContainsFunc(w.Parts, func(p syntax.WordPart) bool {
		_, ok := p.(*syntax.ParamExp)
		return ok
	})
}

// maxSplits bounds the argument lists fieldSplits returns.
const maxSplits = 16

// fieldSplits returns the argument lists a command may really get when an
// unquoted expansion among its words (after the command name, whose values
// exec tries itself) has known values with several fields; nil when none has.
func fieldSplits(words []word, splits []bool, vals map[string]*varVals) [][]word {
	n := 0
	for i, w := range words {
		if i == 0 || !splits[i] || !w.dyn {
			continue
		}
		for _, v := range w.alts {
			if len(ifsFields(vals, v)) != 1 {
				n = max(n, len(w.alts))
			}
		}
	}
	var out [][]word
	for k := range min(n, maxSplits) {
		alt := []word{words[0]}
		for i, w := range words[1:] {
			if !splits[i+1] || !w.dyn || len(w.alts) == 0 {
				alt = append(alt, w)
				continue
			}
			for _, f := range ifsFields(vals, w.alts[k%len(w.alts)]) {
				alt = append(alt, word{val: f, glob: hasGlob(f), taint: w.taint})
			}
		}
		out = append(out, alt)
	}
	return out
}

// ifsExpansion reports an unquoted expansion of IFS that yields some of its
// characters: $IFS, ${IFS}, ${IFS:0:1}, ${IFS%??}.
func ifsExpansion(part syntax.WordPart) bool {
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Param.Value != "IFS" || p.Excl || p.Length || p.Width || p.Index != nil || p.Repl != nil || p.Names != 0 {
		return false
	}
	if p.Exp == nil {
		return true
	}
	switch p.Exp.Op {
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix,
		syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return true
	}
	return false
}

// appendBraced appends w, brace-expanded as bash does before anything else:
// {rm,-rf,/} is three words.
func appendBraced(words []word, w word) []word {
	if !w.brace || !strings.Contains(w.val, ",") && !strings.Contains(w.val, "..") {
		return append(words, w)
	}
	alts := braceExpand(w.val)
	if len(alts) < 2 {
		return append(words, w)
	}
	for _, alt := range alts {
		nw := word{val: alt, ansiC: w.ansiC, glob: hasGlob(alt), taint: w.taint}
		if w.dyn {
			// the expansions are still there, written as $NAME or $(…)
			nw.dyn = strings.Contains(alt, "$") || strings.Contains(alt, "/dev/fd/")
		}
		words = append(words, nw)
	}
	return words
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// testSecret makes a [[ … ]] that compares a secret variable with a string
// or pattern human-only: [[ $TOKEN == sk-a* ]] && echo y is a yes/no
// answer about the value, and a loop of them prints it letter by letter.
// -n, -z and a comparison with "" (is it set?) stay as they are.
func (a *analyzer) testSecret(x syntax.TestExpr) {
	walkNodes(x, func(n syntax.Node) bool {
		if u, ok := n.(*syntax.UnaryTest); ok && a.secretPartOf(u.X) {
			// [[ -z ${TOKEN/#sk-a*/} ]]: empty only if the value starts so
			a.humanFact("human.env-dump", "tests part of a variable that holds a secret")
			return false
		}
		b, ok := n.(*syntax.BinaryTest)
		if !ok {
			return true
		}
		switch b.Op {
		case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch, syntax.TsReMatch, syntax.TsBefore, syntax.TsAfter:
			if a.secretValue(b.X) && !emptyWord(b.Y) || a.secretValue(b.Y) && !emptyWord(b.X) {
				a.humanFact("human.env-dump", "compares a variable that holds a secret with a pattern")
				return false
			}
		}
		return true
	})
}

// secretValue reports an operand that expands part of a secret variable's
// value (not its length, ${#X}).
func (a *analyzer) secretValue(n syntax.Node) bool {
	found := false
	walkNodes(n, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && !p.Length && (p.Param != nil && (secretVarName(p.Param.Value) || a.secrets[p.Param.Value]) || indirect(p)) {
			found = true
		}
		return !found
	})
	return found
}

// emptyWord reports an empty quoted word (a test of whether a variable is set).
func emptyWord(n syntax.Node) bool {
	w, ok := n.(*syntax.Word)
	if !ok {
		return false
	}
	t, ok := litText(w)
	return ok && t == ""
}

// typedLines reads the lines of typed text that does not parse: an
// interactive shell reports the line in error and runs the next ones
// (fi, then rm -rf ~ on the next line). Each line is read on its own, and
// the text after the line the parser stopped at as a whole; both only add
// to what the call is judged by.
func (a *analyzer) typedLines(src string, err error, sc *scope) {
	lines := strings.Split(src, "\n")
	if len(lines) < 2 || a.typedSplit {
		return // once: the parts read here are not split again
	}
	a.typedSplit = true
	defer func() { a.typedSplit = false }()
	for _, l := range lines {
		if f, err := parseSalvage(l); err == nil && len(f.Stmts) > 0 {
			a.shell(l, sc)
		}
	}
	var pe syntax.ParseError
	if errors.As(err, &pe) && int(pe.Pos.Line()) < len(lines) && pe.Pos.Line() > 0 {
		a.shell(strings.Join(lines[pe.Pos.Line():], "\n"), sc)
	}
}

// secretPartOf reports an operand that cuts or rewrites a secret
// variable's value (${X:3:1}, ${X/#sk-a*/}, ${X#…}).
func (a *analyzer) secretPartOf(n syntax.Node) bool {
	found := false
	walkNodes(n, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && !p.Length && (cutsValue(p) &&
			(secretVarName(p.Param.Value) || a.secrets[p.Param.Value]) || a.secretParts[p.Param.Value]) {
			found = true
		}
		return !found
	})
	return found
}

// cutsValue reports ${X:off:len}, ${X/a/b} and ${X#…}/${X%…}: the
// result depends on what the value holds. ${X:-d}, ${X:+y} and case
// changes only on whether it is set.
func cutsValue(p *syntax.ParamExp) bool {
	if p.Slice != nil || p.Repl != nil {
		return true
	}
	if p.Exp == nil {
		return false
	}
	switch p.Exp.Op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		return true
	}
	return false
}
