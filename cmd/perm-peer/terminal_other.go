//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package main

import "os"

// isTerminal only serves the hint printed to a person at a terminal; where
// it cannot tell, it says no.
func isTerminal(*os.File) bool { return false }
