// Package scripts reads the languages programs take in their arguments or
// on stdin — sed scripts, awk programs, find expressions, tar's letters,
// sqlite3/psql/mysql client commands, ex (vi, vim, ed) and gdb commands —
// and says what a text in them does beyond reading its input and
// printing: the files it reads, writes or deletes and the commands it
// runs, by name as written. It knows nothing of the gate's state (variables, the working
// directory, sensitive paths): package gate turns the names into facts.
//
// Every reader is pure and total: it never panics, and a text it cannot
// read is reported not safe, so the gate asks (fail closed).
package scripts

// Effects are what a script does beyond reading its input and printing,
// each as the script spells it.
type Effects struct {
	Runs   []string // commands it runs: sed e CMD, awk system("CMD")
	Writes []string // files it writes: sed w FILE, awk print > "FILE"
	Reads  []string // files it reads: sed r FILE, awk getline < "FILE"
}

// Step is one thing a script does, for languages whose commands the
// caller must meet in order (a database shell's meta-commands).
type Step struct {
	Kind StepKind
	Arg  string // the command, or the file, as the script spells it
}

// StepKind is what a Step does.
type StepKind uint8

const (
	Run   StepKind = iota + 1 // runs the command Arg
	Write                     // writes the file Arg
	Read                      // reads the file Arg
)
