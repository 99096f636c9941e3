package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
)

// codeRunner analyses a program that runs shell strings it is given
// (cmds.Code): the values of its flags of role Run, and its operands as
// its entry's CodeOperands says. It runs them again and again, on its own
// schedule, so it asks whatever they are; a floor inside them denies.
func (c *wrapCall) codeRunner() summary {
	a, f, idx, w, args, sc := c.a, c.f, c.idx, c.w, c.args, c.sc
	a.noAlways = true
	f.wrapper = true
	f.open = reason("ask.runner", w.Name+" runs shell commands it is given")
	inv := parseArgs(w.Opts, args)
	var s summary
	for _, u := range inv.Uses {
		v, has := valueWord(args, u)
		switch {
		case !has:
		case u.Flag.Role == argv.Run:
			s.or(a.shellString(f, v, sc, idx))
		case u.Flag.Role == argv.Write && v.val != "":
			a.writeFact(a.resolveMaybe(v, v.val, sc, true), idx)
		}
	}
	switch ops := inv.Operands; {
	case len(ops) == 0, w.CodeOperands == cmds.NotCode:
	case w.CodeOperands == cmds.JoinedString:
		s.or(a.shellString(f, joinWords(args[ops[0]:]), sc, idx))
	default:
		for _, i := range ops {
			s.or(a.shellString(f, args[i], sc, idx))
		}
	}
	return s
}

// joinWords is the one string words join into, with spaces, as a runner
// that hands its words to $SHELL -c builds it; dyn when any word is only
// known at run time.
func joinWords(ws []word) word {
	parts := make([]string, len(ws))
	out := word{}
	for i, w := range ws {
		parts[i] = w.val
		out.dyn = out.dyn || w.dyn
	}
	out.val = strings.Join(parts, " ")
	return out
}
