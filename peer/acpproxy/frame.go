package acpproxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxLine bounds one NDJSON line, either way.
const MaxLine = 16 << 20

// errLineTooLong is readLine's error for a line over MaxLine; the reader
// has skipped it and can go on.
var errLineTooLong = errors.New("line too long")

// lineReader reads NDJSON lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// readLine returns the next line without its newline (valid until the next
// call). A final line without a newline is returned at EOF; an overlong
// line is skipped to its end and reported as errLineTooLong.
func (lr *lineReader) readLine() ([]byte, error) {
	lr.buf = lr.buf[:0]
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(chunk) > lr.max+1 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
			if tooLong {
				return nil, errLineTooLong
			}
			return bytes.TrimSuffix(lr.buf, []byte("\n")), nil
		case errors.Is(err, io.EOF) && len(lr.buf) > 0 && !tooLong:
			return lr.buf, nil
		default:
			if tooLong && errors.Is(err, io.EOF) {
				return nil, errLineTooLong
			}
			return nil, err
		}
	}
}

// envelope is the top level of one JSON-RPC message, keys matched exactly
// as JavaScript and serde read them (encoding/json would also take
// "METHOD" for "method").
type envelope struct {
	id        json.RawMessage // nil: no id member
	method    string
	params    json.RawMessage
	result    json.RawMessage
	err       json.RawMessage
	hasMethod bool
}

func (e *envelope) isRequest() bool      { return e.hasMethod && e.id != nil }
func (e *envelope) isNotification() bool { return e.hasMethod && e.id == nil }
func (e *envelope) isResponse() bool {
	return !e.hasMethod && e.id != nil && (e.result != nil || e.err != nil)
}

// parseEnvelope reads the top-level members of a JSON object line. It fails
// on anything else (not JSON, not an object, trailing data) and on a member
// it uses that appears twice or in another letter case: the other side might
// read the copy perm-peer did not.
func parseEnvelope(line []byte) (envelope, error) {
	var e envelope
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return e, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return e, fmt.Errorf("bad JSON: %w", err)
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return e, fmt.Errorf("bad JSON: %w", err)
		}
		lk := strings.ToLower(key)
		switch lk {
		case "id", "method", "params", "result", "error", "jsonrpc":
			if seen[lk] {
				return e, fmt.Errorf("the member %q appears twice (in some letter case)", key)
			}
			seen[lk] = true
		}
		switch key {
		case "id":
			e.id = raw
		case "method":
			if err := json.Unmarshal(raw, &e.method); err != nil {
				return e, errors.New("method is not a string")
			}
			e.hasMethod = true
		case "params":
			e.params = raw
		case "result":
			e.result = raw
		case "error":
			e.err = raw
		}
	}
	if _, err := dec.Token(); err != nil {
		return e, fmt.Errorf("bad JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return e, errors.New("data after the JSON object")
	}
	return e, nil
}

// idKey is a request id as a map key: its JSON text, compacted.
func idKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// repeatedKey returns a key that some object in raw (at any depth) holds
// twice in some letter case, or "". Go's decoder matches struct fields in
// any case and keeps the last copy, the editor the exact one: params with
// such a key could be checked as one thing and acted on as another.
func repeatedKey(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object    bool
		keys      map[string]bool
		expectKey bool
	}
	var stack []*frame
	for {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expectKey {
			if k, ok := t.(string); ok {
				lk := strings.ToLower(k)
				if top.keys[lk] {
					return k
				}
				top.keys[lk] = true
				top.expectKey = false
				continue
			}
		}
		switch t {
		case json.Delim('{'):
			if top != nil && top.object {
				top.expectKey = true
			}
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, expectKey: true})
		case json.Delim('['):
			if top != nil && top.object {
				top.expectKey = true
			}
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return ""
			}
		default:
			if top != nil && top.object {
				top.expectKey = true
			}
		}
	}
}

// decodeStrict decodes params into v, refusing a repeated key.
func decodeStrict(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return errors.New("no params")
	}
	if k := repeatedKey(raw); k != "" {
		return fmt.Errorf("params repeat the key %q (in some letter case)", k)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("params: %w", err)
	}
	return nil
}
