package main

// STUB: replaced by the store issue (audit.go, grants.go).

func runAudit(args []string) int  { return exitUsage }
func runGrants(args []string) int { return exitUsage }
