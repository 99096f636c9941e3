package gate

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// A recursive search prints the matching lines of every file it reads, so
// whether its output carries a secret depends on what its scope holds, not
// on how its pattern looks: grep -r 'T=' . prints SECRET=… from .env, rg
// MII prints a key's body. The gate walks the scope (bounded, as for scp
// -r) the way the tool does, and asks a human when it reaches a sensitive
// file whose lines the search can print (SPEC 5.4, 5.5).

// maxSecretFiles and maxSecretSize bound what the gate reads of the
// sensitive files in a search's scope; past them a file counts as matching.
const (
	maxSecretFiles = 32
	maxSecretSize  = 1 << 20
)

// walkOf is how the search tool goes through a directory: grep -r and ack
// read hidden files, rg and ag only with --hidden (rg -uu); grep -R, rg
// -L and --follow go where links point. rg and ag also skip .gitignored
// files, which the walk does not model: it counts them (fail closed).
func (s searchCmd) walkOf() dirWalk {
	return dirWalk{follow: s.follow, hidden: !s.skipsHidden || s.hidden || s.unrestr >= 2}
}

// includes reports whether a file named base is one the search's include
// globs let in (grep --include, rg -g/--iglob; a "!" glob excludes, which
// is not trusted to keep anything out). A glob with a "/" is matched
// against a path the walk does not rebuild: it lets everything in.
func (s searchCmd) includes(base string) bool {
	if s.reGlobs {
		return true // ag -G is a regexp, ag -g lists names
	}
	any := false
	for _, g := range s.globs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		any = true
		g = strings.TrimPrefix(g, "**/")
		if strings.Contains(g, "/") || shellGlobMatch(g, base) || shellGlobMatch(strings.ToLower(g), strings.ToLower(base)) {
			return true
		}
	}
	return !any
}

// searchRoots are the directories and files a recursive search starts
// from, resolved; nil when one is only known at run time.
func (s searchCmd) searchRoots(a *analyzer, sc *scope) []pathRef {
	if len(s.paths) == 0 {
		return []pathRef{a.resolvePath(".", sc.cwd, false)}
	}
	roots := make([]pathRef, 0, len(s.paths))
	for _, w := range s.paths {
		if w.dyn {
			return nil
		}
		roots = append(roots, a.resolvePath(w.val, sc.cwd, false))
	}
	return roots
}

// scopeCheck is what a walk of a search's roots found: why a human must
// see it (code, why), or that the roots are on disk and hold no
// sensitive file the tool reaches (clean).
type scopeCheck struct {
	code, why string
	clean     bool
}

// checkScope walks a recursive search's roots the way the tool does. The
// search prints lines of a sensitive file it reaches unless its patterns
// are fixed strings that occur in none of them; a scope too large to walk
// may hold one. Names and counts (-l, -c) print no line: the pattern
// heuristic decides those (huntsSecrets).
func (s searchCmd) checkScope(a *analyzer, roots []pathRef) scopeCheck {
	how := s.walkOf()
	var files []string
	many, clean := false, len(roots) > 0
	for _, r := range roots {
		if fi, err := os.Stat(r.real); !r.known || r.glob || err != nil || !fi.IsDir() && (!fi.Mode().IsRegular() || a.sensitive(r)) {
			clean = false // not on disk (yet), or a file the read facts decide
			continue
		}
		capped := how.secrets(&a.places, r, func(real string) bool {
			if s.includes(path.Base(real)) {
				files = append(files, real)
			}
			many = len(files) > maxSecretFiles
			return !many
		})
		if capped && len(files) == 0 && !s.namesOnly && !s.files {
			return scopeCheck{code: "human.unchecked-dir", why: "a recursive search of a directory too large to check for secrets such as .env"}
		}
		clean = clean && !capped
	}
	switch {
	case len(files) == 0:
		return scopeCheck{clean: clean}
	case s.namesOnly || s.files:
		return scopeCheck{}
	case many:
		return scopeCheck{code: "human.sensitive-read", why: "a recursive search of a directory that holds many sensitive files such as " + clip(files[0], 120)}
	}
	if len(s.patterns) == 0 && !s.fromFile {
		return scopeCheck{code: "human.sensitive-read", why: "reads every file of a directory that holds " + clip(files[0], 120)}
	}
	if f := s.printedFrom(files); f != "" {
		return scopeCheck{code: "human.sensitive-read", why: "a recursive search that reads " + clip(f, 120) + " with a pattern that can match its lines"}
	}
	return scopeCheck{}
}

// printedFrom returns the first of files the search can print a line of,
// or "" when every pattern is a fixed string (no regexp operator in it, or
// -F) that occurs in none of them, case-folded when the search ignores
// case, and the match is not inverted nor every line printed (rg
// --passthru). A file too large or unreadable
// counts as holding every string.
func (s searchCmd) printedFrom(files []string) string {
	if s.invert || s.everyLine || s.fromFile || len(s.patterns) == 0 {
		return files[0]
	}
	var res []*regexp.Regexp
	for _, p := range s.patterns {
		if p.dyn {
			return files[0]
		}
		for _, line := range strings.Split(p.val, "\n") {
			if line == "" || s.dialect != fixedStrings && strings.ContainsAny(line, `\.[]*^$+?(){}|`) {
				return files[0]
			}
			fold := ""
			if s.ignoreCase || s.smartCase && strings.ToLower(line) == line {
				fold = "(?i)"
			}
			res = append(res, regexp.MustCompile(fold+regexp.QuoteMeta(line)))
		}
	}
	for _, f := range files {
		data, ok := readBounded(f)
		if !ok {
			return f
		}
		for _, re := range res {
			if re.Match(data) {
				return f
			}
		}
	}
	return ""
}

// readBounded reads a file of at most maxSecretSize bytes.
func readBounded(name string) ([]byte, bool) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSecretSize+1))
	return data, err == nil && len(data) <= maxSecretSize
}

// searchScopeFacts adds a human-only read when the walk of a recursive
// search's roots finds a sensitive file it can print; it reports that
// the roots hold none (see searchesOnlyFiles).
func searchScopeFacts(a *analyzer, s searchCmd, roots []pathRef, idx int) (clean bool) {
	c := s.checkScope(a, roots)
	if c.code != "" {
		a.add(&rfact{kind: protocol.FactRead, path: roots[0], parent: idx, human: reason(c.code, c.why)})
	}
	return c.clean
}

// toolSearch reads a search tool's input (Claude's Grep, Gemini's
// search_file_content and grep_search, …) as a recursive search. What the
// host's implementation skips is not known: it is taken to read hidden
// files, follow links and ignore case (fail closed). Only an explicit
// output_mode of files_with_matches or count prints no line.
func toolSearch(in map[string]any) searchCmd {
	s := searchCmd{dialect: rustRE, ignoreCase: true, follow: true, recursive: true}
	if p := firstString(in, "pattern", "query", "regex"); p != "" {
		s.patterns = []word{{val: p}}
	}
	switch firstString(in, "output_mode", "outputMode") {
	case "files_with_matches", "count":
		s.namesOnly = true
	}
	s.globs = inputGlobs(in)
	return s
}

// inputGlobs are a tool input's include globs, given as a string or a list.
func inputGlobs(in map[string]any) []string {
	var globs []string
	for _, k := range []string{"glob", "include", "includes", "include_pattern", "file_pattern", "filePattern", "includePattern"} {
		switch v := in[k].(type) {
		case string:
			globs = append(globs, v)
		case []any:
			for _, g := range v {
				if g, ok := g.(string); ok {
					globs = append(globs, g)
				}
			}
		}
	}
	return globs
}

// manyFiles reports a read tool's input that reads every file below a
// directory: read_many_files' list of paths and include globs. Other read
// tools given a directory fail or list it.
func manyFiles(in map[string]any) bool {
	_, list := in["paths"].([]any)
	return list || in["include"] != nil
}

// toolScopeFacts adds a human-only read when a search tool's directory
// scope holds a sensitive file whose lines it can print, or a read tool
// given a directory (Gemini's read_many_files {"paths": ["."], "include":
// ["**/*"]}) reaches one: it prints whole files.
func toolScopeFacts(a *analyzer, read bool, in map[string]any, ps []pathRef) {
	s := toolSearch(in)
	if read {
		// every line of every file: no pattern to clear it
		s.patterns, s.namesOnly = nil, false
	}
	roots := make([]pathRef, 0, len(ps))
	for _, p := range ps {
		if p.known && (p.glob || hasGlob(p.abs)) {
			// src/**/*.go: the glob reaches no further than its fixed directory
			p = a.resolvePath(globRoot(p.abs), "", false)
		}
		roots = append(roots, p)
	}
	searchScopeFacts(a, s, roots, -1)
}

// toolRead adds the read fact of one path of a read, search or listing
// tool. A glob of a search or read_many_files (src/**, *.json, docs/*)
// reads a whole tree, no more than its fixed directory: it is sensitive
// only when its name aims at secrets (**/.env, *.pem) or where it points
// is (~/.ssh/*); the walk of the directory finds the secrets on disk.
func toolRead(a *analyzer, p pathRef, class toolClass, many bool) {
	// a tool's paths are read as literal names, but these tools glob them
	if !p.known || !hasGlob(p.abs) && !p.glob || class == tList || class == tRead && !many {
		a.readFact(p, -1, class == tList)
		return
	}
	f := a.facts[a.readFact(p, -1, true)]
	f.listOnly = false
	if toolGlobSensitive(a, p) {
		f.safe, f.open = nil, nil
		f.human = reason("human.sensitive-read", "reads files a glob aims at secrets or in a sensitive directory")
	}
}

// toolGlobSensitive reports a tool's glob that aims at secret names or
// whose fixed directory is sensitive: a broad last element (*, **, *.json)
// is the directory above it.
func toolGlobSensitive(a *analyzer, r pathRef) bool {
	for r.known {
		base := filepath.Base(r.abs)
		if aimsAtSecret(strings.ToLower(base)) || !hasGlob(base) && !strings.Contains(base, "{") || filepath.Dir(r.abs) == r.abs {
			break
		}
		r = a.resolvePath(filepath.Dir(r.abs), "", false)
	}
	return a.sensitive(r)
}

// globRoot is the directory of a glob path before its first element with
// a glob (/p/src/**/*.go: /p/src).
func globRoot(p string) string {
	parts := strings.Split(p, "/")
	for i, e := range parts {
		if hasGlob(e) || strings.Contains(e, "{") {
			if d := strings.Join(parts[:i], "/"); d != "" {
				return d
			}
			return "/"
		}
	}
	return p
}
