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
