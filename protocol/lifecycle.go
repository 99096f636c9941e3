package protocol

// InitializeParams is the params of initialize.
type InitializeParams struct {
	ProtocolVersion int                 `json:"protocolVersion"`
	ClientInfo      *ClientInfo         `json:"clientInfo,omitempty"`
	Capabilities    *ClientCapabilities `json:"capabilities,omitempty"`
	Project         *Project            `json:"project,omitempty"`
	Settings        *Settings           `json:"settings,omitempty"`
}

// ClientInfo names the editor.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ClientCapabilities says what the editor can do.
type ClientCapabilities struct {
	// Prompt means the editor answers permission/ask: a human is present.
	Prompt bool `json:"prompt,omitempty"`
}

// Project names the project root the peer decides for.
type Project struct {
	Root string `json:"root"`
}

// Settings override the policy's defaults for this connection.
type Settings struct {
	Mode Mode `json:"mode,omitempty"`
	Tier Tier `json:"tier,omitempty"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ProtocolVersion int                `json:"protocolVersion"`
	ServerInfo      ServerInfo         `json:"serverInfo"`
	Capabilities    ServerCapabilities `json:"capabilities"`
}

// ServerInfo names the peer.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ServerCapabilities says what the peer offers.
type ServerCapabilities struct {
	Modes []Mode          `json:"modes"`
	Judge JudgeCapability `json:"judge"`
	ACP   bool            `json:"acp"`
}

// JudgeCapability reports whether an LLM judge is configured.
type JudgeCapability struct {
	Enabled bool   `json:"enabled"`
	Model   string `json:"model,omitempty"`
}

// Mode is how much the peer decides on its own.
type Mode string

// Modes.
const (
	ModeAsk  Mode = "ask"  // everything the gate leaves open goes to the user
	ModeAuto Mode = "auto" // everything the gate leaves open runs (not human-only asks)
	ModeFull Mode = "full" // like auto, and human-only asks run too; floors still hold
	ModeAI   Mode = "ai"   // the judge decides what the gate leaves open
)

// Tier says what AI mode does with a judge "escalate".
type Tier string

// Tiers.
const (
	TierStandard   Tier = "standard"   // ask the user
	TierAggressive Tier = "aggressive" // run it, with a fixed note
	TierPassive    Tier = "passive"    // reject it, with a fixed note
)

// CancelParams is the params of $/cancelRequest (LSP).
type CancelParams struct {
	ID any `json:"id"`
}

// ACPCancelRequestParams is the params of $/cancel_request (ACP).
type ACPCancelRequestParams struct {
	RequestID any `json:"requestId"`
}
