package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/schemas/internal/jsonschema"
)

// flatten turns the validator's error tree into a flat, sorted, de-duplicated
// list of leaf causes. A missing required property and an unknown property
// are reported at the pointer of that property (one cause each) rather than
// at the enclosing object, so the caller can name the bad field.
func flatten(ve *jsonschema.ValidationError, inst, schemaDoc any) []Cause {
	var out []Cause
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, leafCauses(e, inst, schemaDoc)...)
			return
		}
		causes := e.Causes
		if k := lastToken(e.KeywordLocation); k == "oneOf" || k == "anyOf" {
			causes = plausibleBranches(e)
		}
		for _, c := range causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		return out[i].Message < out[j].Message
	})
	uniq := out[:0]
	for i, c := range out {
		if i == 0 || c != out[i-1] {
			uniq = append(uniq, c)
		}
	}
	return uniq
}

// plausibleBranches keeps, of a failed oneOf/anyOf, the branches the writer
// plausibly meant: a branch that fails on "type" at the union's own value
// (an object where the branch wants a string) or on a "const" one level
// below (the discriminator: "reply": "always" against the once variant) is
// ruled out, and its errors are noise. When every branch is ruled out, all
// are kept.
func plausibleBranches(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	depth := ptrDepth(e.InstanceLocation)
	var keep []*jsonschema.ValidationError
	for _, branch := range e.Causes {
		if !mismatched(branch, depth) {
			keep = append(keep, branch)
		}
	}
	if len(keep) > 0 {
		return keep
	}
	// Nothing fits: drop the "or null" branch of a nullable field, which
	// only says what the writer evidently did not mean.
	for _, branch := range e.Causes {
		if !nullOnly(branch) {
			keep = append(keep, branch)
		}
	}
	if len(keep) > 0 {
		return keep
	}
	return e.Causes
}

// nullOnly reports a branch that failed only because the value is not null.
func nullOnly(e *jsonschema.ValidationError) bool {
	for len(e.Causes) == 1 {
		e = e.Causes[0]
	}
	return len(e.Causes) == 0 && lastToken(e.KeywordLocation) == "type" && strings.HasPrefix(e.Message, "expected null,")
}

func mismatched(e *jsonschema.ValidationError, depth int) bool {
	if len(e.Causes) == 0 {
		d := ptrDepth(e.InstanceLocation)
		switch lastToken(e.KeywordLocation) {
		case "type":
			return d == depth
		case "const":
			return d <= depth+1
		}
		return false
	}
	for _, c := range e.Causes {
		if mismatched(c, depth) {
			return true
		}
	}
	return false
}

// leafCauses renders one leaf error, expanding "required" and
// "additionalProperties" into one cause per property.
func leafCauses(e *jsonschema.ValidationError, inst, schemaDoc any) []Cause {
	switch lastToken(e.KeywordLocation) {
	case "required":
		if cs := missingProps(e, inst, schemaDoc); len(cs) > 0 {
			return cs
		}
	case "additionalProperties":
		if cs := unknownProps(e, inst, schemaDoc); len(cs) > 0 {
			return cs
		}
	}
	return []Cause{{Pointer: e.InstanceLocation, Message: e.Message}}
}

func missingProps(e *jsonschema.ValidationError, inst, schemaDoc any) []Cause {
	obj, ok := resolve(inst, e.InstanceLocation).(map[string]any)
	if !ok {
		return nil
	}
	req, ok := resolve(schemaDoc, schemaPointer(e.AbsoluteKeywordLocation)).([]any)
	if !ok {
		return nil
	}
	var out []Cause
	for _, r := range req {
		name, _ := r.(string)
		if _, present := obj[name]; !present {
			out = append(out, Cause{Pointer: e.InstanceLocation + "/" + escape(name), Message: "required property is missing"})
		}
	}
	return out
}

func unknownProps(e *jsonschema.ValidationError, inst, schemaDoc any) []Cause {
	obj, ok := resolve(inst, e.InstanceLocation).(map[string]any)
	if !ok {
		return nil
	}
	parent, ok := resolve(schemaDoc, parentPointer(schemaPointer(e.AbsoluteKeywordLocation))).(map[string]any)
	if !ok {
		return nil
	}
	known, _ := parent["properties"].(map[string]any)
	var out []Cause
	for name := range obj {
		if _, ok := known[name]; !ok {
			out = append(out, Cause{Pointer: e.InstanceLocation + "/" + escape(name), Message: "unknown property (not allowed here)"})
		}
	}
	return out
}

// schemaPointer is the JSON pointer part of an absolute keyword location
// ("https://…/x.schema.json#/$defs/T/required" → "/$defs/T/required").
func schemaPointer(abs string) string {
	if i := strings.IndexByte(abs, '#'); i >= 0 {
		return abs[i+1:]
	}
	return ""
}

func parentPointer(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func lastToken(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

func ptrDepth(p string) int { return strings.Count(p, "/") }

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

func escape(tok string) string { return escaper.Replace(tok) }

// resolve follows a JSON pointer through a decoded document; nil when it
// leads nowhere.
func resolve(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescaper.Replace(tok)
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

// lineOf is the 1-based line of the value at ptr in data, or of its nearest
// existing ancestor (a missing property is reported on its object's line);
// 0 when data is not JSON.
func lineOf(data []byte, ptr string) int {
	for {
		if off, ok := offsetOf(data, ptr); ok {
			return 1 + bytes.Count(data[:off], []byte("\n"))
		}
		if ptr == "" {
			return 0
		}
		ptr = parentPointer(ptr)
	}
}

var errFound = errors.New("found")

// offsetOf returns the offset just after the first token of the value at
// ptr, which is on the line where that value starts.
func offsetOf(data []byte, ptr string) (int64, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	var off int64
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		if path == ptr {
			off = d.InputOffset()
			return errFound
		}
		delim, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch delim {
		case '{':
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				if err := walk(path + "/" + escape(key)); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; d.More(); i++ {
				if err := walk(path + "/" + strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}
		_, err = d.Token() // closing delimiter
		return err
	}
	return off, errors.Is(walk(""), errFound)
}
