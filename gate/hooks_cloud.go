package gate

import (
	"slices"
	"strings"
)

// The hooks of the infrastructure and cloud CLIs (cmds/cloud.go).

// infra reads terraform and the other infrastructure-as-code CLIs:
// destroy and remove tear the infrastructure down; -out, -state-out and
// -backup write where they say (terraform plan -out=FILE).
func (c *plainCall) infra() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	if hasWord(args, "destroy") || hasWord(args, "remove") || hasFlag(args, "-destroy", "--destroy") {
		f.human = reason("human.teardown", lb+" destroys infrastructure")
	}
	for _, w := range flagValues(args, "-out", "-state-out", "-backup") {
		a.writeWord(w, sc, idx)
	}
}

// tearsDown says one of a tool's Teardowns (cmds.Tool) is among its
// words: each of its words, anywhere (aws cloudformation delete-stack,
// gcloud projects delete).
func tearsDown(teardowns []string, args []word) bool {
	return slices.ContainsFunc(teardowns, func(t string) bool {
		return !slices.ContainsFunc(strings.Fields(t), func(w string) bool { return !hasWord(args, w) })
	})
}
