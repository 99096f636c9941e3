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
	// Examples are calls with the outcome the file's author wants for
	// them, kept next to the rules: every one is checked when the policy
	// is loaded (a failing one is a startup error naming it) and by
	// `perm-peer policy test`.
	Examples []PolicyExample `json:"examples,omitempty"`
}

// PolicyExample is one call and the outcome wanted for it: a shell
// command (Call), or a file or fetch tool (Tool with Path or URL).
type PolicyExample struct {
	Call string `json:"call,omitempty"`
	Tool string `json:"tool,omitempty"`
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
	// Want is allow (runs without asking), ask (a person or, in ai mode,
	// the judge decides) or deny, after the rules, the known-safe set, the
	// floors and the policy's mode.
	Want string `json:"want"`
}

// HookAsks is the policy's "hookAsks" value.
type HookAsks string

const (
	HookAsksHost HookAsks = "host"
	HookAsksPeer HookAsks = "perm-peer"
)

// JudgeConfig points the judge at a model endpoint.
type JudgeConfig struct {
	// Provider is the API the endpoint speaks: "openai" (chat completions,
	// the default) or "anthropic" (Messages API).
	Provider  string `json:"provider,omitempty"`
	Endpoint  string `json:"endpoint"`
	Model     string `json:"model"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
	MaxTokens int    `json:"maxTokens,omitempty"`
	// Environment is what the user trusts, shown to the judge in the stable
	// prompt prefix. It lives in the judge block, which only the user
	// policy may set: a project file can never widen what is trusted.
	Environment *JudgeEnvironment `json:"environment,omitempty"`
}

// Judge providers.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// JudgeEnvironment is the user's trusted environment: where their work
// legitimately goes, and what must never be touched.
type JudgeEnvironment struct {
	// Description is free text about the user's setup ("I work at Example
	// Corp; our code lives on git.example.com").
	Description string `json:"description,omitempty"`
	// GitRemotes are remote URLs (or URL globs) the user pushes to.
	GitRemotes []string `json:"gitRemotes,omitempty"`
	// Domains are host globs the user's work talks to.
	Domains []string `json:"domains,omitempty"`
	// Buckets are cloud storage buckets the user owns (s3://name, gs://name).
	Buckets []string `json:"buckets,omitempty"`
	// Registries are package registries the user publishes to.
	Registries []string `json:"registries,omitempty"`
	// Sensitive names targets that need the human whatever the task says
	// (a production database, a release branch, a shared bucket).
	Sensitive []string `json:"sensitive,omitempty"`
}
