package hook

import (
	"reflect"
	"strings"
	"testing"
)

// TestGeminiShellRule: a tools.allowed entry becomes the gate's
// Bash(PREFIX:*) only when PREFIX is plain words Gemini and the gate read
// alike; anything else is dropped, never widened.
func TestGeminiShellRule(t *testing.T) {
	cases := []struct{ entry, want string }{
		{"run_shell_command(git rebase)", "Bash(git rebase:*)"},
		{"ShellTool(npx create-vite@5 app)", "Bash(npx create-vite@5 app:*)"},
		{"run_shell_command(sudo apt-get update)", "Bash(sudo apt-get update:*)"},
		{"run_shell_command(FOO=1 make)", "Bash(FOO=1 make:*)"},
		{"run_shell_command", ""},
		{"run_shell_command()", ""},
		{"run_shell_command(git *)", ""},
		{"run_shell_command(git rebase:*)", ""},
		{"run_shell_command(git  rebase)", ""},
		{"run_shell_command( git rebase)", ""},
		{"run_shell_command(git\trebase)", ""},
		{"run_shell_command(git commit -m \"x\")", ""},
		{"run_shell_command(rm ~/x)", ""},
		{"run_shell_command(echo $HOME)", ""},
		{"run_shell_command(ls; rm)", ""},
		{"run_shell_command(ls|sh)", ""},
		{"read_file(git rebase)", ""},
		{"Bash(git rebase:*)", ""},
	}
	for _, c := range cases {
		got, ok := geminiShellRule(c.entry)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%q: %q %v, want %q", c.entry, got, ok, c.want)
		}
	}
}

// TestGeminiPolicyRead: a Gemini policy file of plain [[rule]] tables
// gives one gate rule per shell command prefix an unrestricted allow rule
// names; a rule narrowed to a mode, a run, a subagent or a regex gives
// none; a file Gemini's schema would refuse, or that is more than plain
// tables, is left out whole.
func TestGeminiPolicyRead(t *testing.T) {
	const rebase = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git rebase\"\ndecision = \"allow\"\npriority = 100\n"
	cases := []struct {
		name, text string
		want       []string
		wantErr    bool
	}{
		{name: "one rule", text: rebase, want: []string{"Bash(git rebase:*)"}},
		{name: "list, literal strings, comments", text: "# mine\n[[rule]]\ntoolName = 'run_shell_command' # shell\ncommandPrefix = [\"git rebase\", 'git commit --amend']\ndecision = \"allow\"\npriority = 0\nallowRedirection = true\n",
			want: []string{"Bash(git rebase:*)", "Bash(git commit --amend:*)"}},
		{name: "deny and ask_user", text: strings.Replace(rebase, `"allow"`, `"deny"`, 1) + strings.Replace(rebase, `"allow"`, `"ask_user"`, 1)},
		{name: "every command", text: "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 1\n"},
		{name: "other tool", text: "[[rule]]\ntoolName = \"read_file\"\ndecision = \"allow\"\npriority = 1\n"},
		{name: "modes", text: rebase + "modes = [\"yolo\"]\n"},
		{name: "interactive", text: rebase + "interactive = false\n"},
		{name: "regex", text: "[[rule]]\ntoolName = \"run_shell_command\"\ncommandRegex = \"git rebase.*\"\ndecision = \"allow\"\npriority = 1\n"},
		{name: "wildcard word", text: strings.Replace(rebase, `"git rebase"`, `"git reb*"`, 1)},
		{name: "no priority", text: strings.Replace(rebase, "priority = 100\n", "", 1), wantErr: true},
		{name: "priority too high", text: strings.Replace(rebase, "100", "1000", 1), wantErr: true},
		{name: "unknown decision", text: strings.Replace(rebase, `"allow"`, `"yes"`, 1), wantErr: true},
		{name: "unknown key", text: rebase + "color = \"red\"\n", wantErr: true},
		{name: "twice", text: rebase + "decision = \"allow\"\n", wantErr: true},
		{name: "escape", text: strings.Replace(rebase, `"git rebase"`, `"git re\u0062ase"`, 1), wantErr: true},
		{name: "checker table", text: rebase + "[[safety_checker]]\ntoolName = \"x\"\n", wantErr: true},
		{name: "sub-table", text: rebase + "[rule.toolAnnotations]\nreadOnlyHint = true\n", wantErr: true},
		{name: "dotted key", text: rebase + "tool.name = \"x\"\n", wantErr: true},
		{name: "top-level key", text: "decision = \"allow\"\n" + rebase, wantErr: true},
		{name: "multi-line list", text: strings.Replace(rebase, `"git rebase"`, "[\n\"git rebase\"\n]", 1), wantErr: true},
	}
	for _, c := range cases {
		tables, err := parsePolicyTables(c.text)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: err %v, want error %v", c.name, err, c.wantErr)
			continue
		}
		var got []string
		for i, tb := range tables {
			got = append(got, tb.shellAllowRules("test.toml", i)...)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
