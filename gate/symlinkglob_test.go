package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestGlobThroughSymlinkedDirs checks SPEC §5.5's rule that a glob walks
// through its directories as the kernel resolves them (N2): with up -> ..
// in the project, rm -rf up/* is rm -rf ../*, whether the link is in the
// glob's literal part, matched by a directory pattern (u?/*, */*) or is
// the working directory itself, and for every tool shape.
func TestGlobThroughSymlinkedDirs(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	home := filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(proj, ".git", "hooks"), filepath.Join(proj, "src", "pkg"), filepath.Join(proj, "deep"),
		filepath.Join(home, "Documents"), filepath.Join(home, ".ssh"), filepath.Join(dir, "sibling")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for _, f := range []string{filepath.Join(proj, "src", "a.go"), filepath.Join(proj, "src", "pkg", "b.go"),
		filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(dir, "sibling", "notes.txt")} {
		require.NoError(t, os.WriteFile(f, []byte("x"), 0o600))
	}
	for link, target := range map[string]string{
		"up":      "..",                              // the directory holding the project
		"data":    home,                              // the home directory
		"deep/in": "../..",                           // relative, one level down
		"keys":    filepath.Join(home, ".ssh"),       // a secret directory
		"hooks":   filepath.Join(proj, ".git/hooks"), // a persistence directory
		"local":   "src",                             // a link that stays in the project
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(proj, link)))
	}
	e := Env{Project: proj, Cwd: proj, Home: home}
	at := func(cwd string) Env { x := e; x.Cwd = cwd; return x }
	acpDelete := func(p string) protocol.ToolCall {
		return protocol.ToolCall{Tool: "delete", Kind: protocol.KindDelete, Locations: []protocol.Location{{Path: p}}}
	}
	cases := []struct {
		name  string
		call  protocol.ToolCall
		env   Env
		want  protocol.Decision
		human bool
		code  string // a reason code the verdict must carry ("" = any)
	}{
		{"rm -rf up/*", bash("rm -rf up/*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf ./up/*", bash("rm -rf ./up/*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -r up/.*", bash("rm -r up/.*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf through a relative link below", bash("rm -rf deep/in/*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf of a directory pattern matching the link", bash("rm -rf u?/*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf */*", bash("rm -rf */*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf data/* (the home directory)", bash("rm -rf data/*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf data/D* (matches ~/Documents)", bash("rm -rf data/D*"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf ./* with the cwd a link to home", bash("rm -rf ./*"), at(filepath.Join(proj, "data")), protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf * with the cwd a link to the parent", bash("rm -rf *"), at(filepath.Join(proj, "up")), protocol.DecisionDeny, false, "floor.rm-root"},
		{"cd up && rm -rf *", bash("cd up && rm -rf *"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"rm -rf of a pattern in the parent", bash("rm -rf up/sib*"), e, protocol.DecisionAsk, true, "human.outside-write"},
		{"rm -f up/*.txt writes outside", bash("rm -f up/*/*.txt"), e, protocol.DecisionAsk, true, "human.outside-write"},
		{"chmod -R through the link", bash("chmod -R 777 up/*"), e, protocol.DecisionDeny, false, "floor.chmod-root"},
		{"mv out of the link (mv ../* is a floor too)", bash("mv up/* /tmp/x/"), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"touch through the link", bash("touch up/*/x"), e, protocol.DecisionAsk, true, "human.outside-write"},
		{"cat of a linked secret directory", bash("cat keys/*"), e, protocol.DecisionAsk, true, "human.sensitive-read"},
		{"cat through a linked home", bash("cat data/.ss?/id_*"), e, protocol.DecisionAsk, true, "human.sensitive-read"},
		{"cp -r of a linked secret directory", bash("cp -r k?ys/* /tmp/"), e, protocol.DecisionAsk, true, ""},
		{"emptying a linked hooks directory", bash("rm -f hooks/*"), e, protocol.DecisionAsk, true, "human.persistence-write"},
		// a link that stays in the project changes nothing
		{"read through an in-project link", bash("cat local/*.go"), e, protocol.DecisionAllow, false, ""},
		{"glob below an in-project link", bash("wc -l local/*/*.go"), e, protocol.DecisionAllow, false, ""},
		{"rm -rf in the project", bash("rm -rf src/pkg/*"), e, protocol.DecisionAsk, false, ""},
		{"rm -rf through an in-project link", bash("rm -rf local/pkg/*"), e, protocol.DecisionAsk, false, ""},
		// other tool shapes: ACP execute, file tools, an ACP delete
		{"ACP execute", protocol.ToolCall{Tool: "terminal", Kind: protocol.KindExecute, RawInput: []byte(`{"command":"rm -rf up/*"}`)}, e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"shell with an argv", tool("shell", map[string]any{"command": []string{"bash", "-lc", "rm -rf data/*"}}), e, protocol.DecisionDeny, false, "floor.rm-root"},
		{"write tool through the link", tool("write", map[string]any{"file_path": filepath.Join(proj, "up", "sibling", "x")}), e, protocol.DecisionAsk, true, "human.outside-write"},
		{"ACP delete through the link", acpDelete(filepath.Join(proj, "up", "sibling")), e, protocol.DecisionAsk, true, ""},
		{"read tool through a linked secret dir", tool("read", map[string]any{"file_path": filepath.Join(proj, "keys", "id_ed25519")}), e, protocol.DecisionAsk, true, "human.sensitive-read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Analyze(c.call, c.env)
			assert.Equal(t, c.want, v.Decision, "%+v", v.Reasons)
			assert.Equal(t, c.human, v.HumanOnly, "%+v", v.Reasons)
			if c.code != "" {
				var codes []string
				for _, r := range v.Reasons {
					codes = append(codes, r.Code)
				}
				assert.Contains(t, codes, c.code)
			}
		})
	}
}
