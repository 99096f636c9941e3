package protocol

// SessionOpenParams is the params of session/open.
type SessionOpenParams struct {
	SessionID       string `json:"sessionId"`
	ParentSessionID string `json:"parentSessionId,omitempty"`
	Cwd             string `json:"cwd,omitempty"`
	Mode            Mode   `json:"mode,omitempty"`
	Tier            Tier   `json:"tier,omitempty"`
	Agent           string `json:"agent,omitempty"`
}

// SessionOpenResult is the (empty) result of session/open.
type SessionOpenResult struct{}

// SessionTurnParams is the params of the session/turn notification.
type SessionTurnParams struct {
	SessionID   string `json:"sessionId"`
	Turn        int    `json:"turn"`
	UserMessage string `json:"userMessage,omitempty"`
}

// SessionCloseParams is the params of the session/close notification.
type SessionCloseParams struct {
	SessionID string `json:"sessionId"`
}

// Session is a session as persisted by the store, so that a subagent opened
// later (even after a restart) finds its parent.
type Session struct {
	ID       string `json:"id"`
	ParentID string `json:"parentId,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Mode     Mode   `json:"mode,omitempty"`
	Tier     Tier   `json:"tier,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Created  string `json:"created,omitempty"` // RFC 3339
}
