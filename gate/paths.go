package gate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// pathRef is one file a call touches, resolved against the call's cwd.
type pathRef struct {
	raw   string // as written
	abs   string // cleaned absolute path; "" when unknown
	real  string // abs with symlinks resolved when the file exists; else abs
	glob  bool   // contains unexpanded glob characters
	known bool   // false for dynamic words, unknown cwd, ~user
	// via are further resolved forms of a glob whose directory patterns
	// match symlinked directories (*/x with a -> .. and b -> ~); real is
	// the first of them
	via []string
}

// resolvePath makes p absolute against cwd, cleans it and resolves symlinks
// when the file exists. forWrite also resolves the parent directory, so a new
// file written through a symlinked directory lands where it really goes.
func (pl *places) resolvePath(p, cwd string, forWrite bool) pathRef {
	return pl.resolve(p, cwd, forWrite, false)
}

// resolve is resolvePath; literal paths (from file tools) have no globs.
func (pl *places) resolve(p, cwd string, forWrite, literal bool) (r pathRef) {
	r = pathRef{raw: p, glob: !literal && hasGlob(p)}
	var extAlts []string
	if loose, ok := loosenExtglob(p); ok && !literal {
		// bash may have extglob on (scripts, shopt -s extglob): .@(e)nv
		// is .env, !(src) everything but src; judged as the * that
		// matches at least as much, and as the names its alternatives
		// spell (+(.e)nv is .env, which * does not match)
		p, r.glob, extAlts = loose, true, extglobNames(r.raw)
	}
	defer func() {
		for _, x := range extAlts {
			if _, ext := loosenExtglob(x); ext {
				continue // a group extglobNames could not read
			}
			if rx := pl.resolve(x, cwd, forWrite, false); rx.known {
				r.via = appendForm(r.via, rx.abs)
			}
		}
	}()
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if pl.env.Home == "" {
			return r
		}
		p = pl.env.Home + p[1:]
	case p == "~+" || strings.HasPrefix(p, "~+/"):
		// ~+ is $PWD; ~- is $OLDPWD, which the gate does not know
		if cwd == "" {
			return r
		}
		p = cwd + p[2:]
	case p == "~-" || strings.HasPrefix(p, "~-/"):
		return r
	case strings.HasPrefix(p, "~"):
		// ~user: the user's home, next to ours (root's is /root)
		user, rest, _ := strings.Cut(p[1:], "/")
		if pl.env.Home == "" || strings.ContainsAny(user, "$`") {
			return r
		}
		home := filepath.Join(filepath.Dir(pl.env.Home), user)
		if user == "root" {
			home = "/root"
		}
		p = home + "/" + rest
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return r
		}
		p = cwd + "/" + p
	}
	unclean := p
	r.abs = filepath.Clean(p)
	r.real = r.abs
	r.known = true
	if r.glob {
		// the shell walks the directories a glob names as the kernel
		// resolves them: up/* with up -> .. is ../* (SPEC §5.5)
		if forms := globThrough(unclean, pl.realDir); len(forms) > 0 {
			r.real, r.via = forms[0], forms[1:]
		}
		return r
	}
	// Lstat first: most paths an agent names in a plan do not exist yet, and
	// one failed syscall is the cheapest way to learn that.
	if fi, err := os.Lstat(r.abs); err == nil {
		if real, err := filepath.EvalSymlinks(r.abs); err == nil {
			r.real = real
			if fi.Mode()&os.ModeSymlink != 0 {
				fi, err = os.Stat(real)
			}
			if err == nil && fi.Mode().IsRegular() && linkCount(fi) > 1 {
				r.real = pl.hardLinkedTwin(real, fi)
			}
		} else {
			// a dangling link: writing through it creates its target
			r.real = followDangling(r.abs)
		}
	} else if forWrite {
		r.real = resolveMissing(r.abs)
	}
	// The kernel resolves "link/.." from the link's target, not by
	// dropping "link": with dep -> /elsewhere/x, dep/../.aws is
	// /elsewhere/.aws. EvalSymlinks walks the path that way.
	if strings.Contains(unclean, "..") {
		if real, err := filepath.EvalSymlinks(unclean); err == nil {
			r.real = real
		} else if i := strings.LastIndexByte(unclean, '/'); forWrite && i > 0 {
			if real, err := filepath.EvalSymlinks(unclean[:i]); err == nil {
				r.real = filepath.Join(real, unclean[i+1:])
			}
		}
	}
	return r
}

// followDangling resolves a chain of symlinks whose last target does not
// exist yet (rc -> ~/.bashrc): where a write through it would land.
func followDangling(p string) string {
	for i := 0; i < 16; i++ {
		fi, err := os.Lstat(p)
		if err != nil {
			if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				return filepath.Join(real, filepath.Base(p))
			}
			return p
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				return real
			}
			return p
		}
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	return p
}

// resolveMissing is where a write to abs, which does not exist, lands: the
// deepest ancestor that exists is resolved and the rest joined to it, since
// write tools create the missing directories (p/cfg/autostart/x.desktop with
// cfg -> ~/.config is ~/.config/autostart/x.desktop).
func resolveMissing(abs string) string {
	p, rest := abs, ""
	for range 64 {
		dir := filepath.Dir(p)
		if dir == p {
			break
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = dir
		if _, err := os.Lstat(p); err == nil {
			return filepath.Join(followDangling(p), rest)
		}
	}
	return abs
}

// both returns the lexical and the resolved paths (one when they agree).
func (r pathRef) both() []string {
	if r.real == r.abs && len(r.via) == 0 {
		return []string{r.abs}
	}
	out := []string{r.abs}
	for _, p := range append([]string{r.real}, r.via...) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Bounds of globThrough: past them a directory pattern stays unresolved.
const (
	maxWalkDirs  = 32
	maxWalkForms = 16
)

// globThrough resolves the directories an absolute glob walks through: its
// literal directories with the kernel's symlink and ".." rules, and every
// directory a directory pattern matches on disk (u?/*, */* with up -> ..).
// The last element stays a pattern: rm and ls act on a link it matches,
// not its target, and readers judge the matches themselves. It returns the
// resolved patterns, or nil when none differs from the cleaned one.
func globThrough(unclean string, realDir func(string) string) []string {
	segs := strings.Split(strings.TrimPrefix(unclean, "/"), "/")
	last := len(segs) - 1
	cur, lit := []string{"/"}, ""
	dirs := 0
	for _, seg := range segs[:last] {
		if !hasGlob(seg) {
			lit += "/" + seg // literal directories resolve in one walk
			continue
		}
		var next []string
		for _, d := range cur {
			if lit != "" {
				d = realDir(d + lit)
			}
			ms, ok := dirMatches(d, seg, &dirs)
			if !ok {
				next = appendForm(next, filepath.Join(d, seg))
				continue
			}
			for _, m := range ms {
				// a match that is no link keeps the pattern: only the
				// directories reached through a link are new places
				if rd := realDir(m); rd != m && isDir(rd) {
					next = appendForm(next, rd)
				} else {
					next = appendForm(next, filepath.Join(d, seg))
				}
			}
		}
		if len(next) == 0 {
			return nil // no directory matches: the glob matches nothing
		}
		cur, lit = next, ""
	}
	clean := filepath.Clean(unclean)
	var out []string
	for _, d := range cur {
		if lit != "" {
			d = realDir(d + lit)
		}
		if p := filepath.Join(d, segs[last]); p != clean {
			out = appendForm(out, p)
		}
	}
	return out
}

// appendForm appends p once, up to maxWalkForms.
func appendForm(forms []string, p string) []string {
	if len(forms) >= maxWalkForms || slices.Contains(forms, p) {
		return forms
	}
	return append(forms, p)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// dirMatches lists the entries of d that seg matches (case ignored,
// dotfiles included, as globMatches does). ok is false when d cannot be
// read or the walk has read maxWalkDirs directories.
func dirMatches(d, seg string, dirs *int) (ms []string, ok bool) {
	if *dirs++; *dirs > maxWalkDirs || hasGlob(d) {
		return nil, false
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		if os.IsNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
			return nil, true
		}
		return nil, false
	}
	if len(ents) > maxGlobEntries {
		return nil, false
	}
	lseg := strings.ToLower(seg)
	names := make([]string, 0, len(ents)+2)
	if seg[0] == '.' {
		names = append(names, ".", "..")
	}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	for _, n := range names {
		if shellGlobMatch(lseg, strings.ToLower(n)) {
			ms = append(ms, filepath.Join(d, n))
		}
	}
	return ms, true
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// extglobNames are the names an extglob's @(…) +(…) ?(…) *(…) groups
// spell with each alternative once (or none for ? and *), up to
// maxWalkForms; nil when a !(…) group makes them unbounded.
func extglobNames(s string) []string {
	i := strings.IndexFunc(s, func(r rune) bool { return strings.ContainsRune("@!+*?", r) })
	for i >= 0 && (i+1 >= len(s) || s[i+1] != '(') {
		j := strings.IndexFunc(s[i+1:], func(r rune) bool { return strings.ContainsRune("@!+*?", r) })
		if j < 0 {
			return []string{s}
		}
		i += j + 1
	}
	if i < 0 {
		return []string{s}
	}
	if s[i] == '!' {
		return nil
	}
	depth, end := 0, -1
	var alts []string
	start := i + 2
	for j := i + 1; j < len(s) && end < 0; j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				end = j
				alts = append(alts, s[start:j])
			}
		case '|':
			if depth == 1 {
				alts = append(alts, s[start:j])
				start = j + 1
			}
		}
	}
	if end < 0 {
		return []string{s}
	}
	if s[i] == '?' || s[i] == '*' {
		alts = append(alts, "")
	}
	var out []string
	for _, alt := range alts {
		rest := extglobNames(s[:i] + alt + s[end+1:])
		if rest == nil {
			return nil
		}
		for _, r := range rest {
			out = appendForm(out, r)
		}
	}
	return out
}

// loosenExtglob replaces each bash extglob group, @(…) !(…) +(…) *(…)
// ?(…), with *, a pattern that matches every name the group could; ok
// reports that s had one.
func loosenExtglob(s string) (string, bool) {
	if !strings.Contains(s, "(") {
		return s, false
	}
	var b strings.Builder
	ok := false
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("@!+*?", s[i]) >= 0 && i+1 < len(s) && s[i+1] == '(' {
			depth, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if j < len(s) {
				b.WriteByte('*')
				i, ok = j, true
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), ok
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "" || p == "" {
		return false
	}
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// inProject reports whether every form of the path lies inside the project.
func (pl *places) inProject(r pathRef) bool {
	if !r.known || pl.env.Project == "" {
		return false
	}
	for _, p := range r.both() {
		if !within(p, pl.env.Project) {
			return false
		}
	}
	return true
}

// posixClasses are the bracket classes bash knows, as ranges Go's
// filepath.Match reads.
var posixClasses = map[string]string{
	"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
	"xdigit": "0-9a-fA-F", "space": " \t\n\r\v\f", "blank": " \t", "punct": "!-/:-@\\[-`{-~",
	"print": " -~", "graph": "!-~", "word": "a-zA-Z0-9_", "cntrl": "\x00-\x1f",
}

// shellGlobMatch is filepath.Match for a bash glob: [!x] negates like [^x] and
// [[:alpha:]] is a class. A pattern it cannot read matches (fail closed).
func shellGlobMatch(pattern, name string) bool {
	var b strings.Builder
	in := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			b.WriteByte(c)
			i++
			b.WriteByte(pattern[i])
		case !in && c == '[':
			in = true
			b.WriteByte(c)
			if i+1 < len(pattern) && pattern[i+1] == '!' {
				b.WriteByte('^')
				i++
			}
		case in && c == '[' && i+1 < len(pattern) && pattern[i+1] == ':':
			end := strings.Index(pattern[i+2:], ":]")
			if end < 0 {
				return true
			}
			cls, ok := posixClasses[pattern[i+2:i+2+end]]
			if !ok {
				return true
			}
			b.WriteString(cls)
			i += end + 3
		case in && c == ']':
			in = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	ok, err := filepath.Match(b.String(), name)
	if err != nil {
		// bash reads an unclosed [ as itself: docs/[draft.md is a name
		return pattern == name
	}
	return ok
}

// globMayMatch reports whether a glob path could name the literal path lit
// or something under it.
func globMayMatch(pattern, lit string) bool {
	if ok, _ := doublestar.Match(pattern, lit); ok {
		return true
	}
	// the pattern is a prefix of the literal: ~/.s*/x matches ~/.ssh/x
	pp := strings.Split(pattern, "/")
	lp := strings.Split(lit, "/")
	for i := 0; i < len(pp) && i < len(lp); i++ {
		if !shellGlobMatch(pp[i], lp[i]) {
			return false
		}
	}
	return true
}

// braceExpand expands bash brace alternatives {a,b} (up to 64 results).
func braceExpand(s string) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return []string{s}
	}
	depth, end := 0, -1
	for i := open; i < len(s) && end < 0; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				end = i
			}
		}
	}
	if end < 0 || !strings.Contains(s[open:end], ",") {
		return []string{s}
	}
	var alts []string
	depth, start := 0, open+1
	for i := open + 1; i < end; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				alts = append(alts, s[start:i])
				start = i + 1
			}
		}
	}
	alts = append(alts, s[start:end])
	var out []string
	for _, alt := range alts {
		for _, e := range braceExpand(s[:open] + alt + s[end+1:]) {
			if len(out) >= 64 {
				return out
			}
			out = append(out, e)
		}
	}
	return out
}

// markTainted records a file written from a secret in this call, so that
// sending it on later in the same call is exfiltration too.
func (pl *places) markTainted(r pathRef) {
	if pl.tainted == nil {
		pl.tainted = map[string]bool{}
	}
	for _, p := range r.both() {
		pl.tainted[p] = true
	}
}

// markFetched records a file a downloader wrote: running it later in the
// same call is download-then-execute.
func (pl *places) markFetched(r pathRef) {
	if !r.known {
		return
	}
	if pl.fetched == nil {
		pl.fetched = map[string]bool{}
	}
	for _, p := range r.both() {
		pl.fetched[p] = true
	}
}

// runsFetched reports a script or program path written by a downloader
// earlier in the call; it makes f human-only.
func (pl *places) runsFetched(f *rfact, w word, sc *scope) {
	if pl.fetched == nil || w.dyn {
		return
	}
	r := pl.resolvePath(w.val, sc.cwd, false)
	for _, p := range r.both() {
		if pl.fetched[p] {
			f.human = reason("human.download-exec", "runs a file downloaded in the same command")
		}
	}
}

// Bounds of globMatches: past them the glob is judged by its pattern.
const (
	maxGlobMatches = 256
	maxGlobDirs    = 32
	maxGlobEntries = 4096
)

// globMatches expands an absolute glob on disk, for a reader to be judged
// by the files it will read rather than by every secret name the pattern
// could match. It errs towards more matches: * matches dotfiles (dotglob
// may be on in the agent's shell), . and .. too for a .pattern, and case
// is ignored (nocaseglob). ok is false when the pattern cannot be expanded
// cheaply and surely: **, extglob, escapes, an unreadable directory, no
// match at all (the directory may not be the one the command sees) or more
// than maxGlobMatches.
func globMatches(pattern string) (matches []string, ok bool) {
	if strings.Contains(pattern, "**") || strings.ContainsAny(pattern, `\(`) || !filepath.IsAbs(pattern) {
		return nil, false
	}
	cur := []string{"/"}
	dirs, entries := 0, 0
	for _, seg := range strings.Split(pattern[1:], "/") {
		if !hasGlob(seg) {
			for i := range cur {
				cur[i] = filepath.Join(cur[i], seg)
			}
			continue
		}
		lseg := strings.ToLower(seg)
		var next []string
		for _, d := range cur {
			if dirs++; dirs > maxGlobDirs {
				return nil, false
			}
			ents, err := os.ReadDir(d)
			if err != nil {
				if os.IsNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
					continue
				}
				return nil, false
			}
			if entries += len(ents); entries > maxGlobEntries {
				return nil, false
			}
			names := make([]string, 0, len(ents)+2)
			if seg[0] == '.' {
				names = append(names, ".", "..")
			}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			for _, n := range names {
				if shellGlobMatch(lseg, strings.ToLower(n)) {
					if next = append(next, filepath.Join(d, n)); len(next) > maxGlobMatches {
						return nil, false
					}
				}
			}
		}
		cur = next
	}
	for _, m := range cur {
		if _, err := os.Lstat(m); err == nil {
			matches = append(matches, m)
		}
	}
	return matches, len(matches) > 0
}

// hardLinkedTwin is the secret or perm-peer file a file with more than one
// hard link is the same file as (notes.txt made by ln .env notes.txt, ln
// ~/.ssh/id_rsa k, ln ~/.local/state/perm-peer/x.db n.db): a secret name
// beside it, a home secret file or one of perm-peer's own. It is p itself
// when there is none.
func (pl *places) hardLinkedTwin(p string, fi os.FileInfo) string {
	var cands []string
	if ents, err := os.ReadDir(filepath.Dir(p)); err == nil && len(ents) <= 4000 {
		for _, e := range ents {
			if e.Type().IsRegular() && isSensitiveName(strings.ToLower(e.Name())) {
				cands = append(cands, filepath.Join(filepath.Dir(p), e.Name()))
			}
		}
	}
	if h := pl.env.Home; h != "" {
		if ents, err := os.ReadDir(filepath.Join(h, ".ssh")); err == nil && len(ents) <= 4000 {
			for _, e := range ents {
				cands = append(cands, filepath.Join(h, ".ssh", e.Name()))
			}
		}
		for _, s := range sensitiveHome {
			cands = append(cands, filepath.Join(h, s))
		}
	}
	cands = append(cands, pl.protected().twins()...)
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && c != p && os.SameFile(fi, st) {
			return c
		}
	}
	return p
}
