// state.go holds the state of one Analyze call: the shell's state as the
// walk goes, and the fact log with the places its paths are judged against.

package gate

import "mvdan.cc/sh/v3/syntax"

// places is what the paths of one call are judged against: the peer's
// environment (home, cwd, project, its variables), the policy's sensitive
// globs, perm-peer's own files, and what the call itself made of files and
// words so far. Resolving, classifying and guarding a path needs this and
// nothing of the shell's state.
type places struct {
	env      *Env
	pol      *Policy
	prot     ownPaths          // protected()'s answer, once computed
	realDirs map[string]string // realDir's answers in this call
	tainted  map[string]bool   // files written from a secret
	fetched  map[string]bool   // files written by a downloader in this call
	// envVals are dynamic words' values as the peer's environment expands
	// them, by the word's value as written (see noteEnvWord)
	envVals map[string][]string
}

// factLog is what the walk found: the facts of one call, recorded and
// decided by paths (places), whatever shell state led to them.
type factLog struct {
	places
	facts    []*rfact
	noAlways bool // an interpreter, shell, wrapper or function is involved
	simple   int  // simple commands seen (always offers a pattern for one)
	// fileSearches are the hidden-file facts of recursive searches whose
	// operands are all regular files (grep -rn redis docker-compose.yml),
	// or whose scope the gate walked and found no sensitive file in, each
	// with the reason it is safe
	fileSearches []clearedSearch
}

// shellState is what the call's shell knows as the walk goes: its
// variables (their values, which hold secrets or a listing's names),
// arrays, name references, aliases, functions, coprocesses, the text on
// its fds and in the files it wrote.
type shellState struct {
	// cdpath: the call sets CDPATH, so a relative cd may land anywhere
	cdpath  bool
	funcs   map[string]*syntax.Stmt
	taint   map[string]bool // variables assigned from a secret
	secrets map[string]bool // variables assigned a secret variable's value (x=$GITHUB_TOKEN)
	// secretParts: variables assigned a cut or rewritten secret (see cutsValue)
	secretParts map[string]bool
	vals        map[string]*varVals
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
	coprocs   map[string]summary // coproc NAME …: what writing to ${NAME[1]} feeds
	written   map[string]string  // files this call wrote known text to (echo cmd > x.sh)
	// fdText is what reading fd N gives after exec N<<<TEXT, exec N<<EOF or
	// exec N< <(…): bash <&3, or any later reader of fd 0
	fdText map[string]*stdinSrc
	// listings are the files this call wrote a listing to that may name
	// secrets (find ~ -name '*.pem' > l), by absolute path: xargs cat < l,
	// xargs -a l cat read those names
	listings map[string]*stdinSrc
}

// analyzer holds the state of one Analyze call: the shell's state and the
// facts it logs, and where the walk is. Both are embedded so the walk and
// the hooks say a.readWord, a.vals as before; the methods of each see
// nothing of the other.
type analyzer struct {
	factLog
	shellState
	// typedInput: the text being read was typed into a process (a
	// terminal tool's input), which may be a REPL rather than a shell
	typedInput bool
	// typedSplit: typedLines is reading the lines of typed text
	typedSplit bool
	noFunc     bool // the next exec is a command/builtin/exec inner command, which skips functions
	// guessing: a runner's words are being tried as the command it runs
	// (strace -o LOG CMD): a word taken for a program is only a guess
	guessing bool
	// pendingStdin is what feeds the next simple command's stdin (a here-doc,
	// a here-string, the previous pipeline stage); stdin is that of the
	// command being analysed, read by shells and xargs.
	pendingStdin, stdin *stdinSrc
	depth               int
	nodes               int
	owner               int  // fact that owns commands parsed from a wrapper's string (-1: none)
	shadow              bool // trying a dynamic command name as each dangerous command
}
