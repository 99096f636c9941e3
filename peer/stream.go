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

// Stream frames JSON-RPC messages and survives bad input: a frame that is
// not JSON, not a JSON-RPC message or too large is answered with an error
// response here, and ReadMessage goes on to the next frame. Only a real end
// of input (or a broken pipe, or a stream that cannot be resynchronized)
// surfaces as an error.
type Stream struct {
	src      io.Reader // what r reads from, for inputWaiting
	r        *bufio.Reader
	w        io.Writer
	closer   io.Closer
	maxFrame int

	framing Framing // decided on the first frame when auto
	// discard is the body of an oversized LSP frame still to be skipped:
	// the frame was answered when its header was read (M8).
	discard int64

	wmu sync.Mutex // serializes whole frames on w

	// OnBadAnswer, when set, is told the ask id of a frame the reader
	// rejected that answers one of our permission/ask requests (SPEC §3.1).
	OnBadAnswer func(askID, why string)
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
	// askID is set when the frame answers one of our asks: the ask ends.
	askID string
	// answered: the error was already written (an oversized LSP frame is
	// answered when its header is read); only askID remains to act on
	answered bool
}

func (e *errFrame) Error() string { return e.msg }

// ReadMessage reads the next valid JSON-RPC message, decoding its frame once.
func (s *Stream) ReadMessage() (Message, error) {
	for {
		frame, err := s.readFrame()
		var msg Message
		if err == nil {
			msg, err = decodeMessage(frame)
		}
		var bad *errFrame
		if errors.As(err, &bad) {
			// the error frame goes out before the ask it ends is answered,
			// so the wire shows cause before effect
			var werr error
			if !bad.answered {
				werr = s.writeError(bad)
			}
			if bad.askID != "" && s.OnBadAnswer != nil {
				s.OnBadAnswer(bad.askID, bad.msg)
			}
			if werr != nil {
				return Message{}, werr
			}
			continue
		}
		return msg, err
	}
}

// readFrame returns the next frame's bytes, an *errFrame for a consumed bad
// frame, or the reader's error.
func (s *Stream) readFrame() ([]byte, error) {
	if s.discard > 0 {
		return nil, s.skipBody()
	}
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

// skipBody discards the body of an oversized LSP frame, already answered,
// keeping its first skimMax bytes to read an ask id from.
func (s *Stream) skipBody() error {
	n := s.discard
	s.discard = 0
	head := make([]byte, min(n, skimMax))
	if _, err := io.ReadFull(s.r, head); err != nil {
		return io.ErrUnexpectedEOF
	}
	if _, err := io.CopyN(io.Discard, s.r, n-int64(len(head))); err != nil {
		return io.ErrUnexpectedEOF
	}
	return &errFrame{msg: fmt.Sprintf("frame of %d bytes exceeds %d", n, s.maxFrame), askID: skimAskID(head), answered: true}
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

// readLine reads one NDJSON line, skipping blank lines. A line whose body
// (without its line end) is longer than maxFrame is consumed to its end and
// reported; the same limit as an LSP body (L1).
func (s *Stream) readLine() ([]byte, error) {
	for {
		var line, head []byte
		tooBig := false
		for {
			chunk, err := s.r.ReadSlice('\n')
			if !tooBig {
				if len(line)+len(chunk) > s.maxFrame+2 { // more than the body and a CRLF
					tooBig, head, line = true, line[:min(len(line), skimMax)], nil
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
			return nil, &errFrame{code: protocol.CodeInvalidRequest, msg: fmt.Sprintf("frame exceeds %d bytes", s.maxFrame), askID: skimAskID(head)}
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if len(bytes.TrimRight(line, "\r\n")) > s.maxFrame {
				return nil, &errFrame{code: protocol.CodeInvalidRequest, msg: fmt.Sprintf("frame exceeds %d bytes", s.maxFrame), askID: skimAskID(line)}
			}
			return trimmed, nil
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
		if int64(length) > lostStreamFactor*int64(s.maxFrame) {
			// no editor sends that: the framing is lost, not one frame
			_ = s.writeError(&errFrame{code: protocol.CodeInvalidRequest, msg: fmt.Sprintf("frame of %d bytes exceeds %d by far: the stream is treated as lost", length, s.maxFrame)})
			return nil, fmt.Errorf("%w: Content-Length %d", ErrLostStream, length)
		}
		// answered now, not after the body arrives; the body is skipped next
		s.discard = int64(length)
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

// lostStreamFactor: a Content-Length this many times the frame limit (1 GiB
// at 4 MiB) is not a frame to skip but a stream that lost its framing.
const lostStreamFactor = 256

// ErrLostStream ends reading: the input cannot be resynchronized.
var ErrLostStream = errors.New("the input stream lost its framing")

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
