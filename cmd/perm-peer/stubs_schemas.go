package main

// STUB: replaced by the schemas/conformance issue (schemas.go, conformance.go).

func runSchemas(args []string) int     { return exitUsage }
func runConformance(args []string) int { return exitUsage }
