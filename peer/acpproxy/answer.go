package acpproxy

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/perm-peer/perm-peer/protocol"
)

// codeRefused is the JSON-RPC error an agent gets for an editor-side effect
// perm-peer did not allow (ACP defines no code for it; -32000..-32099 is the
// implementation-defined range).
const codeRefused = -32010

// codeCancelled answers a request withdrawn by session/cancel.
const codeCancelled = -32800

// lineWriter writes whole lines to one side; lines from several goroutines
// never interleave.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// write sends line and a newline in one write.
func (lw *lineWriter) write(line []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	lw.buf = append(append(lw.buf[:0], line...), '\n')
	_, lw.err = lw.w.Write(lw.buf)
	if cap(lw.buf) > 1<<20 {
		lw.buf = nil // do not keep a huge line's buffer
	}
	return lw.err
}

// send encodes msg as one line.
func (lw *lineWriter) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return lw.write(b)
}

type rpcResult struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func result(id json.RawMessage, v any) rpcResult {
	return rpcResult{JSONRPC: "2.0", ID: id, Result: v}
}

func failure(id json.RawMessage, code int, msg string, data any) rpcError {
	return rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{Code: code, Message: msg, Data: data}}
}

// cancelled is ACP's cancelled outcome.
func cancelled(meta *protocol.ReplyMeta) protocol.ACPRequestPermissionResult {
	return protocol.ACPRequestPermissionResult{Outcome: protocol.ACPOutcome{Outcome: protocol.ACPOutcomeCancelled}, Meta: meta}
}

// selected picks option id.
func selected(id string, meta *protocol.ReplyMeta) protocol.ACPRequestPermissionResult {
	return protocol.ACPRequestPermissionResult{Outcome: protocol.ACPOutcome{Outcome: protocol.ACPOutcomeSelected, OptionID: id}, Meta: meta}
}

// optionOf returns the kind of the offered option id ("" if not offered).
func optionOf(opts []protocol.ACPPermissionOption, id string) protocol.ACPPermissionKind {
	for _, o := range opts {
		if o.OptionID == id {
			return o.Kind
		}
	}
	return ""
}

// firstOfKind returns the id of the first offered option of one of kinds,
// in the order of kinds ("" if none).
func firstOfKind(opts []protocol.ACPPermissionOption, kinds ...protocol.ACPPermissionKind) string {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return o.OptionID
			}
		}
	}
	return ""
}

// rejection is the answer that allows nothing: the agent's reject option,
// else cancelled.
func rejection(opts []protocol.ACPPermissionOption, meta *protocol.ReplyMeta) protocol.ACPRequestPermissionResult {
	if id := firstOfKind(opts, protocol.ACPRejectOnce, protocol.ACPRejectAlways); id != "" {
		return selected(id, meta)
	}
	return cancelled(meta)
}

// editorAnswer is the editor's result for a forwarded permission request.
type editorAnswer struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

// userReply maps the editor's answer to the human's reply by the chosen
// option's kind, never its id; it returns the kind too.
func userReply(resp envelope, opts []protocol.ACPPermissionOption) (protocol.PermissionReply, protocol.ACPPermissionKind, error) {
	if resp.err != nil {
		return protocol.PermissionReply{}, "", errors.New("the editor answered the permission request with an error: " + string(resp.err))
	}
	var a editorAnswer
	if err := decodeStrict(resp.result, &a); err != nil {
		return protocol.PermissionReply{}, "", errors.New("the editor's answer: " + err.Error())
	}
	switch a.Outcome.Outcome {
	case protocol.ACPOutcomeCancelled:
		return protocol.PermissionReply{}, "", errors.New("the editor cancelled the permission request")
	case protocol.ACPOutcomeSelected:
	default:
		return protocol.PermissionReply{}, "", errors.New("the editor's answer has no known outcome")
	}
	kind := optionOf(opts, a.Outcome.OptionID)
	switch kind {
	case protocol.ACPAllowOnce:
		return protocol.PermissionReply{Reply: protocol.ReplyOnce}, kind, nil
	case protocol.ACPAllowAlways:
		return protocol.PermissionReply{Reply: protocol.ReplyAlways}, kind, nil
	case protocol.ACPRejectOnce, protocol.ACPRejectAlways:
		return protocol.PermissionReply{Reply: protocol.ReplyReject}, kind, nil
	}
	return protocol.PermissionReply{}, "", errors.New("the editor chose an option the agent did not offer")
}
