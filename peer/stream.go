package peer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/perm-peer/perm-peer/protocol"
)

// Framing is how messages are delimited on the wire.
type Framing string

// Framings.
const (
	FramingAuto   Framing = "auto"   // decided by the first non-blank byte
	FramingLSP    Framing = "lsp"    // Content-Length headers
	FramingNDJSON Framing = "ndjson" // one JSON value per line
)

// ParseFraming validates a --framing value.
func ParseFraming(s string) (Framing, error) {
	switch f := Framing(s); f {
	case FramingAuto, FramingLSP, FramingNDJSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown framing %q (want auto, lsp or ndjson)", s)
}

// DefaultMaxFrame is the largest frame the peer reads (SPEC §3.1).
const DefaultMaxFrame = 4 << 20

// Stream is a jsonrpc2.ObjectStream that survives bad input: a frame that is
// not JSON, not a JSON-RPC message or too large is answered with an error
// response here, and ReadObject goes on to the next frame. jsonrpc2.Conn
// closes the connection on any ReadObject error, so only a real end of input
// (or a broken pipe) may surface as one.
type Stream struct {
	src      io.Reader // what r reads from, for inputWaiting
	r        *bufio.Reader
	w        io.Writer
	closer   io.Closer
	maxFrame int

	framing Framing // decided on the first frame when auto

	wmu sync.Mutex // serializes whole frames on w

	// OnEOF, when set, runs before ReadObject reports the end of input,
	// so in-flight requests can finish and write their replies first.
	OnEOF func()
}

// NewStream frames messages on r/w. closer (may be nil) is closed by Close.
func NewStream(r io.Reader, w io.Writer, closer io.Closer, framing Framing, maxFrame int) *Stream {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	return &Stream{src: r, r: bufio.NewReaderSize(r, 64<<10), w: w, closer: closer, maxFrame: maxFrame, framing: framing}
}

// InputWaiting reports whether more input has arrived after the frame last
// read: in the read buffer, or (for a pipe or file) in the kernel's. When it
// cannot tell, it reports true. Only the goroutine that reads may call it.
func (s *Stream) InputWaiting() bool {
	if s.r.Buffered() > 0 {
		return true
	}
	// SyscallConn, not Fd: Fd would switch a non-blocking stdin to
	// blocking mode.
	f, ok := s.src.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return true
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return true
	}
	n := -1
	if err := rc.Control(func(fd uintptr) { n = bytesReadable(fd) }); err != nil {
		return true
	}
	return n != 0
}

// Framing reports the framing in use (auto until the first frame arrives).
func (s *Stream) Framing() Framing {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.framing
}

// errFrame is a bad frame that has been consumed: reply with code and go on.
type errFrame struct {
	code int
	msg  string
	id   json.RawMessage // the request id when it could be read, else null
}

func (e *errFrame) Error() string { return e.msg }

// ReadObject reads the next valid JSON-RPC message into v.
func (s *Stream) ReadObject(v any) error {
	for {
		frame, err := s.readFrame()
		if err == nil {
			err = checkMessage(frame)
		}
		if err == nil {
			if uerr := json.Unmarshal(frame, v); uerr != nil {
				err = &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: " + uerr.Error()}
			}
		}
		var bad *errFrame
		if errors.As(err, &bad) {
			if werr := s.writeError(bad); werr != nil {
				return werr
			}
			continue
		}
		if err != nil {
			// The input is gone (EOF, truncated frame, broken pipe): let
			// in-flight work finish before jsonrpc2 closes the connection.
			if s.OnEOF != nil {
				s.OnEOF()
			}
			return err
		}
		return nil
	}
}

// readFrame returns the next frame's bytes, an *errFrame for a consumed bad
// frame, or the reader's error.
func (s *Stream) readFrame() ([]byte, error) {
	if s.framing == FramingAuto {
		b, err := s.skipBlank()
		if err != nil {
			return nil, err
		}
		s.wmu.Lock()
		if b == '{' || b == '[' {
			s.framing = FramingNDJSON
		} else {
			s.framing = FramingLSP
		}
		s.wmu.Unlock()
	}
	if s.framing == FramingNDJSON {
		return s.readLine()
	}
	return s.readContentLength()
}

// skipBlank consumes whitespace and returns the next byte without consuming it.
func (s *Stream) skipBlank() (byte, error) {
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, s.r.UnreadByte()
	}
}

// readLine reads one NDJSON line, skipping blank lines. A line longer than
// maxFrame is consumed to its end and reported.
func (s *Stream) readLine() ([]byte, error) {
	for {
		var line []byte
		tooBig := false
		for {
			chunk, err := s.r.ReadSlice('\n')
			if !tooBig {
				if len(line)+len(chunk) > s.maxFrame+2 {
					tooBig, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF && (tooBig || len(bytes.TrimSpace(line)) > 0) {
				break // last line without newline: serve it, EOF comes next
			}
			if err != nil {
				return nil, err
			}
			break
		}
		if tooBig {
			return nil, &errFrame{code: protocol.CodeInvalidRequest, msg: fmt.Sprintf("frame exceeds %d bytes", s.maxFrame)}
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

// readContentLength reads one LSP frame: headers, a blank line, a body of
// Content-Length bytes. Lines that are not headers (the tail of a body whose
// Content-Length lied, stray text) are answered with one parse error per run
// and skipped, so the stream resynchronizes on the next header block.
func (s *Stream) readContentLength() ([]byte, error) {
	length, sawHeader, inGarbage := -1, false, false
	for {
		line, err := s.readHeaderLine()
		if err != nil {
			if err == io.EOF && sawHeader {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // blank lines between frames
			}
			break
		}
		name, value, isHeader := strings.Cut(line, ":")
		isHeader = isHeader && len(line) <= maxHeaderLine && headerName(name)
		if isHeader && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			isHeader = err == nil && n >= 0
			length = n
		}
		if !isHeader {
			if !inGarbage {
				if err := s.writeError(&errFrame{code: protocol.CodeParseError, msg: fmt.Sprintf("parse error: not a header: %q", clip(line, 60))}); err != nil {
					return nil, err
				}
			}
			inGarbage, sawHeader, length = true, false, -1
			continue
		}
		inGarbage, sawHeader = false, true
	}
	if length < 0 {
		return nil, &errFrame{code: protocol.CodeParseError, msg: "parse error: missing Content-Length header"}
	}
	if length > s.maxFrame {
		if _, err := io.CopyN(io.Discard, s.r, int64(length)); err != nil {
			return nil, err
		}
		return nil, &errFrame{code: protocol.CodeInvalidRequest, msg: fmt.Sprintf("frame of %d bytes exceeds %d", length, s.maxFrame)}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// maxHeaderLine bounds one LSP header line; a longer line is garbage.
const maxHeaderLine = 8 << 10

// readHeaderLine reads one line holding at most maxHeaderLine+1 bytes of it
// in memory: the rest of a longer line is discarded (the line is then too
// long to be a header, which is all the caller needs to know).
func (s *Stream) readHeaderLine() (string, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if room := maxHeaderLine + 1 - len(line); room > 0 {
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		switch err {
		case nil:
			return string(line), nil
		case bufio.ErrBufferFull:
			continue
		default:
			if err == io.EOF && len(line) > 0 {
				return string(line), io.ErrUnexpectedEOF
			}
			return "", err
		}
	}
}

// headerName reports whether s is an HTTP-style header token.
func headerName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// checkMessage accepts exactly one JSON-RPC 2.0 request, notification or
// response object. Batches are not supported.
func checkMessage(frame []byte) error {
	if !utf8.Valid(frame) {
		return &errFrame{code: protocol.CodeParseError, msg: "parse error: invalid UTF-8"}
	}
	// json.Unmarshal checks the whole frame is valid JSON before it decodes
	// anything, so a syntax error is a parse error whatever the frame holds.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(frame, &m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return &errFrame{code: protocol.CodeParseError, msg: "parse error: not valid JSON"}
		}
		switch bytes.TrimLeft(frame, " \t\r\n")[0] { // valid JSON: not empty
		case '[':
			return &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: batches are not supported"}
		case '{':
		default:
			return &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: not a JSON object"}
		}
		return &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: " + err.Error()}
	}
	if m == nil { // the frame is null
		return &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: not a JSON object"}
	}
	rawID, hasID := m["id"]
	idOK := !hasID || validID(rawID)
	var id json.RawMessage
	if hasID && idOK {
		id = rawID
	}
	bad := func(msg string) error {
		return &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: " + msg, id: id}
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	method, hasMethod := m["method"]
	switch {
	case string(m["jsonrpc"]) != `"2.0"`:
		return bad(`"jsonrpc" must be "2.0"`)
	case !idOK:
		return bad(`"id" must be a string or a non-negative integer`)
	case hasMethod:
		var name string
		if json.Unmarshal(method, &name) != nil || name == "" {
			return bad(`"method" must be a non-empty string`)
		}
		if hasResult || hasError {
			return bad("a message cannot be both a request and a response")
		}
		if p, ok := m["params"]; ok {
			if p = bytes.TrimSpace(p); p[0] != '{' && p[0] != '[' && string(p) != "null" {
				return bad(`"params" must be an object`)
			}
		}
	case hasResult || hasError:
		if !hasID {
			return bad(`a response needs an "id"`)
		}
	default:
		return bad(`neither a request (no "method") nor a response`)
	}
	return nil
}

// validID accepts what jsonrpc2.ID can carry: a string or a uint64.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	_, err := strconv.ParseUint(string(raw), 10, 64)
	return err == nil
}

// WriteObject writes one message as one frame.
func (s *Stream) WriteObject(obj any) error {
	var body []byte
	var err error
	if m, ok := obj.(json.Marshaler); ok {
		// jsonrpc2's messages encode themselves with json.Marshal; calling
		// json.Marshal on them again would only re-validate and copy the
		// bytes. A newline would end an NDJSON frame early: compact then.
		if body, err = m.MarshalJSON(); err == nil && bytes.ContainsAny(body, "\n\r") {
			var buf bytes.Buffer
			if err = json.Compact(&buf, body); err == nil {
				body = buf.Bytes()
			}
		}
	} else {
		body, err = json.Marshal(obj)
	}
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return s.writeFrame(body)
}

func (s *Stream) writeError(e *errFrame) error {
	id := e.id
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{e.code, e.msg}})
	if err != nil {
		return err
	}
	return s.writeFrame(body)
}

func (s *Stream) writeFrame(body []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var buf []byte
	if s.framing == FramingNDJSON {
		buf = append(append(make([]byte, 0, len(body)+1), body...), '\n')
	} else {
		buf = append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	}
	_, err := s.w.Write(buf)
	return err
}

// Close closes the underlying closer, if any.
func (s *Stream) Close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}
