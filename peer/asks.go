package peer

import (
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// askTable matches the editor's responses to our permission/ask requests.
// We send asks on the stream ourselves instead of with jsonrpc2's Call,
// because a Call whose context ends stays in the connection's pending map
// (with its tool call, up to a frame's size) forever; an entry here is
// removed the moment its ask is answered or withdrawn.
type askTable struct {
	mu      sync.Mutex
	waiting map[string]chan *jsonrpc2.Response
}

// add registers ask id; its response arrives on the returned channel.
func (t *askTable) add(id string) <-chan *jsonrpc2.Response {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting == nil {
		t.waiting = map[string]chan *jsonrpc2.Response{}
	}
	ch := make(chan *jsonrpc2.Response, 1)
	t.waiting[id] = ch
	return ch
}

// remove forgets ask id; a late response to it is ignored.
func (t *askTable) remove(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.waiting, id)
}

// deliver is a jsonrpc2.OnRecv hook: it hands a response to the ask waiting
// for it, if any.
func (t *askTable) deliver(_ *jsonrpc2.Request, resp *jsonrpc2.Response) {
	if resp == nil || !resp.ID.IsString {
		return
	}
	t.mu.Lock()
	ch, ok := t.waiting[resp.ID.Str]
	delete(t.waiting, resp.ID.Str)
	t.mu.Unlock()
	if ok {
		ch <- resp // buffered: never blocks the read loop
	}
}
