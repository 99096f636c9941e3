package gate

import (
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// alternative is a safer way to reach what a refused call was after,
// told to the agent with the refusal: one entry per reason code, the first
// whose condition holds wins.
type alternative struct {
	code string
	when func(protocol.Fact) bool // nil: always
	text string
}

var alternatives = []alternative{
	{"human.force-push", nil, "to replace a branch you pushed, use git push --force-with-lease (it refuses to overwrite commits you have not seen), and only after the user agreed"},
	{"human.history-rewrite", nil, "keep history: undo with a new commit (git revert) or git stash instead of reset --hard, clean -fdx or checkout -- ."},
	{"human.sensitive-read", isDotEnv, "read .env.example (or .env.sample) for the variable names; ask the user for a value you need"},
	{"human.sensitive-read", nil, "this file holds a secret: ask the user for what you need from it"},
	{"human.env-dump", nil, "print the one variable you need by name (echo \"$NAME\") rather than the whole environment"},
	{"floor.rm-root", nil, "delete only what you created, by name, inside the project; ask the user to remove anything else"},
	{"human.rm-unresolved", nil, "spell the path out: a variable that may be empty turns rm -rf $DIR/ into rm -rf /"},
	{"human.outside-write", nil, "write inside the project; ask the user to change files outside it"},
	{"human.system-write", nil, "ask the user to change system files"},
	{"human.privileged", nil, "run it without sudo, or ask the user to run it"},
	{"human.download-exec", nil, "download the script to a file, show it to the user, and run it only if they agree"},
	{"human.remote-code", nil, "add the package to the project's dependencies (and lockfile) instead of running it from the network"},
	{"floor.exfil", nil, "never send secrets over the network; ask the user"},
	{"floor.protected", nil, "perm-peer's policy, grants and log are the user's: ask them to change a rule (perm-peer allow / deny)"},
	{"human.persistence-write", nil, "this file changes what future runs execute or believe: propose the change to the user instead"},
	{"human.teardown", nil, "ask the user to tear down infrastructure; plan (terraform plan -destroy) to show what would go"},
	{"human.expose", nil, "bind to 127.0.0.1 instead of exposing the machine"},
}

func isDotEnv(f protocol.Fact) bool {
	base := strings.ToLower(filepath.Base(f.Path))
	return base == ".env" || strings.HasPrefix(base, ".env.")
}

// Alternative is a safer way to do what a refused call was after, for the
// agent's feedback ("" when the gate knows none). It reads the facts that
// refused or held the call.
func Alternative(v Verdict) string {
	for _, a := range alternatives {
		for _, f := range v.Facts {
			if f.Reason == nil || f.Reason.Code != a.code || (f.Decision != protocol.DecisionDeny && !f.HumanOnly) {
				continue
			}
			if a.when == nil || a.when(f) {
				return a.text
			}
		}
	}
	return ""
}
