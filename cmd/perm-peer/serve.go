package main

func runServe(args []string) int { return exitUsage }
func runDemo(args []string) int  { return exitUsage }
func runRules(args []string) int { return exitUsage }
