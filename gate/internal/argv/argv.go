// Package argv declares what a program's flags are and parses an argument
// list by that declaration, once for every program: --opt=v and --opt v,
// -ov and -o v, bundled short flags (-abc), -- and unique abbreviations of
// long options, so that every spelling of a flag is read the same way.
package argv

import (
	"slices"
	"strings"
	"sync"
)

// Arity is how many values a flag takes.
type Arity uint8

const (
	None  Arity = iota // a switch: -v, --verbose
	Value              // one value: attached (-oV, --out=V) or the next word
	// Optional: a value only when attached, --color=WHEN, and a short
	// spelling takes the rest of its cluster (GNU's "i::": -iSUF, od
	// -w32, git status -uno). A short spelling that takes none while its
	// long one takes an optional value (sort -c, --check[=quiet]) is
	// declared apart, as None.
	Optional
	Two         // two values: jq --arg NAME VALUE (the first may be attached)
	CommandArgs // the words up to ";" or "+": find -exec CMD ARGS ;
	// NextWord: a short flag's value is always a word of its own, the
	// next one not yet taken unless that is a flag (then it has none), and
	// its cluster reads on: bash's set -oe pipefail is -o pipefail -e
	// (getopt would read -o e), set -o -k lists the options and sets -k
	NextWord
	// Digits: a short flag's value is the digits right after it in its
	// cluster, which reads on: perl -l0ne CODE is -l0 -n -e CODE; the
	// flag -0's may be hex, -0x1F
	Digits
)

// Role is what a flag's value is to the program.
type Role uint8

const (
	Opaque    Role = iota // a number, a pattern, a format: no file
	Read                  // a file the program reads: diff --from-file F
	ReadNames             // a file naming the files it reads: wc --files0-from F
	Write                 // a file the program writes: sort -o F
	Run                   // a program it runs: sort --compress-program P
	Source                // a file of code it runs first: bash --rcfile F
	Code                  // code the program runs: python -c CODE, perl -e CODE
	Load                  // a module or library it loads first: perl -MMOD, ruby -rLIB
	Assigns               // a shell variable the builtin sets to what it prints: printf -v NAME
)

// Effect is what using a flag does to the call, whatever its value.
type Effect uint8

const (
	NoEffect Effect = iota
	NotSafe         // the call is no longer known-safe: xxd -r, file -C, date -s
	// ShowsEnv: the call prints the environment of processes (ps e, ps
	// -E): an ask only a person may approve, and its output is a secret
	ShowsEnv
	// ListsHidden: the names it lists include hidden ones, secrets' among
	// them (ls -a, -A)
	ListsHidden
	// PrintsPath: it prints the path of its operand (readlink -f, ls -d)
	PrintsPath
)

// Filter is what a program prints of the lines it reads: what it keeps
// of a listing of names is such a listing (find . | grep src | xargs cat).
type Filter uint8

const (
	NoFilter Filter = iota
	// Lines: a subset of them, of stdin when it has no operand (sort, uniq)
	Lines
	// Ends: the lines at one end of them (head, tail)
	Ends
	// Matches: the lines that match its pattern, its first operand (grep, rg)
	Matches
	// Edits: each of them changed (cut, tr): a name cut from a NAME:COUNT
	// line is still a name
	Edits
	// Copies: all of them as they are (cat): with no word at all, what
	// it prints is its stdin
	Copies
)

// Output is what a reader prints of the files it reads, or what a Data
// program prints that the gate can tell.
type Output uint8

const (
	Contents Output = iota // their contents: cat, head, sort
	// Names: their names and metadata, and the working directory's with
	// no operand: ls, tree, du, stat
	Names
	Counts // a count, a size or a type, never contents: wc, file, df
	// WorkDir: it prints the working directory (pwd), Dirs: the directory
	// part of each operand (dirname): text the gate knows, a place
	// (rm -rf "$(dirname "$PWD")")
	WorkDir
	Dirs
	// Paths: it prints the path of its operand (realpath)
	Paths
	// Echoed: it prints its words (echo), Formatted: its words by the
	// format its first operand is (printf): text the gate knows when they
	// are literal, and a variable that holds a secret among them prints it
	Echoed
	Formatted
	// Status: its word is its exit status (exit, return), Answer: its
	// exit status or output answers a question about its words (test, [,
	// expr): a variable that holds a secret among them leaks a bit of it
	Status
	Answer
)

// Class is what kind of program a declaration is to the gate's code.
type Class uint8

const (
	Other Class = iota
	// Data: the program touches no files, its words are data and never
	// paths (echo, date, uname, test)
	Data
	Disk        // partitions, discards or erases block devices (fdisk, parted)
	Formatter   // creates a file system on a device (mkfs and its twins)
	ShellServer // serves a shell to the network (ttyd)
	Files       // writes, deletes, moves or changes files (rm, cp, chmod, tee, dd)
	Pager       // shows or opens the files it is given: reads, never known-safe (less, nano)
	Installer   // installs what later shells or commits run (direnv allow, pre-commit install)
	// Environ prints the values of the environment variables its operands
	// name, each a name or a format's $NAME (all of them with none):
	// printenv, envsubst
	Environ
	// Builtin: a shell builtin that changes the shell's own state (its
	// directory, aliases, options, traps, history, variables): package
	// gate's builtins.go reads its words, the one closed switch over them
	Builtin
	// Sender: it sends the files it names to a peer who holds a code it
	// prints, a directory whole (croc send, wormhole send)
	Sender
)

// State is what a shell builtin does to the shell's own variables or
// directory that its flags do not say; package gate's builtins.go and
// assign.go read it.
type State uint8

const (
	NoState State = iota
	// HomeDir: it changes directory to its operand, to $HOME without one (cd)
	HomeDir
	// ReadsLine: its operands are variables it sets to the fields of one
	// line of its input (read NAME…)
	ReadsLine
	// SetsVars: its operands are variables it sets (getopts OPTSTRING
	// NAME, and ReadsLines's)
	SetsVars
	// UnsetsVars: its words name variables, whose subscripts it evaluates
	// (unset 'a[$(cmd)]')
	UnsetsVars
	// TestsVars: the word after its -v operator names a variable, whose
	// subscript it evaluates (test -v 'a[$(cmd)]')
	TestsVars
	// DefinesCode: its words are shell code the shell runs later, which
	// may set any variable (trap CODE SIG, alias NAME=CODE)
	DefinesCode
	// ReadsLines: its operand is an array it sets to the lines of its
	// input (mapfile ARRAY, readarray)
	ReadsLines
	// MovesArgs: it moves or replaces the positional parameters, $1 …
	// (shift, set -- a b)
	MovesArgs
)

// Unknown is what a flag the declaration lacks makes of a call.
type Unknown uint8

const (
	Ask Unknown = iota // the call is not known-safe (SPEC §5.1)
	// Ignore: the flags are not declared yet, and the program is never
	// known-safe whatever its flags (rm, dd, mkfs, less): an unknown one
	// changes no answer (TestIgnoredNeverSafe)
	Ignore
	// Words: the words are the program's data, not flags it acts on (echo
	// -x prints -x, test -nt compares, exit 1): an undeclared one is data
	Words
	// Skip: the declaration names only the options that take a value
	// (a wrapper's: sudo -u USER CMD); any other is a switch, read on in
	// its cluster (sudo -Eu root: -E, then -u's value), reported by Parse
	// and never by FirstUnknown
	Skip
	// ByHook: the entry's Hook reads the flags in a language of the
	// program's own (tar's, in old, short and long style: package
	// scripts' ReadTar) and asks about a long option it lacks itself;
	// FirstUnknown does not report (gate's TestByHookAsksUnknown)
	ByHook
)

// Sets is what a flag sets in its hook's reading of a call; each family
// of hooks declares its own values (argv only carries them).
type Sets uint8

// Flag is one flag in all its spellings: synonyms, so a prefix matching
// two of them (--col for --color and --colour) is no ambiguity. A name of
// one letter without a dash is a BSD-style letter (ps e): found in an
// operand word, which stays an operand, since a program's dashless
// letters are not all declared.
type Flag struct {
	Names  string // every spelling, space-separated: "-o --output"
	Arity  Arity
	Role   Role
	Effect Effect
	// Sets is what the flag sets in the reading of its program's hook,
	// one of the values the hook's family declares (cmds.Search's for the
	// searches: a pattern, recursion, hidden files …), 0 for nothing:
	// every spelling of the flag sets the same.
	Sets Sets
	// Ends: the flags end after it and its value, the words after it
	// are operands: python -c CODE ARGS, -m MOD ARGS
	Ends bool
	// Each: Names lists several flags, one a word, the spellings of one
	// joined by "|" ("-q --quiet|--silent"), each with this Arity, Role
	// and Effect. A table writes its flags so; they are told apart when
	// the command is first parsed, not when the table is built at start-up.
	Each bool
}

// Command is what the gate knows about one program's arguments.
type Command struct {
	Name  string
	Flags []Flag
	// Abbrev: unique prefixes of long options are accepted (GNU getopt)
	Abbrev bool
	// Numeric: -NUM is a flag (head -5, tail -20)
	Numeric bool
	// OneDash: every flag is one word with one dash (find -name, -print),
	// never a cluster of letters
	OneDash bool
	// GoFlags: the flags are Go's flag package's (go build -o=bin,
	// --toolexec PROG): one or two dashes and a name, never a cluster;
	// the value after "=" or the next word; a switch may be given one
	// (-v=true). "--" ends nothing: go passes the words after it to what
	// it builds or tests, which may take go test's flags as its own, so
	// the gate reads on.
	GoFlags bool
	// StopAtOperand: the first operand ends the flags, as POSIX getopt
	// does and as a program's global options end at its subcommand
	// (git -C dir log: log and what follows are operands of git)
	StopAtOperand bool
	// LeadFlag: only the first word may hold flags, with the value its
	// flag takes (kill -9, -TERM, -s KILL: the signal), as kill reads a
	// signal spec only there; every word after it is an operand whatever
	// it looks like (kill -9 -1: -1 is a pid, every process)
	LeadFlag bool
	// Subs are the subcommands the table declares, each with its own
	// flags: the first operand after the program's (global) flags names
	// one. A subcommand the table lacks is decided by the gate's code.
	Subs []*Command
	// Examples are argument lists and the flags the parser must find
	// unknown in them ("" for none), checked by the table's test.
	Examples []Example
	// Output is what a reader prints of the files it reads.
	Output Output
	// Class is what kind of program it is.
	Class Class
	// Filter is what it prints of the lines it reads.
	Filter Filter
	// Unknown is what a flag the declaration lacks does: Ask, or Ignore,
	// which FirstUnknown does not report (Parse still does).
	Unknown Unknown
	// OperandEffect is what an operand does to the call: NotSafe for
	// hostname NAME, which sets the host's name.
	OperandEffect Effect
	// FormatPrefix: an operand starting with it is a format the program
	// prints by, which OperandEffect spares (date +%s prints; date
	// 01010000 sets the clock); 0 for none.
	FormatPrefix byte
	// OutOperand: of two operands or more, the last is a file it writes
	// (uniq IN OUT, xxd IN OUT)
	OutOperand bool
	// Locates are the flags with which it only prints where the program
	// its one operand names is, "" for its call with no flag (which X,
	// whereis X; type -p X, -P X): $(which X) stands for X
	Locates []string
	// DataOperands: its operands are data, never files (tr SET1 SET2)
	DataOperands bool
	// ReadOn: a letter the declaration lacks is reported (Unknown) and the
	// rest of its cluster read on as GNU getopt does, so that a reader of
	// what the flags set sees the letters after it (the searches: grep
	// -Xr is still recursive to the gate, fail closed)
	ReadOn bool
	// RunTimeOperands: a word only known at run time is an operand even
	// when its known start is a dash (sed -$X FILE): the program's hook
	// reads it as its script or a file, which keeps FILE a file the call
	// reads where a flag read there would make it the script
	RunTimeOperands bool
	// Hook names the gate's reader of what the flags do not say (a
	// script's language, a subcommand's effect), "" for none; package
	// gate resolves the name (TestHooksResolve), so the table stays data
	// and one program's knowledge has one place.
	Hook string
	// State is what a shell builtin does to the shell's variables or
	// directory that its flags do not say.
	State State
	// CommandEnv are the argument lists (each one string, "" for none)
	// with which the program is harmless as the command line a variable
	// like PAGER or EDITOR holds (GIT_PAGER=cat, EDITOR=true, PAGER='less
	// -R'): it shows its input or does nothing, and runs nothing else.
	CommandEnv []string

	once  sync.Once
	flags []Flag // Flags, each Each entry split into its flags
	short map[byte]*Flag
	long  map[string]*Flag
	word  map[string]*Flag // one-dash long names: xxd -cols, find -name
	// letters are the BSD-style letters found in operand words (ps e)
	letters map[byte]*Flag
}

// Example is an argument list and the first flag Parse must report as
// unknown in it ("" when every flag is known).
type Example struct {
	Args    string
	Unknown string
	// Want is the gate's answer for the call (package gate's
	// TestTableExamplesDecide): "allow", "ask", "human" (an ask only a
	// person may approve) or "deny", and a reason code the answer
	// carries ("deny floor.mkfs"); "" when the example only checks flags.
	Want string
}

// Invocation is a parsed argument list.
type Invocation struct {
	Operands []int    // indexes of the operands
	Unknown  []string // flags the declaration does not have, as written
	Uses     []Use    // the declared flags found, in order
	// Ended is the index of the word after the "--" that ends the flags
	// (the words from it are operands), 0 when no "--" does
	Ended int
}

// Use is one declared flag found in an argument list, with its value.
type Use struct {
	Flag *Flag
	Name string // the full spelling found: -e, --sh-exec (for --sh-e)
	At   int    // the index of the word holding the flag
	// ValAt is the index of the word holding the value: At when it is
	// attached (-oF, --out=F), At+1 when it is the next word, -1 when
	// there is none. Value is the value itself (the first of Two).
	ValAt int
	Value string
}

// Valued declares only the options that take a value, the short letters
// of letters and the long options long ("--user"), each spelling a flag
// of its own; any other option is a switch (Unknown: Skip). A wrapper
// whose own options are not all declared is read so: its command starts
// at the first operand.
func Valued(letters string, long ...string) *Command {
	c := &Command{Unknown: Skip}
	for i := range letters {
		c.Flags = append(c.Flags, Flag{Names: "-" + letters[i:i+1], Arity: Value})
	}
	for _, l := range long {
		c.Flags = append(c.Flags, Flag{Names: l, Arity: Value})
	}
	return c
}

// Sub returns the declaration of subcommand name, nil when the table
// does not have it (or has no c).
func (c *Command) Sub(name string) *Command {
	if c == nil {
		return nil
	}
	for _, s := range c.Subs {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Has says the invocation holds one of the flags names (full names).
func (inv Invocation) Has(names ...string) bool {
	for _, u := range inv.Uses {
		for _, n := range names {
			if u.Name == n {
				return true
			}
		}
	}
	return false
}

// HasRole says the invocation holds a flag of role r.
func (inv Invocation) HasRole(r Role) bool {
	for _, u := range inv.Uses {
		if u.Flag.Role == r {
			return true
		}
	}
	return false
}

func (c *Command) index() {
	c.once.Do(func() {
		c.short, c.long, c.word = map[byte]*Flag{}, map[string]*Flag{}, map[string]*Flag{}
		c.flags = split(c.Flags)
		for i := range c.flags {
			f := &c.flags[i]
			for _, n := range strings.Fields(f.Names) {
				switch {
				case c.GoFlags:
					c.long[strings.TrimLeft(n, "-")] = f
				case strings.HasPrefix(n, "--"):
					c.long[n[2:]] = f
				case len(n) == 2 && n[0] == '-' && !c.OneDash:
					c.short[n[1]] = f
				case n[0] == '-':
					c.word[n] = f
				case len(n) == 1:
					if c.letters == nil {
						c.letters = map[byte]*Flag{}
					}
					c.letters[n[0]] = f
				}
			}
		}
	})
}

// split returns flags with every Each entry split into one flag per word.
func split(flags []Flag) []Flag {
	if !slices.ContainsFunc(flags, func(f Flag) bool { return f.Each }) {
		return flags
	}
	var out []Flag
	for _, f := range flags {
		if !f.Each {
			out = append(out, f)
			continue
		}
		for _, n := range strings.Fields(f.Names) {
			g := f
			g.Names, g.Each = strings.ReplaceAll(n, "|", " "), false
			out = append(out, g)
		}
	}
	return out
}

// LongFlag resolves long option name (without its dashes) as Parse
// does: its full name and flag, "" and nil when the declaration lacks it
// or the prefix is ambiguous.
func (c *Command) LongFlag(name string) (string, *Flag) {
	c.index()
	return c.lookupLong(name)
}

// lookupLong resolves a long option, by a prefix of one flag's spellings
// when Abbrev, to its full name: like getopt_long, a prefix of two
// spellings of one flag (--col: --color, --colour) is that flag, a prefix
// of two flags is ambiguous and refused.
func (c *Command) lookupLong(name string) (string, *Flag) {
	if f, ok := c.long[name]; ok {
		return name, f
	}
	if !c.Abbrev || name == "" {
		return "", nil
	}
	found, flag := "", (*Flag)(nil)
	for full, f := range c.long {
		if !strings.HasPrefix(full, name) {
			continue
		}
		switch {
		case flag == nil:
			found, flag = full, f
		case f != flag:
			return "", nil // ambiguous: the program refuses it
		case full < found:
			found = full // one name for the flag whatever the map's order
		}
	}
	return found, flag
}

// Parse reads args (the words after the program name; dyn[i] marks a word
// only known at run time, which is never read as a flag) by the
// declaration.
func (c *Command) Parse(args []string, dyn []bool) Invocation {
	return c.ParseAt(len(args), func(i int) (string, bool) { return args[i], i < len(dyn) && dyn[i] })
}

// ParseAt is Parse of the n words at(i), without copying them.
func (c *Command) ParseAt(n int, at func(i int) (val string, dyn bool)) Invocation {
	var inv Invocation
	c.scan(n, at, &inv, whole)
	return inv
}

// FirstUnknown is the first flag of the n words at(i) the declaration does
// not have ("" for none, for a nil Command: no declaration, and for one
// whose Unknown is not Ask). With StopAtOperand only the flags before the
// first operand are read.
func (c *Command) FirstUnknown(n int, at func(i int) (val string, dyn bool)) string {
	if c == nil || c.Unknown != Ask {
		return ""
	}
	var inv Invocation
	c.scan(n, at, &inv, firstUnknown)
	if len(inv.Unknown) > 0 {
		return inv.Unknown[0]
	}
	return ""
}

// FirstOperand is the index of the first operand of the n words at(i),
// -1 when there is none.
func (c *Command) FirstOperand(n int, at func(i int) (val string, dyn bool)) int {
	var inv Invocation
	return c.scan(n, at, &inv, firstOperand)
}

// Uses are the declared flags found in the n words at(i), in order, as
// Parse finds them, without recording the operands.
func (c *Command) Uses(n int, at func(i int) (val string, dyn bool)) []Use {
	var inv Invocation
	c.scan(n, at, &inv, usesOnly)
	return inv.Uses
}

// End is the index of the word after the "--" that ends the flags of the
// n words at(i) (Invocation.Ended), 0 when no "--" does.
func (c *Command) End(n int, at func(i int) (val string, dyn bool)) int {
	var inv Invocation
	return max(c.scan(n, at, &inv, end), 0)
}

// scanMode is what a scan records.
type scanMode uint8

const (
	whole        scanMode = iota // operands, flags and unknown flags
	firstUnknown                 // the first unknown flag only
	firstOperand                 // the first operand's index only
	end                          // the end of the flags only
	usesOnly                     // the flags found, not the operands
)

// records says the mode keeps the declared flags found in inv.Uses.
func (m scanMode) records() bool { return m == whole || m == usesOnly }

// unknown records the unknown flag v in inv when the mode reports them.
func (m scanMode) unknown(inv *Invocation, v string) {
	if m == whole || m == firstUnknown {
		inv.Unknown = append(inv.Unknown, v)
	}
}

// scan parses the n words at(i) into inv, as far as mode needs; it
// returns the first operand's index (-1: none) in mode firstOperand, the
// index after the "--" ending the flags (-1: none) in mode end.
// A word known only at run time is an operand unless its known start is
// a dash: -o$X is -o with a value whatever $X holds.
func (c *Command) scan(n int, at func(int) (string, bool), inv *Invocation, mode scanMode) int {
	c.index()
	for i := 0; i < n; i++ {
		if mode == firstUnknown && len(inv.Unknown) > 0 {
			return -1
		}
		if c.LeadFlag && i > 0 {
			if mode == firstOperand {
				return i
			}
			c.operands(i, n, at, inv, mode)
			return -1
		}
		v, dyn := at(i)
		switch {
		case v == "-", !strings.HasPrefix(v, "-"), dyn && (c.RunTimeOperands || !literalDash(v)):
			if mode == firstOperand {
				return i
			}
			if mode == whole {
				inv.Operands = append(inv.Operands, i)
			}
			if mode.records() {
				c.bsdLetters(v, i, inv)
			}
			if c.StopAtOperand {
				c.operands(i+1, n, at, inv, mode)
				return -1
			}
			continue
		case c.GoFlags:
			i = c.parseGo(v, i, n, at, inv, mode)
			continue
		case v == "--":
			if mode == firstOperand && i+1 < n {
				return i + 1
			}
			inv.Ended = i + 1
			if mode == end {
				return i + 1
			}
			c.operands(i+1, n, at, inv, mode)
			return -1
		case strings.HasPrefix(v, "--"):
			i = c.parseLong(v, i, n, at, inv, mode)
			continue
		}
		if f, ok := c.word[v]; ok {
			u := Use{Flag: f, Name: v, At: i, ValAt: -1}
			switch f.Arity {
			case Value:
				u.ValAt, u.Value = next(i, n, at)
				i++
			case Two:
				u.ValAt, u.Value = next(i, n, at)
				i += 2
			case CommandArgs:
				for i++; i < n; i++ {
					if w, _ := at(i); w == ";" || w == "+" {
						break
					}
				}
			}
			if mode.records() {
				inv.Uses = append(inv.Uses, u)
			}
			continue
		}
		if c.OneDash {
			mode.unknown(inv, v)
			continue
		}
		var ends bool
		if i, ends = c.parseShort(v, i, n, at, inv, mode); ends {
			return c.ended(i+1, n, at, inv, mode)
		}
	}
	return -1
}

// ended records the words from to n as operands, those after a flag that
// ends the flags (Flag.Ends), and returns what scan returns in mode: the
// first operand's index in mode firstOperand (-1: none), else -1.
func (c *Command) ended(from, n int, at func(int) (string, bool), inv *Invocation, mode scanMode) int {
	if mode == firstOperand {
		if from < n {
			return from
		}
		return -1
	}
	c.operands(from, n, at, inv, mode)
	return -1
}

// bsdLetters records the declared BSD-style letters of operand v, word i.
func (c *Command) bsdLetters(v string, i int, inv *Invocation) {
	for j := 0; j < len(v) && c.letters != nil; j++ {
		if f, ok := c.letters[v[j]]; ok {
			inv.Uses = append(inv.Uses, Use{Flag: f, Name: v[j : j+1], At: i, ValAt: -1})
		}
	}
}

// literalDash says a word known only at run time starts with a literal
// dash: its value shows expansions as $NAME or $(…), so a dash there is
// written in the command.
func literalDash(v string) bool { return len(v) > 1 && v[0] == '-' }

// next is the word after i as a value: its index and text, -1 when there
// is none.
func next(i, n int, at func(int) (string, bool)) (int, string) {
	if i+1 >= n {
		return -1, ""
	}
	v, _ := at(i + 1)
	return i + 1, v
}

// parseLong reads the long option v, word i, and returns the index of the
// last word it used.
// In a mode that records (whole, usesOnly) the flag found is kept in inv.Uses.
func (c *Command) parseLong(v string, i, n int, at func(int) (string, bool), inv *Invocation, mode scanMode) int {
	record := mode.records()
	name, val, eq := strings.Cut(v[2:], "=")
	full, f := c.lookupLong(name)
	if f == nil || eq && f.Arity == None {
		mode.unknown(inv, v)
		return i
	}
	u := Use{Flag: f, Name: "--" + full, At: i, ValAt: -1}
	switch {
	case eq:
		u.ValAt, u.Value = i, val
	case f.Arity == Value || f.Arity == Two:
		u.ValAt, u.Value = next(i, n, at)
	}
	switch {
	case f.Arity == Value && !eq:
		i++ // the next word is the value
	case f.Arity == Two && eq:
		i++ // --arg=NAME VALUE
	case f.Arity == Two:
		i += 2
	}
	if record {
		inv.Uses = append(inv.Uses, u)
	}
	return i
}

// parseGo reads v, word i, as a flag of Go's flag package (GoFlags) and
// returns the index of the last word it used. In mode whole the flag
// found is kept in inv.Uses.
func (c *Command) parseGo(v string, i, n int, at func(int) (string, bool), inv *Invocation, mode scanMode) int {
	name, val, eq := strings.Cut(strings.TrimLeft(v, "-"), "=")
	f, ok := c.long[name]
	switch {
	case v == "--":
		return i // no end: read on
	case !ok:
		mode.unknown(inv, v)
		return i
	}
	u := Use{Flag: f, Name: "-" + name, At: i, ValAt: -1}
	switch {
	case eq:
		u.ValAt, u.Value = i, val
	case f.Arity == Value:
		u.ValAt, u.Value = next(i, n, at)
		i++
	}
	if mode.records() {
		inv.Uses = append(inv.Uses, u)
	}
	return i
}

// operands records words from to n as operands, in mode whole.
func (c *Command) operands(from, n int, at func(int) (string, bool), inv *Invocation, mode scanMode) {
	for j := from; mode == whole && j < n; j++ {
		inv.Operands = append(inv.Operands, j)
		if c.letters != nil {
			v, _ := at(j)
			c.bsdLetters(v, j, inv)
		}
	}
}

// parseShort reads the cluster v, word i (-abc, -ofile, -5), and returns
// the index of the last word it used, and whether its last flag ends the
// flags (Flag.Ends).
// In a mode that records (whole, usesOnly) the flags found are kept in inv.Uses.
func (c *Command) parseShort(v string, i, n int, at func(int) (string, bool), inv *Invocation, mode scanMode) (int, bool) {
	record := mode.records()
	taken := i // the last word the cluster's NextWord flags took
	for j := 1; j < len(v); j++ {
		if c.Numeric && v[j] >= '0' && v[j] <= '9' {
			continue
		}
		f, ok := c.short[v[j]]
		if !ok {
			if mode == whole || mode == firstUnknown {
				inv.Unknown = append(inv.Unknown, "-"+string(v[j]))
			}
			if c.Unknown == Skip || c.ReadOn {
				continue // a switch, or read on past it
			}
			return taken, false
		}
		u := Use{Flag: f, Name: v[j-1 : j+1], At: i, ValAt: -1}
		if j > 1 {
			u.Name = "-" + string(v[j]) // in a cluster: -uo is -u and -o
		}
		last := i
		switch {
		case f.Arity == None:
		case f.Arity == Digits:
			k := digitsAfter(v, j)
			if k > j {
				u.ValAt, u.Value = i, v[j+1:k+1]
			}
			j = k
		case f.Arity == NextWord:
			if vi, val := next(taken, n, at); vi >= 0 && !strings.HasPrefix(val, "-") {
				u.ValAt, u.Value, taken = vi, val, vi
			}
		case f.Arity == Value && j == len(v)-1:
			u.ValAt, u.Value = next(i, n, at) // -o VALUE
			last = i + 1
		case f.Arity == Two && j == len(v)-1:
			u.ValAt, u.Value = next(i, n, at)
			last = i + 2
		case f.Arity == Two:
			u.ValAt, u.Value = i, v[j+1:] // -aNAME VALUE
			last = i + 1
		case j < len(v)-1:
			u.ValAt, u.Value = i, v[j+1:] // -oVALUE, -iSUF: the rest of the cluster
		}
		if record {
			inv.Uses = append(inv.Uses, u)
		}
		if f.Arity != None && f.Arity != NextWord && f.Arity != Digits || f.Ends {
			return last, f.Ends
		}
	}
	return taken, false
}

// digitsAfter is the index of the last digit after the flag at v[j] (j
// for none): its Digits value, hex (x and digits) for the flag -0.
func digitsAfter(v string, j int) int {
	k := j
	for k+1 < len(v) && (v[k+1] >= '0' && v[k+1] <= '9' || v[j] == '0' && v[k+1] == 'x') {
		k++
	}
	return k
}
