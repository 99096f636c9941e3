package cmds

import "testing"

// TestToolEntries checks each tool's entry: declared once and found by
// its name, its flags declared under its own name and found by Lookup,
// and examples (the gate's TestToolExamplesDecide runs them).
func TestToolEntries(t *testing.T) {
	if len(Tools()) != len(toolIndex()) {
		t.Fatalf("%d tools, %d names", len(Tools()), len(toolIndex()))
	}
	for _, tl := range Tools() {
		if tl.Cmd != nil && tl.Cmd.Name != tl.Name {
			t.Errorf("%s: its flags are declared as %s's", tl.Name, tl.Cmd.Name)
		}
		if len(tl.Examples) == 0 && tl.Name != "git" { // git's examples are its subcommands'
			t.Errorf("%s: no example", tl.Name)
		}
		if ToolOf(tl.Name) != tl {
			t.Errorf("%s: not found by its name", tl.Name)
		}
		if Lookup(tl.Name) == nil && tl.Cmd != nil {
			t.Errorf("%s: its flags are not in the table", tl.Name)
		}
	}
	if !ToolOf("npm").Groups("config") || ToolOf("npm").Groups("run") || !ToolOf("gh").Groups("pr") {
		t.Error("groups: npm config is one, npm run is not, every gh subcommand is")
	}
}
