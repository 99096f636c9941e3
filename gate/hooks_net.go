package gate

import "github.com/perm-peer/perm-peer/gate/internal/cmds"

// The network clients (cmds/net.go) are read here: the table says what a
// client reaches and which of its flags take a value; these hooks read the
// words the table cannot describe.

// unlistedNet is the declaration of a program read as a network client
// that the net table lacks (gcloud storage cp, getent hosts: uploaders and
// resolvers): it reaches the network and nothing more is known of it.
var unlistedNet = &cmds.NetTool{}

// netTool is lb's network-client declaration, unlistedNet when it has none.
func netTool(lb string) *cmds.NetTool {
	if t := cmds.NetOf(lb); t != nil {
		return t
	}
	return unlistedNet
}

// netReads reports a network client whose words the network hook reads.
func netReads(lb string) bool {
	t := cmds.NetOf(lb)
	return t != nil && t.Reads()
}

// netKnown reports a network client the gate models, even by name only:
// not one of which only its exposure is read (ngrok, autossh).
func netKnown(lb string) bool {
	t := cmds.NetOf(lb)
	return t != nil && t.Words != cmds.ExposureOnly
}
