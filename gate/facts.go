// facts.go holds what the walk finds: the facts of a call (exec, read,
// write, delete, network, env) with their reasons, and the analyzer that
// collects them.

package gate

import (
	"github.com/perm-peer/perm-peer/protocol"
	"mvdan.cc/sh/v3/syntax"
)

// rfact is a fact under analysis: what it is, what the gate's own classes
// say about it (floor, human-only, intrinsic ask, known-safe), and finally
// the decision.
type rfact struct {
	kind     protocol.FactKind
	argv     []string
	static   int    // number of leading argv words that are not dynamic
	pathExec bool   // argv[0] is a path, not a bare name
	namesake string // the program argv[0] is another name of (grm is rm)
	wrapper  bool   // allow rules need more than the wrapper's name
	path     pathRef
	host     string
	tool     string
	detail   string
	listOnly bool   // a listing (ls, find roots): names, not contents
	line     string // argv joined, for Bash rules (computed once)
	cwd      string // where an exec fact runs ("" when unknown)
	port     string // a network fact's port, when known

	floor, human, ask, safe *protocol.Reason
	// ruleClears: a user's allow rule that names this very command clears
	// its human-only class (Bash(sudo apt-get update)): a rule is a
	// person's decision, which auto mode and the judge are not
	ruleClears bool
	// clearWord: a user's allow rule whose literal words include it clears
	// the human-only class (Bash(git rebase:*) clears git rebase's
	// history rewrite); a wildcard (Bash(git:*), Bash(*)) never does
	clearWord string
	// byHostRule: an allow rule of the host's own settings cleared it
	// (Policy.hostAllow); it covers none of the facts below it
	byHostRule bool
	open       *protocol.Reason // why it asks when nothing covers it
	parent     int              // exec fact that owns this one (-1: none)

	dec       protocol.Decision
	by        protocol.DecidedBy
	reason    *protocol.Reason
	risk      protocol.Risk
	humanOnly bool
}

func reason(code, detail string) *protocol.Reason {
	return &protocol.Reason{Code: code, Detail: detail}
}

// analyzer holds the state of one Analyze call.
type analyzer struct {
	realDirs map[string]string // realDir's answers in this call
	// cdpath: the call sets CDPATH, so a relative cd may land anywhere
	cdpath bool
	// typedInput: the text being read was typed into a process (a
	// terminal tool's input), which may be a REPL rather than a shell
	typedInput bool
	// typedSplit: typedLines is reading the lines of typed text
	typedSplit bool
	env        *Env
	pol        *Policy
	facts      []*rfact
	prot       []string
	funcs      map[string]*syntax.Stmt
	noFunc     bool            // the next exec is a command/builtin/exec inner command, which skips functions
	taint      map[string]bool // variables assigned from a secret
	secrets    map[string]bool // variables assigned a secret variable's value (x=$GITHUB_TOKEN)
	// secretParts: variables assigned a cut or rewritten secret (see cutsValue)
	secretParts map[string]bool
	vals        map[string]*varVals
	// envVals are dynamic words' values as the peer's environment expands
	// them, by the word's value as written (see envWord)
	envVals map[string][]string
	// listVars are loop variables holding one name from a project listing
	// (for f in $(git ls-files '*.go'), … | while read f): that listing's
	// projPaths, cleanPaths and secretPaths
	listVars map[string]word
	arrays   map[string][]word // a=(…) with known elements
	aliases  map[string]string // alias NAME=VALUE defined in this call
	refs     map[string]string // declare -n NAME=TARGET: assigning NAME assigns TARGET
	// allexport: set -a, so variables builtins assign reach children too
	allexport bool
	// secretEnv: the call loaded a secret file into its variables (source
	// .env, export $(cat .env)): a variable it did not set may hold a secret
	secretEnv bool
	// guessing: a runner's words are being tried as the command it runs
	// (strace -o LOG CMD): a word taken for a program is only a guess
	guessing bool
	coprocs  map[string]summary // coproc NAME …: what writing to ${NAME[1]} feeds
	written  map[string]string  // files this call wrote known text to (echo cmd > x.sh)
	// pendingStdin is what feeds the next simple command's stdin (a here-doc,
	// a here-string, the previous pipeline stage); stdin is that of the
	// command being analysed, read by shells and xargs.
	pendingStdin, stdin *stdinSrc
	tainted             map[string]bool // files written from a secret
	fetched             map[string]bool // files written by a downloader in this call
	depth               int
	nodes               int
	owner               int  // fact that owns commands parsed from a wrapper's string (-1: none)
	simple              int  // simple commands seen
	noAlways            bool // an interpreter, shell, wrapper or function is involved

	// fdText is what reading fd N gives after exec N<<<TEXT, exec N<<EOF or
	// exec N< <(…): bash <&3, or any later reader of fd 0
	fdText map[string]*stdinSrc
	shadow bool // trying a dynamic command name as each dangerous command
	// fileSearches are the hidden-file facts of recursive searches whose
	// operands are all regular files (grep -rn redis docker-compose.yml),
	// or whose scope the gate walked and found no sensitive file in, each
	// with the reason it is safe
	fileSearches []clearedSearch
}

func (a *analyzer) add(f *rfact) int {
	a.facts = append(a.facts, f)
	return len(a.facts) - 1
}

// opaque records something the gate cannot see into; it always asks.
func (a *analyzer) opaque(code, detail string, humanOnly bool) int {
	a.noAlways = true
	f := &rfact{kind: protocol.FactOpaque, detail: detail, parent: -1}
	if humanOnly {
		f.human = reason(code, detail)
	} else {
		f.ask = reason(code, detail)
	}
	return a.add(f)
}

func (a *analyzer) floorFact(code, detail string) {
	a.add(&rfact{kind: protocol.FactOpaque, detail: detail, parent: -1, floor: reason(code, detail)})
}

func (a *analyzer) humanFact(code, detail string) {
	a.noAlways = true
	a.add(&rfact{kind: protocol.FactOpaque, detail: detail, parent: -1, human: reason(code, detail)})
}
