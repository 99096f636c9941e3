package conformance

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

//go:embed vectors/*.json
var embedded embed.FS

// Vectors returns the embedded vector files (flat, *.json).
func Vectors() fs.FS {
	sub, _ := fs.Sub(embedded, "vectors") // a literal, existing directory: cannot fail
	return sub
}

// Framing is how the runner delimits messages on the peer's stdin/stdout.
type Framing string

// Framings.
const (
	LSP    Framing = "lsp"    // Content-Length headers
	NDJSON Framing = "ndjson" // one JSON value per line
)

// AllFramings is every framing, in table order.
var AllFramings = []Framing{LSP, NDJSON}

// Vector is one conformance scenario: a fresh peer, a sequence of steps.
type Vector struct {
	// Name is the file name without .json.
	Name        string `json:"-"`
	Description string `json:"description"`
	// Spec names the SPEC sections the vector checks, e.g. "§3.2".
	Spec string `json:"spec,omitempty"`
	// Framings restricts the vector to some framings; empty means both.
	Framings []Framing `json:"framings,omitempty"`
	// Files are created in the project directory before the peer starts
	// (relative path → content).
	Files map[string]string `json:"files,omitempty"`
	// ExitCode is the exit status expected once the vector's steps are done
	// and stdin is closed (or after an expectExit step). Default 0.
	ExitCode *int   `json:"exitCode,omitempty"`
	Steps    []Step `json:"steps"`
}

// Step is one action or expectation. Exactly one of the action fields is
// set; the others are its modifiers.
type Step struct {
	// Send writes one JSON message as one frame. Strings may use ${project}
	// and ${home}; {"$var": NAME} is replaced by a bound value.
	Send json.RawMessage `json:"send,omitempty"`
	// SendRaw writes these bytes as one frame body, unchecked ("not JSON").
	// With PadTo, the marker {{pad}} is replaced by as many "a" as make the
	// body PadTo bytes long (oversize frames without megabyte files).
	SendRaw *string `json:"sendRaw,omitempty"`
	PadTo   int     `json:"padTo,omitempty"`
	// SendBytes writes these bytes unframed (framing errors).
	SendBytes *string `json:"sendBytes,omitempty"`

	// Expect waits for the response with this id and matches it.
	Expect *ExpectResponse `json:"expect,omitempty"`
	// ExpectRequest waits for a peer → editor request and answers it with
	// Answer (no answer when Answer is absent).
	ExpectRequest *ExpectMessage  `json:"expectRequest,omitempty"`
	Answer        json.RawMessage `json:"answer,omitempty"`
	// ExpectNotification waits for a peer → editor notification.
	ExpectNotification *ExpectMessage `json:"expectNotification,omitempty"`

	// CloseStdin ends the peer's input.
	CloseStdin bool `json:"closeStdin,omitempty"`
	// ExpectExit waits for the peer to exit with this status.
	ExpectExit *int `json:"expectExit,omitempty"`

	// Note is free text for the reader of the vector.
	Note string `json:"note,omitempty"`
}

// ExpectResponse selects a response by id and matches its result or error.
type ExpectResponse struct {
	// ID is the response id; null selects the next response with id null
	// (errors for frames whose id could not be read).
	ID json.RawMessage `json:"id"`
	// Result and Error are matchers (see match.go); exactly one is set.
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	// Method names the request's method when the id is not one the runner
	// sent as a JSON message (a raw frame), for schema validation.
	Method string `json:"method,omitempty"`
}

// ExpectMessage selects a peer → editor request or notification by method
// and matches its params (and, with ID, binds or checks its id).
type ExpectMessage struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
}

// action names the step's action; "" when the step has none or several.
func (s Step) action() string {
	var names []string
	if len(s.Send) > 0 {
		names = append(names, "send")
	}
	if s.SendRaw != nil {
		names = append(names, "sendRaw")
	}
	if s.SendBytes != nil {
		names = append(names, "sendBytes")
	}
	if s.Expect != nil {
		names = append(names, "expect")
	}
	if s.ExpectRequest != nil {
		names = append(names, "expectRequest")
	}
	if s.ExpectNotification != nil {
		names = append(names, "expectNotification")
	}
	if s.CloseStdin {
		names = append(names, "closeStdin")
	}
	if s.ExpectExit != nil {
		names = append(names, "expectExit")
	}
	if len(names) != 1 {
		return ""
	}
	return names[0]
}

// Load reads every *.json vector of fsys (a flat directory), sorted by name.
// A vector with an unknown field, a step without exactly one action or a
// bad framing is an error: a typo must not silently test nothing.
func Load(fsys fs.FS) ([]Vector, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, fmt.Errorf("list vectors: %w", err)
	}
	if len(names) == 0 {
		return nil, errors.New("no vectors (*.json) found")
	}
	out := make([]Vector, 0, len(names))
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read vector %s: %w", name, err)
		}
		v, err := parseVector(b)
		if err != nil {
			return nil, fmt.Errorf("vector %s: %w", name, err)
		}
		v.Name = strings.TrimSuffix(path.Base(name), ".json")
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func parseVector(b []byte) (Vector, error) {
	var v Vector
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return v, fmt.Errorf("decode: %w", err)
	}
	if v.Description == "" {
		return v, errors.New("description is required")
	}
	if len(v.Steps) == 0 {
		return v, errors.New("no steps")
	}
	for _, f := range v.Framings {
		if !slices.Contains(AllFramings, f) {
			return v, fmt.Errorf("unknown framing %q (want lsp or ndjson)", f)
		}
	}
	for i, s := range v.Steps {
		a := s.action()
		if a == "" {
			return v, fmt.Errorf("step %d: want exactly one action (send, sendRaw, sendBytes, expect, expectRequest, expectNotification, closeStdin, expectExit)", i+1)
		}
		if s.PadTo > 0 && a != "sendRaw" {
			return v, fmt.Errorf("step %d: padTo goes with sendRaw", i+1)
		}
		if len(s.Answer) > 0 && a != "expectRequest" {
			return v, fmt.Errorf("step %d: answer goes with expectRequest", i+1)
		}
		if e := s.Expect; e != nil && (len(e.Result) > 0) == (len(e.Error) > 0) {
			return v, fmt.Errorf("step %d: expect needs exactly one of result and error", i+1)
		}
		if e := s.Expect; e != nil && len(e.ID) == 0 {
			return v, fmt.Errorf("step %d: expect needs an id (null for id-less errors)", i+1)
		}
		for _, m := range []*ExpectMessage{s.ExpectRequest, s.ExpectNotification} {
			if m != nil && m.Method == "" {
				return v, fmt.Errorf("step %d: expectRequest/expectNotification needs a method", i+1)
			}
		}
		for _, raw := range []json.RawMessage{s.Send, s.Answer} {
			if len(raw) > 0 && !json.Valid(raw) {
				return v, fmt.Errorf("step %d: not valid JSON", i+1)
			}
		}
	}
	return v, nil
}

// runsOn reports whether the vector runs over framing f.
func (v Vector) runsOn(f Framing) bool {
	return len(v.Framings) == 0 || slices.Contains(v.Framings, f)
}
