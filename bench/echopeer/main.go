package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// maxFrame matches perm-peer's default frame limit.
const maxFrame = 4 << 20

// message is a whole JSON-RPC message, decoded as fully as a real peer
// decodes one (params included), so the floor pays the same parse cost.
type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Method  string           `json:"method"`
	Params  any              `json:"params"`
}

var onceResult = json.RawMessage(`{"reply":"once"}`)

// validateParams is nil unless the binary is built with -tags validate
// (validate.go): then every request's params are also checked against
// perm-peer's schemas by the validator SPEC §4 mandates, the floor any
// conforming peer pays on top of the echo.
var validateParams func(method string, params json.RawMessage) error

// rawMessage is message with the params kept as bytes for validateParams.
type rawMessage struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Method  string           `json:"method"`
	Params  json.RawMessage  `json:"params"`
}

func main() {
	commitDB := flag.String("commit-db", "", "commit one key durably to this bbolt file before each reply")
	flag.Parse()
	var rec recorder
	if *commitDB != "" {
		db, err := bolt.Open(*commitDB, 0o600, nil)
		if err != nil {
			slog.Error("echopeer", "err", err)
			os.Exit(1)
		}
		defer db.Close()
		rec = commitOne(db)
	}
	if err := serve(os.Stdin, os.Stdout, rec); err != nil {
		slog.Error("echopeer", "err", err)
		os.Exit(1)
	}
}

// recorder, when set, runs before each reply: --commit-db makes it one
// durable bbolt commit, the least "audit before reply" can cost.
type recorder func() error

// commitOne returns a recorder that puts one 400-byte value (about an audit
// record) under the next big-endian key, in its own transaction: bbolt
// fsyncs before Update returns.
func commitOne(db *bolt.DB) recorder {
	var seq uint64
	value := make([]byte, 400)
	return func() error {
		seq++
		key := binary.BigEndian.AppendUint64(nil, seq)
		return db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("records"))
			if err != nil {
				return err
			}
			return b.Put(key, value)
		})
	}
}

// serve answers requests on r until EOF, calling rec (if set) before each
// reply. Replies are written unbuffered, one write per frame, as perm-peer
// writes them.
func serve(r io.Reader, w io.Writer, rec recorder) error {
	br := bufio.NewReaderSize(r, 64<<10)
	ndjson, err := detect(br)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("detect framing: %w", err)
	}
	for {
		var body []byte
		if ndjson {
			body, err = readLine(br)
		} else {
			body, err = readLSP(br)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read frame: %w", err)
		}
		id, method, err := decodeMessage(body)
		if err != nil {
			continue // the floor does not answer garbage
		}
		if id == nil || method == "" {
			continue // notifications and responses get no reply
		}
		if rec != nil {
			if err := rec(); err != nil {
				return fmt.Errorf("commit: %w", err)
			}
		}
		out, err := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{"2.0", *id, onceResult})
		if err != nil {
			return fmt.Errorf("encode reply: %w", err)
		}
		if ndjson {
			out = append(out, '\n')
		} else {
			out = append([]byte("Content-Length: "+strconv.Itoa(len(out))+"\r\n\r\n"), out...)
		}
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("write reply: %w", err)
		}
	}
}

// decodeMessage decodes a whole message, params included; with
// validateParams set, the validator's own decoding of the params stands in
// for the echo's (an invalid one is answered like a valid one: the floor
// only pays the cost).
func decodeMessage(body []byte) (*json.RawMessage, string, error) {
	if validateParams == nil {
		var m message
		err := json.Unmarshal(body, &m)
		return m.ID, m.Method, err
	}
	var m rawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, "", err
	}
	_ = validateParams(m.Method, m.Params) // decodes the params itself
	return m.ID, m.Method, nil
}

// detect skips blank bytes and reports whether the first message is NDJSON
// (it starts with '{' or '[') rather than Content-Length framed.
func detect(br *bufio.Reader) (bool, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return false, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b == '{' || b == '[', br.UnreadByte()
	}
}

func readLine(br *bufio.Reader) ([]byte, error) {
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > maxFrame {
			return nil, fmt.Errorf("frame exceeds %d bytes", maxFrame)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func readLSP(br *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF && length >= 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if length >= 0 {
				break
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || length < 0 || length > maxFrame {
				return nil, errors.New("bad Content-Length " + strconv.Quote(v))
			}
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, err
	}
	return body, nil
}
