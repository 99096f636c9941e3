//go:build race

package main

// raceEnabled: under `go test -race` the peer binary the e2e tests drive is
// built with the race detector too, so races in the real process fail tests.
const raceEnabled = true
