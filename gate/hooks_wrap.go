package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// wrapCall is a call of a wrapper the table declares (cmds/wrappers.go):
// the hooks that find the command it runs are its methods.
type wrapCall struct {
	a    *analyzer
	f    *rfact
	idx  int
	w    *cmds.Wrapper
	args []word
	sc   *scope
}

// transparent wrappers change how a command runs, not what it can do: the
// table says which words are theirs (options, operands of their own), the
// rest is the command, which is analysed.
func (c *wrapCall) transparent() summary {
	a, f, idx, w, args, sc := c.a, c.f, c.idx, c.w, c.args, c.sc
	lb := w.Name
	f.wrapper = true
	f.safe = reason("gate.wrapper", lb+" runs the inner command, which is analysed")
	i := skipOpts(args, w.Values, w.Long)
	switch {
	case w.Runner != nil:
		var done bool
		if i, done = c.runnerProgram(); done {
			return summary{}
		}
	case w.Operands:
		i = 0
	case w.Hook == "emulate":
		for j, v := range args {
			if v.val == "-c" && j+1 < len(args) {
				return a.shellString(f, args[j+1], sc, idx)
			}
		}
		f.wrapper = false
		f.safe = reason("gate.safe", "emulate sets shell options")
		return summary{}
	case w.Hook == "flock":
		if s, done := c.flock(i); done {
			return s
		}
	case w.Hook == "watch":
		if i < len(args) && !hasFlag(args[:i], "-x", "--exec") {
			parts := make([]string, 0, len(args)-i)
			for _, v := range args[i:] {
				if v.dyn {
					f.safe = nil
					f.human = reason("human.eval-opaque", "watch of a string only known at run time")
				}
				parts = append(parts, v.val)
			}
			return a.reparse(strings.Join(parts, " "), sc, idx)
		}
	case w.Hook == "xargs":
		return a.xargs(f, idx, args, sc)
	}
	if hasFlag(args[:i], w.LooksUp...) {
		f.wrapper = false
		f.safe = reason("gate.safe", lb+" -v only looks a name up")
		return summary{}
	}
	if hasFlag(args[:i], w.Process...) || w.ProcessLetters != "" && hasShort(args[:i], w.ProcessLetters) {
		return noInner(f, lb)
	}
	for j, v := range args[:i] {
		if slices.Contains(w.Output, v.val) && j+1 < len(args) {
			a.writeFact(a.pathWord(args[j+1], sc, true), idx) // time -o FILE
		}
	}
	i += w.Lead
	if i >= len(args) {
		if w.Bare {
			return summary{}
		}
		f.safe = nil
		f.ask = reason("ask.wrapper", lb+" without a command the gate can find")
		return summary{}
	}
	a.noFunc = w.SkipsFuncs
	return a.inner(args[i:], sc, idx)
}

// runnerProgram finds where the program of a runner the table reads
// starts (arch -arm64 PROG, setarch ARCH -R PROG); without one, arch
// prints the machine and setarch starts a shell (done: f says so).
func (c *wrapCall) runnerProgram() (prog int, done bool) {
	a, f, r, lb, args, sc := c.a, c.f, c.w.Runner, c.w.Name, c.args, c.sc
	prog, unknown := r.Program(len(args), wordAt(args))
	for j := range args[:prog] {
		if n, val, ok := strings.Cut(args[j].val, "="); j > 0 && slices.Contains(r.Env, args[j-1].val) && (!ok || args[j].dyn || riskyEnv(n, val, true)) {
			a.add(&rfact{kind: protocol.FactEnv, detail: clip(args[j].val, 80), parent: -1, ask: reason("ask.env-prefix", lb+" sets "+n+", which changes what the command runs")})
			a.envCommand(n, val, sc)
		}
	}
	switch {
	case prog >= len(args) && !r.Shell && unknown == "":
		f.wrapper = false
		f.safe = reason("gate.safe", lb+" prints the machine's architecture")
		return prog, true
	case prog >= len(args):
		f.safe, f.wrapper = nil, false
		f.ask = reason("ask.unknown-command", lb+" without a program the gate can find")
		return prog, true
	case unknown != "":
		f.safe = nil
		f.ask = reason("ask.flag", lb+" "+unknown+" is a flag the gate does not know")
	}
	return prog, false
}

// flock FILE CMD writes (creates) FILE, the operand at i; flock FILE -c
// CMD, and -c CMD before FILE (getopt permutes), run CMD with the shell.
// done: s is the call's summary.
func (c *wrapCall) flock(i int) (s summary, done bool) {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	for j, w := range args {
		if w.val == "--" {
			break
		}
		if (w.val == "-c" || w.val == "--command") && j+1 < len(args) {
			for _, x := range append(slices.Clone(args[:j]), args[j+2:]...) {
				if !strings.HasPrefix(x.val, "-") {
					a.writeFact(a.pathWord(x, sc, true), idx)
					break
				}
			}
			return a.shellString(f, args[j+1], sc, idx), true
		}
	}
	if i < len(args) {
		a.writeFact(a.pathWord(args[i], sc, true), idx)
		i++
	}
	for j := i; j < len(args); j++ {
		if args[j].val == "-c" || args[j].val == "--command" {
			if j+1 < len(args) {
				return a.shellString(f, args[j+1], sc, idx), true
			}
			return summary{}, true
		}
	}
	return summary{}, false
}
