package main

// STUB: replaced by the gate issue (check.go, eval.go).

func runCheck(args []string) int { return exitUsage }
func runEval(args []string) int  { return exitUsage }
