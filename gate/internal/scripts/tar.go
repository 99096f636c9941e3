package scripts

import (
	"slices"
	"strings"
)

// Tar is a tar command line as tar reads it, in all three styles: old
// (tar czf A.tgz dir: the letters' values follow the bundle in order),
// short (tar -czf A.tgz dir) and long (tar --file=A.tgz dir).
type Tar struct {
	Letters  string     // the short option letters given, in order
	Values   []TarValue // the values of the options that take one
	Operands []int      // the operands' indexes
	// Runs are the commands options run (--to-command, --use-compress-
	// program, --checkpoint-action=exec=…, …), each as written
	Runs []string
	// ToStdout: the archive goes to stdout (no -f, or -f -)
	ToStdout bool
	// Unknown are the long options tar does not have (--zz)
	Unknown []string
}

// TarValue is the value of one of tar's options.
type TarValue struct {
	// Letter is the option's short letter (f C T X I F b K N g L V H),
	// also for its long spellings (--file is 'f', --listed-incremental
	// 'g'); '!' is --exclude, whose value is a pattern, and '>' is
	// --index-file and --volno-file, files tar writes in every mode
	Letter byte
	At     int // the index of the word holding it
	// Attached: the value is the end of word At (-fA, --file=A), Val;
	// otherwise it is the whole word At
	Attached bool
	Val      string
}

// tarValueLetters are tar's short options that take a value.
const tarValueLetters = "fCTXIFbKNgLVH"

// tarLetters are every short option of GNU tar (1.35) and bsdtar: a letter
// outside them is one the gate does not know (tar -tQf a.tar).
const tarLetters = "AcdrtuxabBCfFgGhHiIjJkKlLmMnNoOpPqRsSTUvVwWXyzZ"

// tarLongNames are tar's long options that take a value, an exact name
// before the longer ones it abbreviates (--file before --files-from),
// with their letters.
var tarLongNames = []struct {
	name   string
	letter byte
}{{"file", 'f'}, {"files-from", 'T'}, {"directory", 'C'}, {"exclude", '!'}, {"exclude-from", 'X'},
	{"use-compress-program", 'I'}, {"info-script", 'F'}, {"new-volume-script", 'F'},
	{"listed-incremental", 'g'}, {"index-file", '>'}, {"volno-file", '>'}}

// tarOptions are GNU tar's other long options (1.35) and bsdtar's (macOS's
// tar, libarchive 3.7), for telling an
// option it does not have (tar -tf a.tar --zz): read only to say so.
var tarOptions = strings.Fields(`append catenate concatenate compare diff create delete extract get list test-label update
check-device no-check-device incremental hole-detection ignore-failed-read level no-seek seek occurrence restrict
sparse-version sparse keep-old-files keep-newer-files keep-directory-symlink no-overwrite-dir one-top-level overwrite
overwrite-dir recursive-unlink remove-files skip-old-files unlink-first verify ignore-command-error
no-ignore-command-error to-stdout to-command atime-preserve clamp-mtime delay-directory-restore group group-map mode
mtime no-delay-directory-restore no-same-owner no-same-permissions numeric-owner owner owner-map preserve-permissions
same-permissions same-owner sort preserve-order same-order preserve acls no-acls selinux no-selinux xattrs no-xattrs
xattrs-exclude xattrs-include force-local multi-volume tape-length rmt-command rsh-command blocking-factor
read-full-records ignore-zeros record-size format old-archive portability pax-option posix label auto-compress
bzip2 xz lzip lzma lzop no-auto-compress zstd gzip gunzip ungzip compress uncompress add-file backup
exclude-backups exclude-caches exclude-caches-all exclude-caches-under exclude-ignore exclude-ignore-recursive
exclude-tag exclude-tag-all exclude-tag-under exclude-vcs exclude-vcs-ignores null no-null unquote no-unquote
verbatim-files-from no-verbatim-files-from no-recursion recursion suffix anchored no-anchored ignore-case
no-ignore-case wildcards no-wildcards wildcards-match-slash no-wildcards-match-slash dereference hard-dereference
starting-file newer after-date newer-mtime one-file-system absolute-names strip-components transform xform
checkpoint checkpoint-action full-time check-links no-quote-chars quote-chars quoting-style block-number
show-defaults show-omitted-dirs show-snapshot-field-ranges show-stored-names show-transformed-names totals utc
verbose warning interactive confirmation help usage version
include chroot options uid gid uname gname fast-read nodump disable-copyfile mac-metadata no-mac-metadata
passphrase read-sparse no-read-sparse safe-writes no-safe-writes lrzip lz4 grzip b64encode uuencode insecure
fflags no-fflags newer-than newer-mtime-than older older-than older-mtime older-mtime-than no-xattrs
hfsCompression nopreserveHFSCompression clear-nochange-fflags`)

// tarCommands are tar's long options whose value is a command tar runs.
var tarCommands = []string{"to-command", "use-compress-program", "checkpoint-action", "info-script", "new-volume-script", "rsh-command", "rmt-command"}

// ReadTar reads tar's n words, word(i) being the i-th after "tar" and
// whether it is known only at run time (never read as options).
//
//	tar czf a.tgz src           → Letters czf, Values [f a.tgz], Operands [2]
//	tar -xf a.tar -C out        → Letters xfC, Values [f a.tar, C out]
//	tar cf - . --to-command=sh  → ToStdout, Runs [sh]
func ReadTar(n int, word func(i int) (string, bool)) Tar {
	r := tarReader{n: n, word: word}
	r.read()
	r.t.Letters = string(r.letters)
	for _, l := range r.letters {
		if strings.IndexByte(tarLetters, l) < 0 {
			r.t.Unknown = append(r.t.Unknown, "-"+string(l))
		}
	}
	r.t.Runs = tarRuns(n, word)
	r.t.ToStdout = tarToStdout(n, word, len(r.t.Operands))
	return r.t
}

// tarReader is a position in tar's words and what was read so far.
type tarReader struct {
	n       int
	word    func(int) (string, bool)
	letters []byte
	t       Tar
}

func (r *tarReader) read() {
	for i := 0; i < r.n; i++ {
		v, dyn := r.word(i)
		switch {
		case i == 0 && v != "" && v[0] != '-' && !dyn:
			i = r.oldStyle(v) - 1
		case v == "--":
			for j := i + 1; j < r.n; j++ {
				r.t.Operands = append(r.t.Operands, j)
			}
			return
		case strings.HasPrefix(v, "--"):
			i = r.long(v, i)
		case len(v) > 1 && v[0] == '-' && !dyn:
			i = r.cluster(v, i)
		default:
			r.t.Operands = append(r.t.Operands, i)
		}
	}
}

// oldStyle reads the letter bundle v, the first word: the letters' values
// are the next words, in order. It returns the index of the first word
// after them.
func (r *tarReader) oldStyle(v string) int {
	next := 1
	for j := 0; j < len(v); j++ {
		r.letters = append(r.letters, v[j])
		if strings.IndexByte(tarValueLetters, v[j]) >= 0 && next < r.n {
			r.value(v[j], next, false, "")
			next++
		}
	}
	return next
}

// long reads the long option v, word i; it returns the last word it used.
// As getopt_long does, an exact name is that option (--list, though it
// begins --listed-incremental), else a name abbreviates the one option it
// begins; one that begins several is ambiguous and tar refuses it, one
// that begins none tar lacks: both the gate does not know.
func (r *tarReader) long(v string, i int) int {
	name, val, eq := strings.Cut(v[2:], "=")
	l, ok := tarLongOf(name)
	switch {
	case !ok:
		r.t.Unknown = append(r.t.Unknown, v)
	case l == 0:
	case !eq && i+1 < r.n:
		r.value(l, i+1, false, "")
		return i + 1
	default:
		r.value(l, i, true, val)
	}
	return i
}

// tarLongOf finds the long option name stands for: the letter of one that
// takes a value (0 for one that takes none), false for a name tar does not
// have or one that abbreviates several.
func tarLongOf(name string) (letter byte, ok bool) {
	if name == "" {
		return 0, false
	}
	for _, l := range tarLongNames {
		if name == l.name {
			return l.letter, true
		}
	}
	if slices.Contains(tarOptions, name) {
		return 0, true
	}
	found := map[string]byte{} // the options name begins, each once
	for _, o := range tarOptions {
		if strings.HasPrefix(o, name) {
			found[o] = 0
		}
	}
	for _, l := range tarLongNames {
		if strings.HasPrefix(l.name, name) {
			found[l.name] = l.letter
		}
	}
	for _, l := range found {
		letter = l
	}
	return letter, len(found) == 1
}

// cluster reads the short options of v, word i (-czf A, -fA): the first
// that takes a value ends it. It returns the last word it used.
func (r *tarReader) cluster(v string, i int) int {
	for j := 1; j < len(v); j++ {
		r.letters = append(r.letters, v[j])
		if strings.IndexByte(tarValueLetters, v[j]) < 0 {
			continue
		}
		if v[j+1:] == "" && i+1 < r.n {
			r.value(v[j], i+1, false, "")
			return i + 1
		}
		r.value(v[j], i, true, v[j+1:])
		return i
	}
	return i
}

func (r *tarReader) value(letter byte, at int, attached bool, val string) {
	if !attached {
		val, _ = r.word(at)
	}
	r.t.Values = append(r.t.Values, TarValue{Letter: letter, At: at, Attached: attached, Val: val})
}

// tarRuns are the commands tar's long options run: a name of two letters
// or more abbreviates the first such option it begins, and the value of
// --checkpoint-action=exec=CMD is CMD.
func tarRuns(n int, word func(int) (string, bool)) []string {
	var runs []string
	for i := 0; i < n; i++ {
		v, _ := word(i)
		if !strings.HasPrefix(v, "--") || len(v) <= 4 {
			continue
		}
		name, val, eq := strings.Cut(v[2:], "=")
		if !slices.Contains(tarCommands, name) && slices.Contains(tarOptions, name) {
			continue // an option's exact name is that option (--checkpoint is not --checkpoint-action)
		}
		for _, c := range tarCommands {
			if strings.HasPrefix(c, name) && len(name) >= 2 {
				if !eq && i+1 < n {
					i++
					val, _ = word(i)
				}
				runs = append(runs, strings.TrimPrefix(val, "exec="))
				break
			}
		}
	}
	return runs
}

// tarToStdout says tar writes its archive to stdout: without -f (but with
// operands), or with -f -.
func tarToStdout(n int, word func(int) (string, bool), operands int) bool {
	next := func(i int) bool {
		if i+1 >= n {
			return false
		}
		v, _ := word(i + 1)
		return v == "-"
	}
	for i := 0; i < n; i++ {
		v, _ := word(i)
		if v == "--" {
			break
		}
		switch {
		case v == "-f" || v == "--file":
			return next(i)
		case strings.HasPrefix(v, "--file="):
			return v == "--file=-"
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "f"),
			i == 0 && !strings.HasPrefix(v, "-") && strings.Contains(v, "f"):
			// -czf NAME, or the old style czf NAME: NAME follows the cluster
			return next(i)
		}
	}
	return operands > 0
}

// TarRemote reports an archive name GNU tar opens on another host through
// rsh or ssh ([user@]host:file): a colon before any slash. --force-local
// reads it as a local name.
func TarRemote(name string) bool {
	colon := strings.IndexByte(name, ':')
	return colon > 0 && !strings.Contains(name[:colon], "/")
}
