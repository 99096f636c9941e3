//go:build !unix

package acpproxy

import "io"

// hangup never reports one here: the proxy waits for the agent to read.
func hangup(io.Reader, <-chan struct{}) <-chan struct{} { return make(chan struct{}) }
