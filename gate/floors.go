// floors.go finds the places whose deletion or overwrite is a hard floor
// in every mode (SPEC §5.2): the root, the home and its top directories,
// system directories, disk devices, and globs that may reach them.

package gate

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// diskDevice reports a raw disk or memory device: writing it destroys data.
func diskDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	n := p[len("/dev/"):]
	for _, d := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "mapper/", "md", "dm-", "loop", "mem", "kmem", "port"} {
		if strings.HasPrefix(n, d) {
			return true
		}
	}
	return false
}

// harmlessDevice is a write target that is not a file write.
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/pts/")
}

// systemTop are top-level directories whose loss breaks the machine; their
// direct children are floors too.
var systemTop = map[string]bool{
	"usr": true, "etc": true, "bin": true, "sbin": true, "lib": true, "lib32": true, "lib64": true, "boot": true,
	"var": true, "opt": true, "system": true, "library": true, "applications": true, "private": true, "dev": true,
	"proc": true, "sys": true, "root": true, "snap": true,
}

// floorTarget reports whether recursively deleting p is a hard floor: /,
// top-level directories, system directories one level down, the home
// directory, the project and every ancestor of either.
func (pl *places) floorTarget(p string) bool {
	if p == "" {
		return false
	}
	if p == "/" {
		return true
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(parts) == 1 {
		return true
	}
	if len(parts) == 2 && systemTop[strings.ToLower(parts[0])] {
		return true
	}
	for _, keep := range []string{pl.env.Home, pl.env.Project} {
		if keep != "" && within(keep, p) {
			return true
		}
	}
	return false
}

// floorGlob is the form of a glob (lexical, or through the links its
// directories are) whose deletion could remove a floor target: /*, ~/*,
// /u*, project/*, /*/*; "" when none.
func (pl *places) floorGlob(r pathRef) string {
	for _, p := range r.both() {
		if dir := filepath.Dir(p); !hasGlob(dir) && pl.floorTarget(dir) && broadGlob(filepath.Base(p)) {
			return p
		}
		if strings.Count(p, "/") == 1 {
			return p
		}
		for _, keep := range []string{pl.env.Home, pl.env.Project} {
			for k := keep; k != "" && k != "/"; k = filepath.Dir(k) {
				if ok, _ := doublestar.Match(p, k); ok {
					return p
				}
			}
		}
	}
	return ""
}

// homeDirs are directories most home directories hold, whose loss is
// the loss of the user's files or setup.
var homeDirs = []string{"Desktop", "Documents", "Downloads", "Music", "Pictures", "Public", "Templates", "Videos",
	"snap", ".config", ".cache", ".local", ".ssh", ".gnupg", ".aws", ".kube", ".docker", ".mozilla"}

// homeDirGlob says which well-known home directory a glob directly in the
// home directory matches (rm -rf ~/D* deletes ~/Documents), lexically or
// through the links its directories are, as "P, which matches ~/D"; ""
// when none. A name starting with a dot is matched only by a pattern
// starting with one, as bash globs do by default.
func (pl *places) homeDirGlob(r pathRef) string {
	home := pl.env.Home
	if home == "" || home == "/" {
		return ""
	}
	for _, p := range r.both() {
		if filepath.Dir(p) != filepath.Clean(home) {
			continue
		}
		pat := filepath.Base(p)
		for _, d := range homeDirs {
			if strings.HasPrefix(d, ".") != strings.HasPrefix(pat, ".") {
				continue
			}
			if ok, _ := doublestar.Match(pat, d); ok {
				return p + ", which matches ~/" + d
			}
		}
	}
	return ""
}

// broadGlob reports whether a glob name matches about anything (*, .*, ?*,
// [a-z]*, *.*): in a floor directory it is that directory's contents. A
// name with a literal part (*.log, test_*) removes some files, not the
// directory, so rm -f *.log in the project root is a write, not a floor.
func broadGlob(name string) bool {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '*', '?', '.':
		case '[':
			end := strings.IndexByte(name[i+1:], ']')
			if end < 0 {
				return false
			}
			i += end + 1
		default:
			return false
		}
	}
	return true
}
