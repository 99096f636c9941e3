package hook

import (
	"reflect"
	"testing"
)

// TestCodexRulesRead: a rules file of literal prefix_rule calls (what
// Codex's "always allow" writes, and the documented hand-written form)
// gives one gate rule per allowed prefix; prompt and forbidden rules give
// none; a file with anything perm-peer cannot vouch for is left out whole.
func TestCodexRulesRead(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
		wantErr    bool
	}{
		{name: "written by codex", text: `prefix_rule(pattern=["git","rebase"], decision="allow")` + "\n" + `prefix_rule(pattern=["sudo","apt-get","update"], decision="allow")`,
			want: []string{"Bash(git rebase:*)", "Bash(sudo apt-get update:*)"}},
		{name: "default decision, comments, trailing commas", text: "# mine\nprefix_rule(\n    pattern = ['git', 'commit', '--amend'],  # amend\n    justification = \"fixups\",\n)\n",
			want: []string{"Bash(git commit --amend:*)"}},
		{name: "alternatives", text: `prefix_rule(pattern=["git", ["rebase", "commit"]], decision="allow")`,
			want: []string{"Bash(git rebase:*)", "Bash(git commit:*)"}},
		{name: "prompt and forbidden", text: `prefix_rule(pattern=["git","rebase"], decision="prompt")` + "\n" + `prefix_rule(pattern=["git","push"], decision="forbidden")`},
		{name: "token the gate would widen", text: `prefix_rule(pattern=["git","reb*"])` + "\n" + `prefix_rule(pattern=["sudo","apt-get update"])` + "\n" + `prefix_rule(pattern=["npx","x"])`,
			want: []string{"Bash(npx x:*)"}},
		{name: "match examples", text: `prefix_rule(pattern=["git","rebase"], match=["git rebase main"])`, wantErr: true},
		{name: "unknown decision", text: `prefix_rule(pattern=["git","rebase"], decision="yes")`, wantErr: true},
		{name: "variable", text: "P = [\"git\", \"rebase\"]\nprefix_rule(pattern=P)", wantErr: true},
		{name: "other function", text: `host_executable(name="git", paths=["/usr/bin/git"])`, wantErr: true},
		{name: "escape", text: `prefix_rule(pattern=["git","re\x62ase"])`, wantErr: true},
		{name: "raw string", text: `prefix_rule(pattern=[r"git","rebase"])`, wantErr: true},
		{name: "program alternatives", text: `prefix_rule(pattern=[["git","hg"],"rebase"])`, wantErr: true},
		{name: "positional", text: `prefix_rule(["git","rebase"])`, wantErr: true},
		{name: "twice", text: `prefix_rule(pattern=["git"], pattern=["git","rebase"])`, wantErr: true},
		{name: "no pattern", text: `prefix_rule(decision="allow")`, wantErr: true},
		{name: "unclosed", text: `prefix_rule(pattern=["git","rebase"]`, wantErr: true},
		{name: "loop", text: "for p in [\"rebase\"]:\n    prefix_rule(pattern=[\"git\", p])", wantErr: true},
	}
	for _, c := range cases {
		calls, err := parseCodexRules(c.text)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: err %v, want error %v", c.name, err, c.wantErr)
			continue
		}
		var got []string
		for _, r := range calls {
			got = append(got, r.allowRules("test.rules")...)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
