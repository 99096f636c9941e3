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
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			continue // the floor does not answer garbage
		}
		if m.ID == nil || m.Method == "" {
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
		}{"2.0", *m.ID, onceResult})
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
