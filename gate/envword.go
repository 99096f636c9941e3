package gate

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unknownPart stands for an expansion envExpansion cannot know.
const unknownPart = "$?"

// noteEnvWord records how the peer's environment spells a dynamic word
// (envExpansion) when that differs from its value as written, for the checks
// of perm-peer's own files: "${XDG_CONFIG_HOME:-$HOME/.config}/perm-peer/x"
// is written $XDG_CONFIG_HOME/perm-peer/x but is ~/.config/perm-peer/x
// where the variable is unset. Only stricter answers come from it: the
// agent's shell may not share the peer's environment.
func (pl *places) noteEnvWord(vals map[string]*varVals, w *syntax.Word, val string, sc *scope) {
	var b strings.Builder
	if (envExpansion{pl.env, vals}).word(w.Parts, sc, &b, true, false) == 0 {
		return
	}
	pl.addEnvVal(val, b.String())
}

// addEnvVal records s as a spelling of the dynamic value val.
func (pl *places) addEnvVal(val, s string) {
	if s == val || len(pl.envVals[val]) >= maxAlts || slices.Contains(pl.envVals[val], s) {
		return
	}
	if pl.envVals == nil {
		pl.envVals = map[string][]string{}
	}
	pl.envVals[val] = append(pl.envVals[val], s)
}

// envSuffix gives part, the end of a dynamic word's value val that names a
// file (dd of=$X, --output=$X), the spellings val's have.
func (pl *places) envSuffix(val, part string) {
	pre, ok := strings.CutSuffix(val, part)
	if !ok || pre == "" || strings.Contains(pre, "$") {
		return
	}
	for _, s := range pl.envVals[val] {
		if rest, ok := strings.CutPrefix(s, pre); ok {
			pl.addEnvVal(part, rest)
		}
	}
}

// hasParamExp reports a word with a parameter expansion (or in its quotes).
func hasParamExp(parts []syntax.WordPart) bool {
	return hasPart(parts, func(p syntax.WordPart) bool { _, ok := p.(*syntax.ParamExp); return ok })
}

// envExpansion expands words as the shell would in the peer's
// environment, with the one value the call gave a variable where it gave
// one (vals).
type envExpansion struct {
	env  *Env
	vals map[string]*varVals
}

// word writes the value of parts as the shell would expand them in the
// peer's environment, unknownPart for what it cannot know (command
// substitutions, variables the call set to unknown values). It returns the
// number of variables it resolved.
func (x envExpansion) word(parts []syntax.WordPart, sc *scope, b *strings.Builder, first, quoted bool) int {
	n := 0
	for i, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(litValue(p.Value, x.env.Home, first && i == 0, quoted))
		case *syntax.SglQuoted:
			b.WriteString(sglText(p))
		case *syntax.DblQuoted:
			n += x.word(p.Parts, sc, b, first && i == 0, true)
		case *syntax.ParamExp:
			n += x.param(p, sc, b, quoted)
		default:
			b.WriteString(unknownPart)
		}
	}
	return n
}

// param writes one parameter expansion's value (see word): $X,
// ${X}, and ${X-d} ${X:-d} ${X=d} ${X:=d} ${X+d} ${X:+d} ${X?m} ${X:?m}
// the way bash reads them.
func (x envExpansion) param(p *syntax.ParamExp, sc *scope, b *strings.Builder, quoted bool) int {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	if p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || !validName(name) {
		b.WriteString(unknownPart)
		return 0
	}
	val, set := x.value(name, sc)
	if !set && val == unknownPart {
		b.WriteString(unknownPart)
		return 0
	}
	if p.Exp == nil {
		b.WriteString(val)
		return 1
	}
	useWord := false
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.AssignUnset:
		useWord = !set
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull:
		useWord = !set || val == ""
	case syntax.AlternateUnset:
		useWord, val = set, ""
	case syntax.AlternateUnsetOrNull:
		useWord, val = set && val != "", ""
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		// unset, the shell stops before the command runs
	default:
		b.WriteString(unknownPart)
		return 0
	}
	if !useWord {
		b.WriteString(val)
		return 1
	}
	if p.Exp.Word == nil {
		return 1
	}
	// bash expands a ~ that starts the word (of=${X:-~/x} too), but not in quotes
	return 1 + x.word(p.Exp.Word.Parts, sc, b, !quoted, quoted)
}

// value is a variable's value for word: the one value the call gave
// it, else the peer's environment's. set is false for an unset variable;
// a variable the call set to values the gate does not know is unknownPart.
func (x envExpansion) value(name string, sc *scope) (val string, set bool) {
	switch {
	case name == "PWD" && sc.cwd != "":
		return sc.cwd, true
	case x.vals[name] != nil:
		if v := x.vals[name]; len(v.vals) == 1 {
			return v.vals[0], true
		}
		return unknownPart, false
	}
	return x.env.getenv(name)
}

// validName reports a shell variable name (not $1, $@, $? …).
func validName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
