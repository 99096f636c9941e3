package gate

import (
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

// Policy is the compiled user + project policy.
//
// STUB: the full gate replaces it.
type Policy struct {
	User    protocol.Policy
	Project protocol.Policy
}

// LoadPolicy reads the user policy file and the project policy file (either
// may be "" or missing) and compiles them for projectRoot. A malformed file is
// an error naming the file, line and JSON pointer.
func LoadPolicy(userFile, projectFile, projectRoot string) (*Policy, error) {
	return &Policy{}, nil
}

// Mode is the policy's default mode (ask when unset).
func (p *Policy) Mode() protocol.Mode {
	if p == nil || p.User.Mode == "" {
		return protocol.ModeAsk
	}
	return p.User.Mode
}

// Tier is the policy's default tier (standard when unset).
func (p *Policy) Tier() protocol.Tier {
	if p == nil || p.User.Tier == "" {
		return protocol.TierStandard
	}
	return p.User.Tier
}

// Judge is the judge configuration (user policy only), nil when none.
func (p *Policy) Judge() *protocol.JudgeConfig {
	if p == nil {
		return nil
	}
	return p.User.Judge
}

// AskTimeout bounds permission/ask; 0 means no bound.
func (p *Policy) AskTimeout() time.Duration {
	if p == nil {
		return 0
	}
	return time.Duration(p.User.AskTimeoutMs) * time.Millisecond
}
