package peer

import (
	"fmt"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/protocol"
)

// askPrefix begins the id of every permission/ask we send ("ask-1"), so a
// frame the reader rejects can still be recognised as an answer to one.
const askPrefix = "ask-"

// Bounds on the questions waiting for the editor (docs/PROTOCOL.md §1): an
// escalation past them is rejected headless at once, never queued.
const (
	MaxPendingAsks     = 64
	MaxPendingAskBytes = 16 << 20 // the encoded permission/ask params
)

// askTable matches the editor's responses to our permission/ask requests.
// We send asks on the stream ourselves instead of with jsonrpc2's Call,
// because a Call whose context ends stays in the connection's pending map
// (with its tool call, up to a frame's size) forever; an entry here is
// removed the moment its ask is answered or withdrawn.
type askTable struct {
	mu      sync.Mutex
	waiting map[string]pendingAsk
	bytes   int
}

type pendingAsk struct {
	ch   chan *jsonrpc2.Response
	size int
}

// add registers ask id of size encoded bytes; its response arrives on the
// returned channel. Past the bounds it fails and registers nothing.
func (t *askTable) add(id string, size int) (<-chan *jsonrpc2.Response, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting == nil {
		t.waiting = map[string]pendingAsk{}
	}
	if len(t.waiting) >= MaxPendingAsks {
		return nil, fmt.Errorf("%d questions already wait for the editor (the limit)", len(t.waiting))
	}
	if t.bytes+size > MaxPendingAskBytes && len(t.waiting) > 0 {
		return nil, fmt.Errorf("the questions waiting for the editor already hold %d bytes (the limit is %d)", t.bytes, MaxPendingAskBytes)
	}
	ch := make(chan *jsonrpc2.Response, 1)
	t.waiting[id] = pendingAsk{ch: ch, size: size}
	t.bytes += size
	return ch, nil
}

// remove forgets ask id; a late response to it is ignored.
func (t *askTable) remove(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.takeLocked(id)
}

func (t *askTable) takeLocked(id string) (pendingAsk, bool) {
	p, ok := t.waiting[id]
	if ok {
		delete(t.waiting, id)
		t.bytes -= p.size
	}
	return p, ok
}

// deliver hands a response to the ask waiting for it, if any.
func (t *askTable) deliver(resp *jsonrpc2.Response) {
	if resp == nil || !resp.ID.IsString {
		return
	}
	t.mu.Lock()
	p, ok := t.takeLocked(resp.ID.Str)
	t.mu.Unlock()
	if ok {
		p.ch <- resp // buffered: never blocks the read loop
	}
}

// fail ends ask id with an error: its answer came in a frame the reader
// rejected (too large, not UTF-8, not JSON-RPC), which is a malformed reply
// and so a headless reject (SPEC §3.1, PROTOCOL §5).
func (t *askTable) fail(id, why string) {
	t.deliver(&jsonrpc2.Response{ID: jsonrpc2.ID{Str: id, IsString: true},
		Error: &jsonrpc2.Error{Code: protocol.CodeInvalidRequest, Message: "unreadable answer: " + why}})
}

// pending reports how many asks wait.
func (t *askTable) pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waiting)
}
