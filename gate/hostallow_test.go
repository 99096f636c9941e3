package gate

import (
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestHostAllowClearsOnlyHumanOnly: an allow rule of the host's own
// settings clears a human-only class exactly where a policy allow rule
// naming it would (same words, wildcard never, project only), and nothing
// else: a plain ask stays an ask (the host's rule decides it), a floor
// stays a deny, and what the cleared command runs is not covered.
func TestHostAllowClearsOnlyHumanOnly(t *testing.T) {
	cases := []struct {
		host      []string
		command   string
		want      protocol.Decision
		humanOnly bool
	}{
		{[]string{"Bash(git rebase:*)"}, "git rebase origin/main", protocol.DecisionAllow, false},
		{[]string{"Bash(git commit --amend:*)"}, "git commit --amend --no-edit", protocol.DecisionAllow, false},
		{[]string{"Bash(git:*)"}, "git rebase origin/main", protocol.DecisionAsk, true},
		{[]string{"Bash(git *)"}, "git rebase origin/main", protocol.DecisionAsk, true},
		{[]string{"Bash(*)"}, "git rebase origin/main", protocol.DecisionAsk, true},
		{[]string{"Bash(git commit:*)"}, "git commit --amend --no-edit", protocol.DecisionAsk, true},
		{[]string{"Bash(git rebase:*)"}, "git reset --hard origin/main", protocol.DecisionAsk, true},
		{[]string{"Bash(git rebase:*)"}, "cd /tmp/other && git rebase origin/main", protocol.DecisionAsk, true},
		// as with a policy rule, a flag-policed variant keeps its plain ask
		{[]string{"Bash(git rebase:*)"}, "git -c core.editor=vi rebase origin/main", protocol.DecisionAsk, false},
		{[]string{"Bash(sudo apt-get update)"}, "sudo apt-get update", protocol.DecisionAsk, false},
		{[]string{"Bash(sudo:*)"}, "sudo apt-get update", protocol.DecisionAsk, true},
		// plain asks: the host's rule applies to them in the host, not here
		{[]string{"Bash(curl:*)"}, "curl https://example.com", protocol.DecisionAsk, false},
		{[]string{"Bash(git rebase:*)"}, "git rebase -x 'make test' origin/main", protocol.DecisionAsk, false},
		{[]string{"Bash(rm:*)"}, "rm -rf /", protocol.DecisionDeny, false},
		{[]string{"Bash(git rebase:*)"}, "git rebase --exec 'rm -rf ~' origin/main", protocol.DecisionDeny, false},
		{[]string{"WebFetch(domain:", "Bash(git rebase:*)"}, "git rebase origin/main", protocol.DecisionAllow, false},
		{nil, "git rebase origin/main", protocol.DecisionAsk, true},
	}
	for _, c := range cases {
		e := env(protocol.Policy{})
		e.Policy.AddHostAllow(c.host)
		v := Analyze(bash(c.command), e)
		if v.Decision != c.want || v.HumanOnly != c.humanOnly {
			t.Errorf("host %q, %s: %s humanOnly=%v (%+v), want %s humanOnly=%v", c.host, c.command, v.Decision, v.HumanOnly, v.Reasons, c.want, c.humanOnly)
		}
	}
}

// TestHostAllowVersusPolicyAllow pins the difference: the same rule in
// perm-peer's policy allows a plain ask and covers what the rebase runs;
// from the host's settings it does neither.
func TestHostAllowVersusPolicyAllow(t *testing.T) {
	for _, c := range []struct{ rule, command string }{
		{"Bash(curl:*)", "curl https://example.com"},
		{"Bash(git rebase:*)", "git rebase -x 'make test' origin/main"},
	} {
		if v := Analyze(bash(c.command), env(protocol.Policy{Allow: []string{c.rule}})); v.Decision != protocol.DecisionAllow {
			t.Errorf("policy %s, %s: %s, want allow", c.rule, c.command, v.Decision)
		}
		e := env(protocol.Policy{})
		e.Policy.AddHostAllow([]string{c.rule})
		if v := Analyze(bash(c.command), e); v.Decision != protocol.DecisionAsk {
			t.Errorf("host %s, %s: %s, want ask", c.rule, c.command, v.Decision)
		}
	}
}
