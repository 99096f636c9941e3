package schemas

import (
	"encoding/json"
	"fmt"
	"strings"
)

// STUB: the schemas issue replaces the bodies; the API is fixed.

// Error is a validation failure with one Cause per violated constraint.
type Error struct {
	Schema string  `json:"schema"` // schema file name, e.g. "session-open.params.schema.json"
	Causes []Cause `json:"causes"`
}

// Cause is one violated constraint at a JSON pointer of the document.
type Cause struct {
	Pointer string `json:"pointer"` // e.g. "/toolCall/kind"; "" is the root
	Message string `json:"message"`
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		p := c.Pointer
		if p == "" {
			p = "/"
		}
		parts[i] = fmt.Sprintf("%s: %s", p, c.Message)
	}
	return "invalid " + e.Schema + ": " + strings.Join(parts, "; ")
}

// ValidateParams validates the params of an incoming method. It returns nil
// when they fit (or the method takes no params schema) and an *Error
// otherwise.
func ValidateParams(method string, params json.RawMessage) error { return nil }

// ValidatePolicy validates a policy file's bytes against policy.schema.json;
// nil or an *Error.
func ValidatePolicy(data []byte) error { return nil }
