package scripts

import "strings"

// Sed reads a sed script. safe: it only reads its input and prints, with
// no command that writes files (w, W, s///w), runs commands (e, s///e) or
// reads other files (r, R); a script it cannot parse is not safe. The
// effects name what those commands write, run and read.
//
//	Sed("s/a/b/g")      → true, {}
//	Sed("1e id")        → false, {Runs: [id]}
//	Sed("s/x/y/w out")  → false, {Writes: [out]}
func Sed(script string) (safe bool, eff Effects) {
	p := sedParser{s: script, safe: true}
	for p.i < len(p.s) {
		p.skipSpace()
		if p.i >= len(p.s) {
			break
		}
		if c := p.s[p.i]; c == ';' || c == '\n' || c == '}' || c == '{' {
			p.i++
			continue
		}
		if !p.addresses() || !p.command() {
			return false, p.eff
		}
	}
	return p.safe, p.eff
}

// sedParser is a position in a sed script and what was found so far.
type sedParser struct {
	s    string
	i    int
	safe bool
	eff  Effects
}

// restOfLine is the operand of w, r, e: the rest of the line.
func (p *sedParser) restOfLine() string {
	j := p.i
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
	return strings.TrimLeft(p.s[j:p.i], " \t")
}

func (p *sedParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// skipTo moves to the next byte of stops, or to the end.
func (p *sedParser) skipTo(stops string) {
	for p.i < len(p.s) && strings.IndexByte(stops, p.s[p.i]) < 0 {
		p.i++
	}
}

// delimited reads a /regex/-style operand after its opening delimiter d.
func (p *sedParser) delimited(d byte) bool {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '\n':
			return false
		}
		if p.s[p.i] == d {
			p.i++
			return true
		}
		p.i++
	}
	return false
}

// address reads one address, if there is one: a line number (first~step),
// $, /regex/ or \cregexc, with its I and M flags.
func (p *sedParser) address() bool {
	s := p.s
	switch {
	case p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9':
		for p.i < len(s) && (s[p.i] >= '0' && s[p.i] <= '9' || s[p.i] == '~') {
			p.i++
		}
	case p.i < len(s) && s[p.i] == '$':
		p.i++
	case p.i < len(s) && s[p.i] == '/':
		p.i++
		if !p.delimited('/') {
			return false
		}
	case p.i+1 < len(s) && s[p.i] == '\\':
		d := s[p.i+1]
		p.i += 2
		if !p.delimited(d) {
			return false
		}
	default:
		return true
	}
	for p.i < len(s) && (s[p.i] == 'I' || s[p.i] == 'M') {
		p.i++
	}
	return true
}

// addresses reads a command's addresses (A, A,B, A,+N) and its negations.
func (p *sedParser) addresses() bool {
	if !p.address() {
		return false
	}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ',' {
		p.i++
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '+' {
			p.i++
		}
		if !p.address() {
			return false
		}
	}
	p.skipSpace()
	for p.i < len(p.s) && p.s[p.i] == '!' {
		p.i++
		p.skipSpace()
	}
	return true
}

// command reads one command after its addresses.
func (p *sedParser) command() bool {
	if p.i >= len(p.s) {
		return false
	}
	cmd := p.s[p.i]
	p.i++
	switch cmd {
	case 'w', 'W', 'e', 'r', 'R':
		p.safe = false
		switch arg := p.restOfLine(); {
		case cmd == 'e' && arg != "":
			p.eff.Runs = append(p.eff.Runs, arg)
		case cmd == 'w' || cmd == 'W':
			p.eff.Writes = append(p.eff.Writes, arg)
		case cmd == 'r' || cmd == 'R':
			p.eff.Reads = append(p.eff.Reads, arg)
		}
	case '{', '}', ';', '\n':
	case 's', 'y':
		return p.substitute(cmd)
	case 'a', 'i', 'c', '#':
		p.skipTo("\n")
	case ':', 'b', 't', 'T', 'q', 'Q', 'l', 'L':
		p.skipTo(";\n}")
	case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F':
	default:
		return false
	}
	return true
}

// substitute reads s/PATTERN/REPLACEMENT/FLAGS and y/SRC/DST/ after the
// command letter cmd: two delimited operands, then s's flags, of which e
// runs the pattern space (the replacement is what is known of it) and w
// writes the rest of the line.
func (p *sedParser) substitute(cmd byte) bool {
	if p.i >= len(p.s) {
		return false
	}
	d := p.s[p.i]
	p.i++
	if !p.delimited(d) {
		return false
	}
	repl := p.i
	if !p.delimited(d) {
		return false
	}
	repl1 := p.i - 1
	for p.i < len(p.s) && p.s[p.i] != ';' && p.s[p.i] != '\n' && p.s[p.i] != '}' {
		if c := p.s[p.i]; cmd == 's' && strings.IndexByte("eEwW", c) >= 0 {
			p.safe = false
			if c == 'e' {
				p.eff.Runs = append(p.eff.Runs, p.s[repl:repl1])
			}
			if c == 'w' || c == 'W' {
				p.i++
				p.eff.Writes = append(p.eff.Writes, p.restOfLine())
				return true
			}
		}
		p.i++
	}
	return true
}
