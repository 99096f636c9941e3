package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/perm-peer/perm-peer/schemas/internal/jsonschema"
)

// BaseID prefixes every schema's $id; a policy file may point its "$schema"
// at BaseID + PolicySchema.
const BaseID = "https://raw.githubusercontent.com/perm-peer/perm-peer/main/schemas/"

//go:embed *.json
var embedded embed.FS

// Error is a validation failure with one Cause per violated constraint.
type Error struct {
	Schema string  `json:"schema"` // schema file name, e.g. "session-open.params.schema.json"
	Causes []Cause `json:"causes"`
}

// Cause is one violated constraint at a JSON pointer of the document.
type Cause struct {
	Pointer string `json:"pointer"` // e.g. "/toolCall/kind"; "" is the root
	Message string `json:"message"`
	// Line is the 1-based line of Pointer (or of its nearest existing
	// parent) in the validated bytes; set by ValidatePolicy, 0 elsewhere.
	Line int `json:"line,omitempty"`
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		p := c.Pointer
		if p == "" {
			p = "/"
		}
		if c.Line > 0 {
			parts[i] = fmt.Sprintf("line %d: %s: %s", c.Line, p, c.Message)
		} else {
			parts[i] = fmt.Sprintf("%s: %s", p, c.Message)
		}
	}
	return "invalid " + e.Schema + ": " + strings.Join(parts, "; ")
}

// FS is the embedded, checked-in schema files (flat, *.schema.json).
func FS() fs.FS { return embedded }

// Files returns a copy of every embedded schema file, keyed by file name.
func Files() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := embedded.ReadDir(".") // embedded: cannot fail
	for _, e := range entries {
		b, _ := embedded.ReadFile(e.Name())
		out[e.Name()] = b
	}
	return out
}

// compiled maps a schema file name to its *compiledSchema, compiled on its
// first use: compiling all of them up front costs ~20 ms of every cold
// start, one costs ~1 ms. A sync.Map (not a mutex) because every request
// looks its schema up and, once compiled, nothing ever writes again.
var compiled sync.Map

// compiledSchema is one schema file, compiled once by whichever caller
// gets there first; the others wait in get for that compile.
type compiledSchema struct {
	name string
	once sync.Once
	s    *jsonschema.Schema
	doc  any // the decoded schema document, for error detail
	err  error
}

// get compiles the schema on first use. Every caller passes the same
// function to once.Do: a caller that passed anything else could run first
// and leave the schema uncompiled for everyone.
func (c *compiledSchema) get() (*jsonschema.Schema, any, error) {
	c.once.Do(func() {
		b, err := embedded.ReadFile(c.name)
		if err != nil {
			c.err = fmt.Errorf("validate: read schema %q: %w", c.name, err)
			return
		}
		all, raw, err := compileAll(map[string][]byte{c.name: b})
		c.s, c.doc, c.err = all[c.name], raw[c.name], err
	})
	return c.s, c.doc, c.err
}

// loadOne returns the compiled schema file name and its decoded document.
func loadOne(name string) (*jsonschema.Schema, any, error) {
	v, ok := compiled.Load(name)
	if !ok {
		if _, err := fs.Stat(embedded, name); err != nil {
			return nil, nil, fmt.Errorf("validate: unknown schema %q", name)
		}
		v, _ = compiled.LoadOrStore(name, &compiledSchema{name: name})
	}
	return v.(*compiledSchema).get()
}

// compileAll compiles each file as a standalone draft 2020-12 schema.
func compileAll(files map[string][]byte) (map[string]*jsonschema.Schema, map[string]any, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	// Never fetch anything: every file is self-contained.
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s: remote references are not allowed", u)
	}
	raw := map[string]any{}
	for name, b := range files {
		if err := c.AddResource(BaseID+name, bytes.NewReader(b)); err != nil {
			return nil, nil, fmt.Errorf("add schema %s: %w", name, err)
		}
		doc, err := decode(b)
		if err != nil {
			return nil, nil, fmt.Errorf("decode schema %s: %w", name, err)
		}
		raw[name] = doc
	}
	out := map[string]*jsonschema.Schema{}
	for name := range files {
		s, err := c.Compile(BaseID + name)
		if err != nil {
			return nil, nil, fmt.Errorf("compile schema %s: %w", name, err)
		}
		out[name] = s
	}
	return out, raw, nil
}

// decode parses one JSON value with numbers kept exact, as the validator
// expects; trailing data is an error.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	end := d.InputOffset()
	if _, err := d.Token(); err != io.EOF {
		return nil, &trailingError{offset: end + int64(len(b[end:])-len(bytes.TrimLeft(b[end:], " \t\r\n")))}
	}
	return v, nil
}

// trailingError is a second value (or garbage) after the document's value.
type trailingError struct{ offset int64 }

func (e *trailingError) Error() string { return "unexpected data after the JSON value" }

// ValidateParams validates the params of an incoming method. It returns nil
// when they fit (or the method takes no params schema) and an *Error
// otherwise. Absent or null params are validated as {}, so a method with
// required fields reports each missing one. Any other non-nil error is an
// internal failure (a schema that does not compile) and must be treated as
// invalid too.
func ValidateParams(method string, params json.RawMessage) error {
	name, ok := paramsFile[method]
	if !ok {
		return nil
	}
	p := bytes.TrimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = []byte("{}")
	}
	return Validate(name, p)
}

// ValidatePolicy validates a policy file's bytes against policy.schema.json;
// nil or an *Error whose causes carry the line of each bad field.
func ValidatePolicy(data []byte) error {
	if _, err := decode(data); err != nil {
		// Point at the bad byte; an unexpected EOF is reported on the last line.
		off := int64(len(data))
		var se *json.SyntaxError
		var te *trailingError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.As(err, &te):
			off = te.offset
		}
		line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
		return &Error{Schema: PolicySchema, Causes: []Cause{{Pointer: "", Message: "not valid JSON: " + err.Error(), Line: line}}}
	}
	err := Validate(PolicySchema, data)
	var ve *Error
	if errors.As(err, &ve) {
		for i := range ve.Causes {
			ve.Causes[i].Line = lineOf(data, ve.Causes[i].Pointer)
		}
	}
	return err
}

// Validate validates a JSON document against the named schema file (as
// listed by Files); nil, an *Error, or an error for an unknown schema.
func Validate(schema string, doc []byte) error {
	v, err := decode(doc)
	if err != nil {
		return &Error{Schema: schema, Causes: []Cause{{Pointer: "", Message: "not valid JSON: " + err.Error()}}}
	}
	return ValidateValue(schema, v)
}

// ValidateValue validates an already decoded document (json.Unmarshal into
// any, with UseNumber for exact numbers) against the named schema file.
func ValidateValue(schema string, v any) error {
	s, doc, err := loadOne(schema)
	if err != nil {
		return err
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validate against %s: %w", schema, err)
	}
	return &Error{Schema: schema, Causes: flatten(ve, v, doc)}
}

// load compiles every embedded schema (tests: each file compiles).
func load() (map[string]*jsonschema.Schema, map[string]any, error) {
	return compileAll(Files())
}
