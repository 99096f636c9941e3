// secretwalk.go walks a directory a command reads as a whole (a recursive
// copy, an archive, a search) for the secrets it holds, bounded in depth
// and entries.

package gate

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// dirSecret reports a directory on disk that holds a sensitive file (a
// bounded walk, without .git and node_modules): packing it into an archive
// or copying it to another host carries the secret along. With follow
// (the tool copies what links point to) a link to a secret counts too.
// capped: the directory is too large to walk it all (a z/.env past 4000
// files in a/ was never seen), so it is not known to be free of secrets.
//
// excl are name patterns the command leaves out (rsync/tar --exclude .env):
// a file or directory whose name matches one is not carried.
func (pl *places) dirSecret(r pathRef, follow bool, excl ...string) (found, capped bool) {
	capped = dirWalk{follow: follow, hidden: true, excl: excl}.secrets(pl, r, func(string) bool {
		found = true
		return false
	})
	return found, capped && !found
}

// dirWalk is how a tool goes through a directory tree.
type dirWalk struct {
	follow bool     // it goes where links point (zip -r, scp -r, grep -R, rg -L)
	hidden bool     // it reads names that start with a dot (rg and ag do not by default)
	excl   []string // name patterns it leaves out
}

// maxWalk bounds the entries a walk of a directory visits.
const maxWalk = 4000

// secrets walks the directory r names, bounded, and calls found with
// the real path of each sensitive file the tool would reach (a link's
// target; a link to a sensitive directory such as ~/.ssh is passed as it
// is), until found returns false. capped: the walk stopped at maxWalk
// entries before it was done.
func (how dirWalk) secrets(pl *places, r pathRef, found func(real string) bool) (capped bool) {
	if !r.known || r.glob {
		return false
	}
	root := r.real
	if root == "" {
		root = r.abs
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return false
	}
	w := walker{how: how, pl: pl, found: found}
	w.walk(root, 0)
	return w.capped
}

// walker is one walk of a dirWalk: the entries it visited (n), whether it
// stopped (found returned false, or the walk reached maxWalk: capped).
type walker struct {
	how          dirWalk
	pl           *places
	found        func(real string) bool
	n            int
	stop, capped bool
}

// walk visits the tree at root the way filepath.WalkDir does (root first,
// then each directory's entries sorted by name, depth first), reading the
// listings through the peer's DirCache.
func (w *walker) walk(root string, depth int) {
	fi, err := os.Lstat(root)
	if err != nil {
		return
	}
	e := dirEnt{name: filepath.Base(root), typ: fi.Mode().Type(), links: linkCount(fi)}
	w.visit(root, root, e, depth)
}

// visit is one entry p of the walk from root.
func (w *walker) visit(root, p string, e dirEnt, depth int) {
	if w.stop {
		return
	}
	if w.n++; w.n > maxWalk {
		w.capped, w.stop = true, true
		return
	}
	top := p == root
	if !top && !w.how.hidden && strings.HasPrefix(e.name, ".") {
		return
	}
	if e.isDir() && !top && (e.name == ".git" || e.name == "node_modules") {
		// of .git only its config may hold a secret: a remote URL's token
		if cfg := filepath.Join(p, "config"); e.name == ".git" && gitConfigHasCreds(cfg) && !w.found(cfg) {
			w.stop = true
		}
		return
	}
	if !top && excludedName(e.name, e.isDir(), w.how.excl) {
		return
	}
	real := p
	if w.how.follow && e.typ&os.ModeSymlink != 0 {
		// zip -r, scp -r, rsync -L and tar -h copy what a link points
		// to: pub/key -> ../.env, pub/ssh -> ~/.ssh
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			return
		}
		if st, err := os.Stat(target); err == nil && st.IsDir() && depth < 3 &&
			!w.pl.sensitive(pathRef{raw: p, abs: p, real: target, known: true}) {
			w.walk(target, depth+1)
			return
		}
		real = target
	}
	if fi, ok := linkedInfo(p, e); ok && e.typ.IsRegular() {
		real = w.pl.hardLinkedTwin(p, fi) // notes.txt made by ln .env notes.txt is .env
	}
	if !e.isDir() {
		if w.pl.sensitive(pathRef{raw: p, abs: p, real: real, known: true}) && !w.found(real) {
			w.stop = true
		}
		return
	}
	ents, err := w.pl.env.Dirs.readDir(p)
	if err != nil {
		return
	}
	for _, c := range ents {
		w.visit(root, joinEnt(p, c), c, depth)
	}
}

// excludedName reports a name matched by one of the exclude patterns. Only
// name patterns count (".env", ".env*", "secrets/" for a directory): a
// pattern with a "/" inside is anchored or matched against a path the
// walk does not rebuild, so it is not trusted to leave anything out.
func excludedName(name string, isDir bool, pats []string) bool {
	for _, p := range pats {
		dirOnly := strings.HasSuffix(p, "/")
		p = strings.TrimSuffix(p, "/")
		if p == "" || strings.Contains(p, "/") || dirOnly && !isDir {
			continue
		}
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}
