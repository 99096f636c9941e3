//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package peer

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// InputWaiting sees a frame still in the read buffer, and bytes still in
// the kernel's pipe buffer; the server runs a request on its read loop only
// when it reports false.
func TestStreamInputWaiting(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	s := NewStream(r, io.Discard, nil, FramingNDJSON, 0)
	frame := `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n"

	_, err = w.WriteString(frame)
	require.NoError(t, err)
	_, err = s.ReadMessage()
	require.NoError(t, err)
	assert.False(t, s.InputWaiting(), "nothing after the frame")

	_, err = w.WriteString(frame)
	require.NoError(t, err)
	assert.True(t, s.InputWaiting(), "a frame in the pipe, not yet read")

	_, err = w.WriteString(frame)
	require.NoError(t, err)
	_, err = s.ReadMessage()
	require.NoError(t, err) // one read() takes both frames
	assert.True(t, s.InputWaiting(), "a frame in the read buffer")
	_, err = s.ReadMessage()
	require.NoError(t, err)
	assert.False(t, s.InputWaiting())

	// A reader without a descriptor cannot be asked: assume more input.
	s = NewStream(strings.NewReader(frame), io.Discard, nil, FramingNDJSON, 0)
	_, err = s.ReadMessage()
	require.NoError(t, err)
	assert.True(t, s.InputWaiting())
}
