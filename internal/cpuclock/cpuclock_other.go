//go:build !unix

package cpuclock

import "time"

// Process is not measured on this platform: it is always 0.
func Process() time.Duration { return 0 }
