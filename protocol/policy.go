package protocol

// Policy is a policy file (user level $XDG_CONFIG_HOME/perm-peer/policy.json
// or project level <root>/.perm-peer/policy.json).
//
// Rule syntax: Bash(PATTERN), Read(GLOB), Write(GLOB), WebFetch(domain:HOSTGLOB),
// Tool(NAME) or a bare tool NAME.
type Policy struct {
	Schema    string   `json:"$schema,omitempty"`
	Mode      Mode     `json:"mode,omitempty"`
	Tier      Tier     `json:"tier,omitempty"`
	Allow     []string `json:"allow,omitempty"`
	Ask       []string `json:"ask,omitempty"`
	Deny      []string `json:"deny,omitempty"`
	Sensitive []string `json:"sensitive,omitempty"`
	// TrustedProjects (user policy only) lists project roots whose project
	// policy may add allow rules.
	TrustedProjects []string `json:"trustedProjects,omitempty"`
	// AskTimeoutMs bounds how long the peer waits for permission/ask; 0 waits
	// until the editor answers or cancels. User policy only.
	AskTimeoutMs int `json:"askTimeoutMs,omitempty"`
	// Judge configures the LLM judge. User policy only.
	Judge *JudgeConfig `json:"judge,omitempty"`
	// HookAsks says who answers, under a host hook, a call that needs an
	// ask but not a particular human: the host's own permission system
	// (HookAsksHost, the default: perm-peer gives no verdict) or perm-peer
	// (HookAsksPeer: it answers ask, as the ACP proxy and serve do).
	HookAsks HookAsks `json:"hookAsks,omitempty"`
}

// HookAsks is the policy's "hookAsks" value.
type HookAsks string

const (
	HookAsksHost HookAsks = "host"
	HookAsksPeer HookAsks = "perm-peer"
)

// JudgeConfig points the judge at an OpenAI-compatible endpoint.
type JudgeConfig struct {
	Endpoint  string `json:"endpoint"`
	Model     string `json:"model"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
	MaxTokens int    `json:"maxTokens,omitempty"`
}
