//go:build validate

package main

import "github.com/perm-peer/perm-peer/schemas"

// Built with -tags validate, the echo validates params as perm-peer must.
func init() { validateParams = schemas.ValidateParams }
