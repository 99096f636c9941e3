package scripts

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// AwkSafe says an awk program only reads its input and prints: it runs
// no command (system, pipes, getline from a command), writes no file
// (print > file), opens no socket and reads no environment. Comparisons
// (NR > 5) and logical or (||) are fine; what does not lex is not safe.
//
//	AwkSafe(`$1 > 3 {print $2}`)      → true
//	AwkSafe(`{print > "out.txt"}`)    → false
func AwkSafe(prog string) bool {
	code, _, ok := awkLex(prog)
	if !ok {
		return false
	}
	if strings.Contains(prog, "/inet/") {
		return false // gawk network special files, usually inside a string
	}
	// @f(...) is a gawk indirect call: f may name system. The names are
	// looked for in the whole program, strings included: a lexing mistake
	// must not hide one.
	for _, bad := range []string{"system", "getline", "close(", "fflush", "ENVIRON", "PROCINFO", "ARGV", "ARGC", "SYMTAB", "FUNCTAB"} {
		if strings.Contains(prog, bad) {
			return false
		}
	}
	if strings.Contains(code, "@") {
		return false
	}
	if strings.Contains(strings.ReplaceAll(code, "||", ""), "|") {
		return false
	}
	return !awkPrintsToFile(code)
}

// awkPrintsToFile finds print > file in lexed code: a > after print or
// printf, outside parentheses.
func awkPrintsToFile(code string) bool {
	for _, stmt := range awkStatements(code) {
		k := strings.Index(stmt, "print")
		if k < 0 {
			continue
		}
		depth := 0
		for _, c := range stmt[k:] {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			case '>':
				if depth <= 0 {
					return true
				}
			}
		}
	}
	return false
}

// awkStatements splits lexed code at ; { } and newlines.
func awkStatements(code string) []string {
	return strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '{' || r == '}' || r == '\n' })
}

// AwkSocket says a program names a gawk network special file (/inet/tcp/…).
func AwkSocket(prog string) bool { return strings.Contains(prog, "/inet/") }

// AwkEnviron says a program reads the environment: ENVIRON, or any
// variable by a computed name through SYMTAB or PROCINFO.
func AwkEnviron(prog string) bool {
	return strings.Contains(prog, "ENVIRON") || strings.Contains(prog, "SYMTAB") || strings.Contains(prog, "PROCINFO")
}

// AwkInplace says a program loads gawk's in-place extension
// (@include "inplace"), which rewrites every file operand.
func AwkInplace(prog string) bool { return awkIncludesInplace().MatchString(prog) }

// AwkProgram is what an awk program that is not AwkSafe does, by the
// literals it holds.
type AwkProgram struct {
	// Effects: the commands it runs (system("CMD"), "CMD" | getline,
	// print | "CMD", and what it prints to a shell), the files it writes
	// (print > "F") and reads (getline < "F"), by literal name
	Effects
	Literals []string // its string literals
	// Computed: it runs a command built at run time (system(c),
	// c | getline, print | c), from the literals it holds ("r" "m -rf ~").
	// Joined is then its code with the literals put back, quoted, for
	// the caller to join the ones awk concatenates.
	Computed bool
	Joined   string
}

// Awk reads what an awk program does. isShell says a program name is a
// shell, whose input (print "CMD" | "sh") is a script it runs.
//
//	Awk(`BEGIN{system("rm x")}`, …)       → Runs [rm x]
//	Awk(`{print > "out"}`, …)             → Writes [out]
//	Awk(`BEGIN{c="id"; system(c)}`, …)    → Computed, Literals [id]
func Awk(prog string, isShell func(name string) bool) AwkProgram {
	code, lits, _ := awkLex(prog)
	if code == "" {
		lits = awkStrings(prog)
	}
	p := AwkProgram{Effects: awkEffects(code, lits, isShell), Literals: lits}
	if awkComputedCommand().MatchString(code) {
		p.Computed, p.Joined = true, awkJoined(code, lits)
	}
	return p
}

// awkRE is a regular expression compiled when first used.
func awkRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	// awkCmdRe finds the command strings of an awk program: system("…"),
	// "…" | getline, print … | "…"; awkOutRe the files of print > "…" and
	// awkInRe those of getline < "…".
	awkCmdRe = awkRE(`system\s*\(\s*"(\d+)"|"(\d+)"\s*\|&?\s*getline|[^|]\|&?\s*"(\d+)"`)
	awkOutRe = awkRE(`>>?\s*\(?\s*"(\d+)"`)
	awkInRe  = awkRE(`getline[^<;{}\n]*<\s*\(?\s*"(\d+)"`)
	// awkPrintShRe is print EXPR | "CMD" (group 1 the printed expression),
	// awkLitRe a literal in it
	awkPrintShRe = awkRE(`^printf?\b([^|]*)\|&?\s*"(\d+)"`)
	awkLitRe     = awkRE(`"(\d+)"`)
	// awkComputedCommand is a command an awk program builds at run time:
	// system( or a pipe whose command is not one literal.
	awkComputedCommand = awkRE(`system\s*\(\s*[^"\s)]|system\s*\(\s*"\d+"\s*[^\s)]|[^|]\|&?\s*[^"|\s]|[^"\s]\s*\|&?\s*getline`)
	// awkIncludesInplace matches a program that loads the in-place extension.
	awkIncludesInplace = awkRE(`@include\s*"inplace(\.awk)?"`)
)

// awkLex splits an awk program into code and string literals: each string
// becomes "N" (N indexes lits), each regex literal //, each comment is
// dropped. A " inside /"/ or # " does not start a string. ok is false when
// a string or regex does not end.
func awkLex(prog string) (code string, lits []string, ok bool) {
	var b strings.Builder
	prev := byte(0) // last significant code byte: decides / (divide or regex)
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		switch {
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
			prev = '\n'
		case c == '"':
			lit, end := awkString(prog, i+1)
			if end >= len(prog) {
				return "", nil, false
			}
			i = end
			b.WriteString(`"` + strconv.Itoa(len(lits)) + `"`)
			lits = append(lits, lit)
			prev = '"'
		case c == '/' && (!awkOperandEnd(prev) || awkRegexAfter(b.String())):
			if i = awkRegexEnd(prog, i+1); i < 0 {
				return "", nil, false
			}
			b.WriteString("//")
			prev = '/'
		default:
			b.WriteByte(c)
			if c != ' ' && c != '\t' {
				prev = c
			}
		}
	}
	return b.String(), lits, true
}

// awkString reads a string literal from i, just after its opening quote:
// its text, and the index of its closing quote (len(prog) when it has none).
func awkString(prog string, i int) (string, int) {
	var lit strings.Builder
	for ; i < len(prog) && prog[i] != '"'; i++ {
		if prog[i] == '\\' && i+1 < len(prog) {
			i++
		}
		lit.WriteByte(prog[i])
	}
	return lit.String(), i
}

// awkRegexEnd finds the / that closes a regex literal begun just before
// i, -1 when the line or the program ends first.
func awkRegexEnd(prog string, i int) int {
	class := false
	for ; i < len(prog) && (prog[i] != '/' || class); i++ {
		switch prog[i] {
		case '\\':
			i++
		case '[':
			class = true
		case ']':
			class = false
		case '\n':
			return -1
		}
	}
	if i >= len(prog) {
		return -1
	}
	return i
}

// awkOperandEnd reports a byte after which / divides: a name, a number, a
// closing bracket, a string or regex.
func awkOperandEnd(c byte) bool {
	return c == '_' || c == ')' || c == ']' || c == '$' || c == '"' || c == '/' ||
		c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// awkRegexAfter reports code ending in a keyword after which / starts a
// regex (print /x/), not a division.
func awkRegexAfter(code string) bool {
	code = strings.TrimRight(code, " \t")
	j := len(code)
	for j > 0 && (code[j-1] == '_' || code[j-1] >= 'a' && code[j-1] <= 'z') {
		j--
	}
	switch code[j:] {
	case "print", "printf", "return", "in", "case", "getline":
		return true
	}
	return false
}

// awkStrings returns the string literals of an awk program, for one that
// does not lex.
func awkStrings(prog string) []string {
	var out []string
	for i := 0; i < len(prog); i++ {
		if prog[i] != '"' {
			continue
		}
		var lit string
		lit, i = awkString(prog, i+1)
		out = append(out, lit)
	}
	return out
}

// awkJoined puts the literals back into lexed awk code, quoted, so that
// the ones awk concatenates ("r" "m") can be joined.
func awkJoined(code string, lits []string) string {
	return awkLitRe().ReplaceAllStringFunc(code, func(m string) string {
		n, err := strconv.Atoi(strings.Trim(m, `"`))
		if err != nil || n >= len(lits) || strings.ContainsRune(lits[n], '"') {
			return `""`
		}
		return `"` + lits[n] + `"`
	})
}

// awkEffects lists what a lexed awk program runs, writes and reads by
// literal name.
func awkEffects(code string, lits []string, isShell func(string) bool) Effects {
	var eff Effects
	lit := func(m []string) string {
		for _, g := range m[1:] {
			if g != "" {
				n, _ := strconv.Atoi(g)
				return lits[n]
			}
		}
		return ""
	}
	for _, m := range awkCmdRe().FindAllStringSubmatch(code, 16) {
		eff.Runs = append(eff.Runs, lit(m))
	}
	for _, stmt := range awkStatements(code) {
		k := strings.Index(stmt, "print")
		if k < 0 {
			continue
		}
		for _, m := range awkOutRe().FindAllStringSubmatch(stmt[k:], 4) {
			eff.Writes = append(eff.Writes, lit(m))
		}
		// print "CMD" | "sh": what is printed is the shell's script
		if m := awkPrintShRe().FindStringSubmatch(stmt[k:]); m != nil {
			if sh := strings.Fields(lit([]string{"", m[2]})); len(sh) > 0 && isShell(path.Base(sh[0])) {
				var printed strings.Builder
				for _, p := range awkLitRe().FindAllStringSubmatch(m[1], 8) {
					printed.WriteString(lit(p))
				}
				eff.Runs = append(eff.Runs, printed.String())
			}
		}
	}
	for _, m := range awkInRe().FindAllStringSubmatch(code, 16) {
		eff.Reads = append(eff.Reads, lit(m))
	}
	return eff
}
