// options.go holds the gate's bridge to the table's parser (parseArgs,
// valueWord, firstOperand, beforeEnd: gate/internal/argv) and the generic
// readers that predate it. Those stay while ~15 files of other families
// call them with a question's flags (hasFlag(args, "--all")) rather than
// their program's declaration; each is an argv scanner the architecture
// test counts. Reading them through argv honestly needs the program's
// declaration at the call (parseArgs(cmds.Lookup(lb), args).Has, the
// Uses' values): a Command built per call from a question's flags would
// cost its index's allocations on every call of the hot path, and would
// change what they answer (each says how below), so each call moves when
// its family's entry declares the flags.

package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

func hasWord(args []word, w string) bool {
	for _, x := range args {
		if x.val == w {
			return true
		}
	}
	return false
}

// longOpt resolves a GNU long option name that may be abbreviated; "" when
// it is unknown or ambiguous.
func longOpt(name string, opts []string) string {
	found := ""
	for _, o := range opts {
		if o == name {
			return o
		}
		if name != "" && strings.HasPrefix(o, name) {
			if found != "" {
				return ""
			}
			found = o
		}
	}
	return found
}

// hasLongAbbrev reports a long flag that is name or a GNU/git abbreviation
// of it (--outp for --output), alone or with =value. It stays a scanner:
// any prefix counts, even one the program finds ambiguous (--e for git's
// --exec and --ext-diff), so it fails closed where a declaration with
// only names would refuse the prefix.
func hasLongAbbrev(args []word, names ...string) bool {
	for _, w := range args {
		v := w.val
		if v == "--" {
			return false
		}
		if !strings.HasPrefix(v, "--") || len(v) < 3 {
			continue
		}
		n, _, _ := strings.Cut(v[2:], "=")
		for _, name := range names {
			if strings.HasPrefix(strings.TrimPrefix(name, "--"), n) {
				return true
			}
		}
	}
	return false
}

// hasShortPrefix reports a flag that is p or p with an attached value
// (git grep -Ovim). It stays: its one caller (git's risky flags, whatever
// the subcommand) has no declaration of the subcommand's other short
// flags, and without them a parse would find -O inside -SOpen (-S's
// value), a needless ask.
func hasShortPrefix(args []word, p string) bool {
	for _, w := range args {
		if w.val == "--" {
			return false
		}
		if strings.HasPrefix(w.val, p) {
			return true
		}
	}
	return false
}

// flagValues returns the values of the named options, written NAME VALUE
// or NAME=VALUE (docker, pip, terraform and eslint spell them so). It
// stays: it consumes no value (docker -e -e X gives "-e" and "X"), and
// takes -v=X as X, neither of which a declaration reads so.
func flagValues(args []word, names ...string) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			break
		}
		for _, n := range names {
			switch {
			case v == n && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(v, n+"="):
				out = append(out, word{val: v[len(n)+1:], dyn: args[i].dyn})
			}
		}
	}
	return out
}

// optionValues returns the values of a short option letter (-f FILE, -fFILE,
// -uf FILE, -ufFILE) and of a long one (--file FILE, --file=FILE, and the
// abbreviations getopt accepts, --fi FILE). It is what argv.Valued(letter,
// long) with Abbrev parses; it stays a loop because its ~30 calls pass the
// letter and name, not a declaration built once (strace's moved onto one:
// cmds/wrappers.go logOption).
func optionValues(args []word, letter byte, long string) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.val
		switch {
		case v == "--":
			return out
		case strings.HasPrefix(v, "--") && len(v) > 2:
			n, val, eq := strings.Cut(v[2:], "=")
			if !strings.HasPrefix(strings.TrimPrefix(long, "--"), n) {
				continue
			}
			if eq {
				out = append(out, word{val: val, dyn: w.dyn})
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case len(v) > 1 && v[0] == '-':
			if j := strings.IndexByte(v[1:], letter); j >= 0 {
				if rest := v[j+2:]; rest != "" {
					out = append(out, word{val: rest, dyn: w.dyn})
				} else if i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
			}
		}
	}
	return out
}

// fdVal are fd's options that take the next word.
var fdVal = map[string]bool{"-e": true, "--extension": true, "-t": true, "--type": true, "-d": true, "--max-depth": true,
	"-E": true, "--exclude": true, "--min-depth": true, "--exact-depth": true, "-S": true, "--size": true, "-j": true,
	"--threads": true, "-c": true, "--color": true, "--changed-within": true, "--changed-before": true, "-o": true,
	"--owner": true, "--base-directory": true, "--path-separator": true, "--search-path": true, "--max-results": true,
	"--ignore-file": true, "--format": true, "--batch-size": true, "--and": true}

// parseArgs parses args by the table's declaration c.
func parseArgs(c *argv.Command, args []word) argv.Invocation {
	return c.ParseAt(len(args), wordAt(args))
}

// wordAt reads args as the table's parser takes them: a word's value, and
// whether it is known only at run time.
func wordAt(args []word) func(int) (string, bool) {
	return func(i int) (string, bool) { return args[i].val, args[i].dyn }
}

// valueWord is the word holding u's value: the next word, or the value
// attached to the flag's own word (-oFILE, --output=FILE).
func valueWord(args []word, u argv.Use) (word, bool) {
	switch {
	case u.ValAt < 0:
		return word{}, false
	case u.ValAt == u.At:
		return word{val: u.Value, dyn: args[u.At].dyn}, true
	}
	return args[u.ValAt], true
}

// switchesOnly reads every option as a switch: a wrapper none of whose
// own options takes a value, or one whose values the gate does not know.
var switchesOnly = argv.Valued("")

// beforeEnd are the words of args before the "--" that ends the options
// (all of them without one), read as switches.
func beforeEnd(args []word) []word {
	if end := switchesOnly.End(len(args), wordAt(args)); end > 0 {
		return args[:end-1]
	}
	return args
}

// firstOperand is the index of the first operand of args read by c
// (argv.Valued: the options that take a value), len(args) when there is
// none; nil reads every option as a switch.
func firstOperand(c *argv.Command, args []word) int {
	if c == nil {
		c = switchesOnly
	}
	if i := c.FirstOperand(len(args), wordAt(args)); i >= 0 {
		return i
	}
	return len(args)
}

// shortValue reads args[j] as a cluster of short options the way getopt
// does and returns the value of letter in it: the rest of the word, or the
// next word when letter ends it (-ix CMD, -xCMD). Letters in withVal that
// come first take the rest themselves, hiding letter.
func shortValue(args []word, j int, letter byte, withVal string) (string, bool) {
	v := args[j].val
	if len(v) < 2 || v[0] != '-' || v[1] == '-' {
		return "", false
	}
	for k := 1; k < len(v); k++ {
		switch {
		case v[k] == letter && k < len(v)-1:
			return v[k+1:], true
		case v[k] == letter && j+1 < len(args):
			return args[j+1].val, true
		case v[k] == letter || strings.IndexByte(withVal, v[k]) >= 0:
			return "", false
		}
	}
	return "", false
}

// operands lists the non-flag words, skipping values of flags in valFlags.
// It stays: it reads a cluster as one flag word (-xo takes no value,
// where a declaration with -o valued reads the next word as -o's), and a
// word known only at run time as an operand even when it starts with a
// dash (a declaration does so only with RunTimeOperands: sed, awk, the
// interpreters), so its ~60 calls move one family at a time, each with
// its goldens, as copyMove's, sed's and awk's did.
func operands(args []word, valFlags map[string]bool) []int {
	var out []int
	dd := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case dd:
			out = append(out, i)
		case v == "--":
			dd = true
		case len(v) > 1 && v[0] == '-' && !args[i].dyn:
			if valFlags[v] {
				i++
			}
		default:
			out = append(out, i)
		}
	}
	return out
}

// hasFlag reports one of names as a word of its own, or a long one with
// =value, before "--". It stays: a short name is found only alone (-x,
// not in -ax), which a declaration's parse does not ask.
func hasFlag(args []word, names ...string) bool {
	for _, w := range args {
		if w.val == "--" {
			return false
		}
		for _, n := range names {
			if w.val == n || (strings.HasPrefix(n, "--") && strings.HasPrefix(w.val, n+"=")) {
				return true
			}
		}
	}
	return false
}

// hasShort reports a short flag letter, alone or combined (-rf has r).
func hasShort(args []word, letters string) bool { return hasShortBefore(args, letters, "") }

// hasShortBefore is hasShort that reads a cluster as getopt does (it
// stays as hasShort's reader; a letter of values ending a cluster does not
// take the next word, unlike a declaration's parse): the
// rest of a word after one of the options values (that take a value) is
// that value (pip -rrequirements.txt holds no -i).
func hasShortBefore(args []word, letters, values string) bool {
	for _, w := range args {
		v := w.val
		if v == "--" {
			return false
		}
		if len(v) < 2 || v[0] != '-' || v[1] == '-' {
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(letters, v[j]) >= 0 {
				return true
			}
			if strings.IndexByte(values, v[j]) >= 0 {
				break
			}
		}
	}
	return false
}
