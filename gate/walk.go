package gate

import (
	"errors"
	"slices"
	"strings"

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
	// outList: names it prints may be of files under a place outside the
	// project (find ~ -name '*.txt'); not merged by or.
	outList bool
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
	// outList: the text lists names that may be outside the project
	outList bool
	// secretList: the names may include secrets
	secretList bool
	// broadList: with secretList, no filter aimed at secrets
	broadList bool
}

// recordOutputs records what a statement's redirections of stdout to
// files named by literals keep for the later commands of the call: the
// known text it printed (echo 'cmd' > x.sh: running x.sh runs cmd), and a
// listing that may name secrets (find ~ -name '*.pem' > l: xargs cat < l
// and xargs -a l cat read those names; only secretList is kept, as a later
// write can add names but not make the listing a clean one). resolve
// makes a name absolute.
func (ss *shellState) recordOutputs(redirs []*syntax.Redirect, s summary, resolve func(string) pathRef) {
	out := textOf(s.out)
	if out == "" && !s.secretList {
		return
	}
	for _, r := range redirs {
		if r.Op != syntax.RdrOut && r.Op != syntax.AppOut && r.Op != syntax.ClbOut || r.N != nil && r.N.Value != "1" {
			continue
		}
		w, ok := litText(r.Word)
		if !ok {
			continue
		}
		p := resolve(w)
		if !p.known {
			continue
		}
		if out != "" {
			if ss.written == nil {
				ss.written = map[string]string{}
			}
			if r.Op != syntax.AppOut {
				ss.written[p.abs] = ""
			}
			ss.written[p.abs] += out
		}
		if s.secretList {
			if ss.listings == nil {
				ss.listings = map[string]*stdinSrc{}
			}
			ss.listings[p.abs] = &stdinSrc{text: "$_", secretList: true, broadList: s.broadList}
		}
	}
}

// listingIn is what reading the file w names gives on stdin: a listing
// this call wrote to it (recordOutputs), else nil.
func (ss *shellState) listingIn(w *syntax.Word, resolve func(string) pathRef) *stdinSrc {
	if ss.listings == nil {
		return nil
	}
	name, ok := litText(w)
	if !ok {
		return nil
	}
	return ss.listings[resolve(name).abs]
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

// printsNothing is the output of a command known to print nothing. It is
// shared, not allocated per statement: no reader changes a stdinSrc it is
// handed (one it adjusts, it copies first).
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
		s.outList = len(list) == 1 && one.outList
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
	execFDs := bare != nil && len(bare.Args) == 1 && keepsRedirs(bare.Args[0].Lit()) // exec 3<<<TEXT
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
			t, ok := knownText(r.Word, oneValue(a, sc))
			a.pendingStdin = &stdinSrc{text: t + "\n", known: ok}
		case syntax.DplIn:
			if in := a.fdText[r.Word.Lit()]; in != nil && fd == "0" {
				a.pendingStdin = in // bash <&3 after exec 3<<<'cmd'
			}
		case syntax.RdrIn:
			a.pendingStdin = a.listingIn(r.Word, func(n string) pathRef { return a.resolvePath(n, sc.cwd, true) }) // a file: a script, not a string, or a listing this call wrote
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
		if exec, ok := st.Cmd.(*syntax.CallExpr); ok && len(exec.Args) == 1 && keepsRedirs(exec.Args[0].Lit()) && (r.Op == syntax.RdrIn || r.Op == syntax.DplIn) {
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
		if name, args := inShellBuiltin(c.Args); readsInput(name) {
			for _, w := range args {
				if n, known := litText(w); known && n != "" && !strings.HasPrefix(n, "-") {
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
	a.recordOutputs(st.Redirs, s, func(n string) pathRef { return a.resolvePath(n, sc.cwd, true) })
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

// pathWord resolves a word used as a file name.
func (fl *factLog) pathWord(w word, sc *scope, forWrite bool) pathRef {
	if w.dyn {
		return pathRef{raw: w.val}
	}
	return fl.resolvePath(w.val, sc.cwd, forWrite)
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
		for _, d := range a.secretTests(c.X) {
			a.humanFact("human.env-dump", d)
		}
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
func (ss *shellState) bindListVar(name string, w word) {
	if !w.projPaths {
		return
	}
	if ss.listVars == nil {
		ss.listVars = map[string]word{}
	}
	ss.listVars[name] = word{projPaths: true, cleanPaths: w.cleanPaths, secretPaths: w.secretPaths, broadPaths: w.broadPaths}
}

// listVarWord is the listing a word "$f" or $f expands, for a variable
// bindListVar recorded.
func (ss *shellState) listVarWord(w *syntax.Word) (word, bool) {
	if len(w.Parts) != 1 || len(ss.listVars) == 0 {
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
	lv, ok := ss.listVars[p.Param.Value]
	return lv, ok
}

// mayAssign reports whether body may change variable name (or anything,
// through eval, source, read, a function call or a dynamic command).
func (ss *shellState) mayAssign(body []*syntax.Stmt, name string) bool {
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
					// export, declare, local … are DeclClauses
					cmd := n.Args[0].Lit()
					may = may || cmd == "" || changesVars(cmd) || ss.funcs[cmd] != nil || ss.aliases[cmd] != ""
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
					cleanList: sums[i-1].cleanList, broadList: sums[i-1].broadList, outList: sums[i-1].outList}
			}
		}
		sums[i] = a.stmt(st, sc.copy())
		all.or(sums[i])
	}
	all.projList, all.cleanList, all.outList = sums[len(sums)-1].projList, sums[len(sums)-1].cleanList, sums[len(sums)-1].outList
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
	var splits []bool         // the word is an unquoted expansion bash field-splits
	var whole [1]*syntax.Word // the word itself, when no $IFS splits it
	for _, arg := range c.Args {
		pieces := ifsSplit(arg, a.vals, a.arrays)
		if pieces == nil {
			whole[0], pieces = arg, whole[:]
		}
		for _, w := range pieces {
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
	s.out, s.projList, s.cleanList, s.outList = e.out, e.projList, e.cleanList, e.outList
	return s
}

// ifsSplit splits a word where an unquoted $IFS expansion sits: bash
// splits the expansion's value into fields, so rm${IFS}-rf${IFS}/ is three
// words. Only an IFS the call set to "" expands to nothing. It returns nil
// when nothing splits w (most words: no slice is made for them).
func ifsSplit(w *syntax.Word, vals map[string]*varVals, args map[string][]word) []*syntax.Word {
	if v := vals["IFS"]; v != nil && v.exact && slices.Equal(v.vals, []string{""}) {
		return nil
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
		return nil
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

// secretTests are the comparisons of a [[ … ]] with a secret variable's
// value, each as the reason it is human-only: [[ $TOKEN == sk-a* ]] && echo
// y is a yes/no answer about the value, and a loop of them prints it letter
// by letter. -n, -z and a comparison with "" (is it set?) are none.
func (ss *shellState) secretTests(x syntax.TestExpr) (details []string) {
	walkNodes(x, func(n syntax.Node) bool {
		if u, ok := n.(*syntax.UnaryTest); ok && ss.secretPartOf(u.X) {
			// [[ -z ${TOKEN/#sk-a*/} ]]: empty only if the value starts so
			details = append(details, "tests part of a variable that holds a secret")
			return false
		}
		b, ok := n.(*syntax.BinaryTest)
		if !ok {
			return true
		}
		switch b.Op {
		case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch, syntax.TsReMatch, syntax.TsBefore, syntax.TsAfter:
			if ss.secretExpansion(b.X, false) && !emptyWord(b.Y) || ss.secretExpansion(b.Y, false) && !emptyWord(b.X) {
				details = append(details, "compares a variable that holds a secret with a pattern")
				return false
			}
		}
		return true
	})
	return details
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
func (ss *shellState) secretPartOf(n syntax.Node) bool {
	found := false
	walkNodes(n, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && !p.Length && (cutsValue(p) &&
			(secretVarName(p.Param.Value) || ss.secrets[p.Param.Value]) || ss.secretParts[p.Param.Value]) {
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
