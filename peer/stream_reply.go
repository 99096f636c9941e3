package peer

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"
)

// The writers below encode each message once, with the result or params
// marshalled once, and write the bytes jsonrpc2's own types would write
// ({"id":…,"result":…,"jsonrpc":"2.0"}). encoding/json never writes a line
// break (it compacts json.RawMessage too), so a body is one NDJSON line.

// WriteResult writes the response to request id with result v.
func (s *Stream) WriteResult(id jsonrpc2.ID, v any) error {
	res, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	body := make([]byte, 0, len(res)+48)
	body = append(appendID(append(body, `{"id":`...), id), `,"result":`...)
	body = append(append(body, res...), `,"jsonrpc":"2.0"}`...)
	return s.writeFrame(body)
}

// WriteErrorReply writes the error response to request id.
func (s *Stream) WriteErrorReply(id jsonrpc2.ID, e *jsonrpc2.Error) error {
	eb, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode error: %w", err)
	}
	body := make([]byte, 0, len(eb)+48)
	body = append(appendID(append(body, `{"id":`...), id), `,"error":`...)
	body = append(append(body, eb...), `,"jsonrpc":"2.0"}`...)
	return s.writeFrame(body)
}

// encodeRequest encodes a request (id set) or a notification (id nil) of
// ours to the editor, keys in the order jsonrpc2.Request writes them;
// params are encoded once.
func encodeRequest(id *jsonrpc2.ID, method string, params any) ([]byte, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	m, _ := json.Marshal(method) // a string: cannot fail
	body := make([]byte, 0, len(p)+len(m)+64)
	body = append(body, '{')
	if id != nil {
		body = append(appendID(append(body, `"id":`...), *id), ',')
	}
	body = append(append(append(body, `"jsonrpc":"2.0","method":`...), m...), `,"params":`...)
	return append(append(body, p...), '}'), nil
}

// WriteMessage writes an encoded message (encodeRequest) as one frame.
func (s *Stream) WriteMessage(body []byte) error { return s.writeFrame(body) }

// Notify writes a notification of ours to the editor.
func (s *Stream) Notify(method string, params any) error {
	body, err := encodeRequest(nil, method, params)
	if err != nil {
		return err
	}
	return s.writeFrame(body)
}

func appendID(b []byte, id jsonrpc2.ID) []byte {
	if id.IsString {
		s, _ := json.Marshal(id.Str) // a string: cannot fail
		return append(b, s...)
	}
	return strconv.AppendUint(b, id.Num, 10)
}
