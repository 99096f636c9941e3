package scripts

import "strings"

// Find is a find command line as find reads it: its starting points, the
// actions of its expression, and what its tests select. Words are read
// by index through a function, so a caller's word list need not be copied.
type Find struct {
	// Roots is the index of the first starting point and Expr that of
	// the expression's first word: the starting points are the words
	// [Roots, Expr), none meaning ".". Before Roots come find's options
	// -H -L -P -O -D.
	Roots, Expr int
	Actions     []FindAction // in order
	// Filtered: the expression selects files by name, path, age or size
	// (not -name '*'), so -delete removes a selection, not the whole tree
	Filtered bool
	// Follows: -L or -follow, so the files it lists may be links out of
	// the tree
	Follows bool
	// Deletes: -delete is one of its words, wherever it is (in an
	// -exec's command too)
	Deletes bool
}

// FindKind is what a find action does.
type FindKind uint8

const (
	FindDelete    FindKind = iota + 1 // -delete
	FindNamesFrom                     // -files0-from FILE: starting points read from FILE
	FindWrite                         // -fprint FILE, -fprint0, -fprintf, -fls: writes FILE
	FindExec                          // -exec CMD ;, -execdir, -ok, -okdir: runs CMD
)

// FindAction is one action of a find expression.
type FindAction struct {
	Kind FindKind
	At   int // the index of the action's word
	// Arg is the index of its value (-1: missing) for FindNamesFrom and
	// FindWrite; for FindExec the command is the words (At, Arg), Arg
	// being the index of its ; or + (or the word count when it has none).
	Arg int
	// Asks: -ok and -okdir ask a person before each run
	Asks bool
}

// ReadFind reads find's n words, word(i) being the i-th after "find".
// Every word of the expression is looked at, a test's value too: find .
// -name -delete reads as a -delete (stricter, never laxer).
//
//	find -L src -name '*.go' -delete  → Roots 1, Expr 2, [Delete at 4], Filtered, Follows
//	find . -exec rm {} +              → [Exec at 1, Arg 4]
func ReadFind(n int, word func(i int) string) Find {
	var f Find
	i := 0
	for i < n && findOption(word(i)) {
		if word(i) == "-D" {
			i++ // -D DEBUGOPTS
		}
		i++
	}
	i = min(i, n) // a -D with no value
	f.Roots = i
	for ; i < n; i++ {
		if v := word(i); strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ")" || v == "," {
			break
		}
	}
	f.Expr = i
	for ; i < n; i++ {
		a, ok := findAction(n, word, i)
		if ok {
			f.Actions = append(f.Actions, a)
		}
		if a.Kind == FindExec {
			i = a.Arg // the command's words are not the expression's
		}
	}
	for i := 0; i < n; i++ {
		v := word(i)
		f.Follows = f.Follows || v == "-L" || v == "-follow"
		f.Deletes = f.Deletes || v == "-delete"
		f.Filtered = f.Filtered || findFilter(n, word, i)
	}
	return f
}

// findOption says v is one of find's options before its starting points.
func findOption(v string) bool {
	return v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") || v == "-D"
}

// findAction reads the action at word i, if it is one.
func findAction(n int, word func(int) string, i int) (FindAction, bool) {
	a := FindAction{At: i, Arg: -1}
	if i+1 < n {
		a.Arg = i + 1
	}
	switch v := word(i); v {
	case "-delete":
		a.Kind, a.Arg = FindDelete, -1
	case "-files0-from":
		a.Kind = FindNamesFrom
	case "-fprint", "-fprint0", "-fprintf", "-fls":
		a.Kind = FindWrite
	case "-exec", "-execdir", "-ok", "-okdir":
		a.Kind, a.Asks = FindExec, v == "-ok" || v == "-okdir"
		for a.Arg = i + 1; a.Arg < n && word(a.Arg) != ";" && word(a.Arg) != "+"; a.Arg++ {
		}
	default:
		return a, false
	}
	return a, true
}

// findFilter says word i is a test that selects files by name, path, age
// or size; one whose value is *, ** or */* selects everything.
func findFilter(n int, word func(int) string, i int) bool {
	if i+1 < n {
		if next := word(i + 1); next == "*" || next == "**" || next == "*/*" {
			return false // -name '*' selects everything
		}
	}
	switch word(i) {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-newer", "-empty",
		"-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-perm", "-user", "-group", "-links", "-inum",
		"-samefile", "-lname", "-ilname":
		return true
	}
	return false
}
