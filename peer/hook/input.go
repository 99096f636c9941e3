package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// decodeStrict decodes one JSON object into v: nothing after it, and
// numbers kept as written.
func decodeStrict(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// common checks the fields every hook call of a host needs.
func common(name, session, cwd string) error {
	switch {
	case name == "":
		return errors.New("no hook event name")
	case session == "":
		return errors.New("no session id")
	case cwd == "" || !filepath.IsAbs(cwd):
		return fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	return nil
}

// body checks what the event's stage needs, for the hosts that name the
// tool and its input in tool_name and tool_input: a prompt for a prompt
// (set on ev), else a tool name and an object input (returned).
func (ev *Event) body(prompt *string, toolName string, input json.RawMessage) (json.RawMessage, error) {
	if err := common(ev.Name, ev.SessionID, ev.Cwd); err != nil {
		return nil, err
	}
	switch ev.Stage {
	case stageUnknown:
		return nil, fmt.Errorf("unknown hook event %q", ev.Name)
	case StagePrompt:
		if prompt == nil {
			return nil, fmt.Errorf("%s without a prompt", ev.Name)
		}
		ev.Prompt = *prompt
		return nil, nil
	}
	if toolName == "" {
		return nil, fmt.Errorf("%s without a tool_name", ev.Name)
	}
	return toolInput(input)
}

// toolInput checks a tool input: a JSON object (absent: {}).
func toolInput(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if t[0] != '{' {
		return nil, errors.New("tool input is not a JSON object")
	}
	return t, nil
}

// marshal is json.Marshal for the answer types, which cannot fail.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode hook answer: %v", err))
	}
	return append(b, '\n')
}
