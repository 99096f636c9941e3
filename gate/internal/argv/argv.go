// Package argv declares what a program's flags are and parses an argument
// list by that declaration, once for every program: --opt=v and --opt v,
// -ov and -o v, bundled short flags (-abc), -- and unique abbreviations of
// long options, so that every spelling of a flag is read the same way.
package argv

import (
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
)

// Flag is one flag in all its spellings.
type Flag struct {
	Names string // every spelling, space-separated: "-o --output"
	Arity Arity
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
	// StopAtOperand: the first operand ends the flags, as POSIX getopt
	// does and as a program's global options end at its subcommand
	// (git -C dir log: log and what follows are operands of git)
	StopAtOperand bool
	// Subs are the subcommands the table declares, each with its own
	// flags: the first operand after the program's (global) flags names
	// one. A subcommand the table lacks is decided by the gate's code.
	Subs []*Command
	// Examples are argument lists and the flags the parser must find
	// unknown in them ("" for none), checked by the table's test.
	Examples []Example

	once  sync.Once
	short map[byte]Arity
	long  map[string]Arity
	word  map[string]Arity // one-dash long names: xxd -cols, find -name
}

// Example is an argument list and the first flag Parse must report as
// unknown in it ("" when every flag is known).
type Example struct {
	Args    string
	Unknown string
}

// Invocation is a parsed argument list.
type Invocation struct {
	Operands []int    // indexes of the operands
	Unknown  []string // flags the declaration does not have, as written
	Flags    []string // the declared flags found, by full name: -e, --sh-exec
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
	for _, f := range inv.Flags {
		for _, n := range names {
			if f == n {
				return true
			}
		}
	}
	return false
}

func (c *Command) index() {
	c.once.Do(func() {
		c.short, c.long, c.word = map[byte]Arity{}, map[string]Arity{}, map[string]Arity{}
		for _, f := range c.Flags {
			for _, n := range strings.Fields(f.Names) {
				switch {
				case strings.HasPrefix(n, "--"):
					c.long[n[2:]] = f.Arity
				case len(n) == 2 && n[0] == '-' && !c.OneDash:
					c.short[n[1]] = f.Arity
				case n[0] == '-':
					c.word[n] = f.Arity
				}
			}
		}
	})
}

// lookupLong resolves a long option, by unique prefix when Abbrev, to its
// full name.
func (c *Command) lookupLong(name string) (string, Arity, bool) {
	if a, ok := c.long[name]; ok {
		return name, a, true
	}
	if !c.Abbrev || name == "" {
		return "", None, false
	}
	found, arity := "", None
	for full, a := range c.long {
		if strings.HasPrefix(full, name) {
			if found != "" {
				return "", None, false // ambiguous: the program refuses it
			}
			found, arity = full, a
		}
	}
	return found, arity, found != ""
}

// Parse reads args (the words after the program name; dyn[i] marks a word
// only known at run time, which is never read as a flag) by the
// declaration.
func (c *Command) Parse(args []string, dyn []bool) Invocation {
	var inv Invocation
	c.scan(len(args), func(i int) (string, bool) { return args[i], i < len(dyn) && dyn[i] }, &inv, whole)
	return inv
}

// FirstUnknown is the first flag of the n words at(i) the declaration does
// not have ("" for none, and for a nil Command: no declaration). With
// StopAtOperand only the flags before the first operand are read.
func (c *Command) FirstUnknown(n int, at func(i int) (val string, dyn bool)) string {
	if c == nil {
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

// scanMode is what a scan records.
type scanMode uint8

const (
	whole        scanMode = iota // operands, flags and unknown flags
	firstUnknown                 // the first unknown flag only
	firstOperand                 // the first operand's index only
)

// scan parses the n words at(i) into inv, as far as mode needs; it
// returns the first operand's index (-1: none) in mode firstOperand.
func (c *Command) scan(n int, at func(int) (string, bool), inv *Invocation, mode scanMode) int {
	c.index()
	first := mode != whole
	for i := 0; i < n; i++ {
		if mode == firstUnknown && len(inv.Unknown) > 0 {
			return -1
		}
		v, dyn := at(i)
		switch {
		case dyn, v == "-", !strings.HasPrefix(v, "-"):
			if mode == firstOperand {
				return i
			}
			if !first {
				inv.Operands = append(inv.Operands, i)
			}
			if c.StopAtOperand {
				c.operands(i+1, n, inv, mode)
				return -1
			}
			continue
		case v == "--":
			if mode == firstOperand && i+1 < n {
				return i + 1
			}
			c.operands(i+1, n, inv, mode)
			return -1
		case strings.HasPrefix(v, "--"):
			name, _, eq := strings.Cut(v[2:], "=")
			full, a, ok := c.lookupLong(name)
			switch {
			case !ok || eq && a == None:
				inv.Unknown = append(inv.Unknown, v)
				continue
			case a == Value && !eq:
				i++ // the next word is the value
			case a == Two && eq:
				i++ // --arg=NAME VALUE
			case a == Two:
				i += 2
			}
			if !first {
				inv.Flags = append(inv.Flags, "--"+full)
			}
			continue
		}
		if a, ok := c.word[v]; ok {
			if !first {
				inv.Flags = append(inv.Flags, v)
			}
			switch a {
			case Value:
				i++
			case Two:
				i += 2
			case CommandArgs:
				for i++; i < n; i++ {
					if w, _ := at(i); w == ";" || w == "+" {
						break
					}
				}
			}
			continue
		}
		if c.OneDash {
			inv.Unknown = append(inv.Unknown, v)
			continue
		}
		i = c.parseShort(v, i, inv, !first)
	}
	return -1
}

// operands records words from to n as operands, in mode whole.
func (c *Command) operands(from, n int, inv *Invocation, mode scanMode) {
	for j := from; mode == whole && j < n; j++ {
		inv.Operands = append(inv.Operands, j)
	}
}

// parseShort reads the cluster v, word i (-abc, -ofile, -5), and returns
// the index of the last word it used.
// record: the flags found are kept in inv.Flags.
func (c *Command) parseShort(v string, i int, inv *Invocation, record bool) int {
	for j := 1; j < len(v); j++ {
		if c.Numeric && v[j] >= '0' && v[j] <= '9' {
			continue
		}
		a, ok := c.short[v[j]]
		if !ok {
			inv.Unknown = append(inv.Unknown, "-"+string(v[j]))
			return i
		}
		if record {
			inv.Flags = append(inv.Flags, "-"+string(v[j]))
		}
		switch {
		case a == Value && j == len(v)-1:
			return i + 1 // -o VALUE
		case a == Two && j == len(v)-1:
			return i + 2
		case a == Two:
			return i + 1 // -aNAME VALUE
		case a != None:
			return i // -oVALUE, -iSUF: the rest of the cluster is the value
		}
	}
	return i
}
