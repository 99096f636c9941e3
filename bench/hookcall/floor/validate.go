//go:build validate

package main

// Built with -tags validate, the floor links perm-peer's schema validator,
// whose package inits every perm-peer process pays.
import _ "github.com/perm-peer/perm-peer/schemas"
