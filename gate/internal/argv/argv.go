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
	None     Arity = iota // a switch: -v, --verbose
	Value                 // one value: attached (-oV, --out=V) or the next word
	Optional              // a value only when attached: --color=WHEN, -iSUF
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
				case len(n) == 2 && n[0] == '-':
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
	c.scan(len(args), func(i int) (string, bool) { return args[i], i < len(dyn) && dyn[i] }, &inv, false)
	return inv
}

// FirstUnknown is the first flag of the n words at(i) the declaration does
// not have ("" for none, and for a nil Command: no declaration).
func (c *Command) FirstUnknown(n int, at func(i int) (val string, dyn bool)) string {
	if c == nil {
		return ""
	}
	var inv Invocation
	c.scan(n, at, &inv, true)
	if len(inv.Unknown) > 0 {
		return inv.Unknown[0]
	}
	return ""
}

// scan parses the n words at(i) into inv; first: stop at the first
// unknown flag and record no operands.
func (c *Command) scan(n int, at func(int) (string, bool), inv *Invocation, first bool) {
	c.index()
	operand := func(i int) {
		if !first {
			inv.Operands = append(inv.Operands, i)
		}
	}
	for i := 0; i < n; i++ {
		if first && len(inv.Unknown) > 0 {
			return
		}
		v, dyn := at(i)
		switch {
		case dyn, v == "-", !strings.HasPrefix(v, "-"):
			operand(i)
			continue
		case v == "--":
			for j := i + 1; j < n; j++ {
				operand(j)
			}
			return
		case strings.HasPrefix(v, "--"):
			name, _, eq := strings.Cut(v[2:], "=")
			full, a, ok := c.lookupLong(name)
			switch {
			case !ok || eq && a == None:
				inv.Unknown = append(inv.Unknown, v)
				continue
			case a == Value && !eq:
				i++ // the next word is the value
			}
			inv.Flags = append(inv.Flags, "--"+full)
			continue
		}
		if a, ok := c.word[v]; ok {
			inv.Flags = append(inv.Flags, v)
			if a == Value {
				i++
			}
			continue
		}
		i = c.parseShort(v, i, inv)
	}
}

// parseShort reads the cluster v, word i (-abc, -ofile, -5), and returns
// the index of the last word it used.
func (c *Command) parseShort(v string, i int, inv *Invocation) int {
	for j := 1; j < len(v); j++ {
		if c.Numeric && v[j] >= '0' && v[j] <= '9' {
			continue
		}
		a, ok := c.short[v[j]]
		if !ok {
			inv.Unknown = append(inv.Unknown, "-"+string(v[j]))
			return i
		}
		inv.Flags = append(inv.Flags, "-"+string(v[j]))
		switch {
		case a == Value && j == len(v)-1:
			return i + 1 // -o VALUE
		case a != None:
			return i // -oVALUE, -iSUF: the rest of the cluster is the value
		}
	}
	return i
}
