package main

import (
	"fmt"
	"runtime/debug"
)

// runVersion prints the module version, the commit it was built from
// (with "+dirty" for uncommitted changes) and the Go release.
func runVersion(args []string) int {
	if len(args) > 0 {
		fmt.Printf("perm-peer version takes no arguments\n")
		return exitUsage
	}
	fmt.Println(versionLine())
	return exitOK
}

func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "perm-peer (unknown build)"
	}
	rev, dirty, when := "", "", ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		case "vcs.time":
			when = " " + s.Value
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		rev = "no commit recorded"
	}
	return fmt.Sprintf("perm-peer %s (%s%s%s, %s)", bi.Main.Version, rev, dirty, when, bi.GoVersion)
}
