package cmds

import "testing"

// TestTrialsDeclared checks that every trial is a program the table
// declares, so a trial cannot name one the gate does not know.
func TestTrialsDeclared(t *testing.T) {
	for _, n := range append(append([]string{}, GlobTrials...), DynamicTrials...) {
		if Lookup(n) == nil && WrapperOf(n) == nil && NetcatOf(n) == nil && NetOf(n) == nil && ToolOf(n) == nil && RunnerOf(n) == nil {
			t.Errorf("%s: a trial the table does not declare", n)
		}
	}
}
