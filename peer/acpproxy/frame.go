package acpproxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/perm-peer/perm-peer/jsonkey"
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
	idAt      int             // where id starts in the line
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
// read the copy perm-peer did not. The envelope's slices point into line.
//
// It runs on every line both ways, so it scans the validated line by hand
// instead of decoding it: only the top-level keys are read.
func parseEnvelope(line []byte) (envelope, error) {
	var e envelope
	if !json.Valid(line) {
		return e, errors.New("not JSON")
	}
	if !utf8.Valid(line) {
		// encoding/json reads a bad byte as U+FFFD, serde refuses the line,
		// JavaScript's decoder replaces it: each side would see another message
		return e, errors.New("not UTF-8")
	}
	i := skipSpace(line, 0)
	if line[i] != '{' {
		return e, errors.New("not a JSON object")
	}
	var seen [6]bool // id method params result error jsonrpc
	i = skipSpace(line, i+1)
	for line[i] != '}' {
		kEnd := stringEnd(line, i)
		key, err := unquote(line[i:kEnd])
		if err != nil {
			return e, err
		}
		i = skipSpace(line, skipSpace(line, kEnd)+1) // past the colon
		vEnd := valueEnd(line, i)
		val := line[i:vEnd]
		if n := slices.Index(envelopeKeys, strings.ToLower(key)); n >= 0 {
			if seen[n] {
				return e, fmt.Errorf("the member %q appears twice (in some letter case)", key)
			}
			seen[n] = true
		}
		switch key {
		case "id":
			e.id, e.idAt = val, i
		case "method":
			if val[0] != '"' {
				return e, errors.New("method is not a string")
			}
			if e.method, err = unquote(val); err != nil {
				return e, err
			}
			e.hasMethod = true
		case "params":
			e.params = val
		case "result":
			e.result = val
		case "error":
			e.err = val
		}
		i = skipSpace(line, vEnd)
		if line[i] == ',' {
			i = skipSpace(line, i+1)
		}
	}
	return e, nil
}

// withID returns a copy of line, the line e was parsed from, with id in
// place of its id.
func (e *envelope) withID(line []byte, id json.RawMessage) []byte {
	out := make([]byte, 0, len(line)-len(e.id)+len(id))
	out = append(out, line[:e.idAt]...)
	out = append(out, id...)
	return append(out, line[e.idAt+len(e.id):]...)
}

// envelopeKeys are the members parseEnvelope checks for repeats.
var envelopeKeys = []string{"id", "method", "params", "result", "error", "jsonrpc"}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index after the JSON value starting at b[i] (b is
// valid JSON).
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

// unquote decodes a JSON string, by hand when it has no escapes.
func unquote(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("bad JSON string: %w", err)
	}
	return s, nil
}

// idKey is a request id as a map key: its JSON text, compacted.
func idKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// decodeStrict decodes params into v, refusing a repeated key.
func decodeStrict(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return errors.New("no params")
	}
	if k := jsonkey.Repeated(raw); k != "" {
		return fmt.Errorf("params repeat the key %q (in some letter case)", k)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("params: %w", err)
	}
	return nil
}
