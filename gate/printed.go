// printed.go is what a command prints when the gate can tell (echo, printf,
// pwd, dirname): text that a pipe, a here-string or a substitution hands
// to the next command.

package gate

import (
	"path"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// printed is what a program whose words are data prints, by its entry's
// Output, when the gate can tell; nil when it cannot.
func printed(c *argv.Command, args []word, cwd string) *stdinSrc {
	switch c.Output {
	case argv.Echoed, argv.Formatted:
		return printedText(c, args)
	case argv.WorkDir, argv.Dirs:
		return placePrinted(c.Output, args, cwd)
	}
	return nil
}

// placePrinted is what pwd and dirname print when the gate knows it: the
// working directory, and the directory part of each literal operand
// (rm -rf "$(dirname "$PWD")" deletes the working directory's parent);
// nil for anything else.
func placePrinted(o argv.Output, args []word, cwd string) *stdinSrc {
	switch {
	case o == argv.WorkDir && cwd != "" && !slices.ContainsFunc(args, func(w word) bool { return w.dyn }):
		return &stdinSrc{text: cwd + "\n", known: true}
	case o != argv.Dirs || len(args) == 0:
		return nil
	}
	var b strings.Builder
	for _, w := range args {
		if w.dyn || strings.HasPrefix(w.val, "-") {
			return nil // dirname -z: NUL-separated
		}
		b.WriteString(path.Dir(w.val) + "\n")
	}
	return &stdinSrc{text: b.String(), known: true}
}

// printedText is what echo (argv.Echoed) or printf (Formatted) prints,
// when the gate can tell.
func printedText(c *argv.Command, args []word) *stdinSrc {
	vals := make([]string, len(args))
	dyn := false
	for i, w := range args {
		vals[i] = w.val
		if w.dyn {
			vals[i], dyn = "$_", true
		}
	}
	if dyn {
		return &stdinSrc{text: strings.Join(vals, " ") + "\n"}
	}
	if c.Output == argv.Formatted {
		// the table finds the format: after --, never after -v VAR, whose
		// output goes to VAR
		inv := c.Parse(vals, nil)
		if len(inv.Uses)+len(inv.Unknown) > 0 || len(inv.Operands) == 0 {
			return &stdinSrc{text: "$_"}
		}
		vals = vals[inv.Operands[0]:]
		t, known := printfText(vals[0], vals[1:])
		return &stdinSrc{text: t, known: known}
	}
	// echo's -e and -n: escapes the gate does not decode
	return &stdinSrc{text: strings.Join(vals, " ") + "\n", known: len(vals) == 0 || !strings.HasPrefix(vals[0], "-")}
}

// printfText is what printf FORMAT ARGS… prints when FORMAT has no
// conversion but %s and %% and no escape but \n \t \0 \\: the format is
// reused while arguments remain, as printf does. \0 is read as a newline:
// it separates names (printf '%s\0' .env | xargs -0 cat) as a newline does.
func printfText(format string, args []string) (string, bool) {
	var b strings.Builder
	for i := 0; ; {
		consumed := false
		for j := 0; j < len(format); j++ {
			c := format[j]
			if (c != '%' && c != '\\') || j+1 == len(format) {
				if c == '%' || c == '\\' {
					return "", false
				}
				b.WriteByte(c)
				continue
			}
			j++
			switch esc := string(format[j-1 : j+1]); esc {
			case "%s":
				if i < len(args) {
					b.WriteString(args[i])
					i++
				}
				consumed = true
			case "%%":
				b.WriteByte('%')
			case "\\n", "\\0":
				b.WriteByte('\n')
			case "\\t":
				b.WriteByte('\t')
			case "\\\\":
				b.WriteByte('\\')
			default:
				return "", false
			}
		}
		if !consumed || i >= len(args) {
			return b.String(), true
		}
	}
}
