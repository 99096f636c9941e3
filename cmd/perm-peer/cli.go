package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// newFlags is a subcommand's flag set: errors are returned, not printed, so
// that each command prints its own usage once.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseCommand parses a subcommand's flags, which may stand before, between
// or after its operands. -h prints usage to stdout and stops with exit 0; a
// bad flag, or an operand count operandsOK refuses, prints the error and
// usage to stderr and stops with exit 2. ok reports whether the command goes
// on.
func parseCommand(fs *flag.FlagSet, args []string, usage string, operandsOK func(n int) bool) (pos []string, code int, ok bool) {
	pos, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Println(usage)
		return nil, exitOK, false
	case err != nil:
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n%s\n", fs.Name(), err, usage)
		return nil, exitUsage, false
	case !operandsOK(len(pos)):
		fmt.Fprintln(os.Stderr, usage)
		return nil, exitUsage, false
	}
	return pos, exitOK, true
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments ("grants revoke 3 --db x") and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// Operand counts for parseCommand.
func noOperands(n int) bool { return n == 0 }
func oneOperand(n int) bool { return n == 1 }
func atMostOne(n int) bool  { return n <= 1 }
func anyOperands(int) bool  { return true }

// fail reports err as perm-peer CMD's and returns code.
func fail(cmd string, code int, err error) int {
	fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", cmd, err)
	return code
}

// writeJSONLines writes one JSON object a line to stdout (HTML left as is:
// commands and paths carry < > &).
func writeJSONLines[T any](cmd string, items []T) int {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return fail(cmd, exitFailed, fmt.Errorf("write: %w", err))
		}
	}
	return exitOK
}

// writeJSON writes v to stdout as one indented JSON document.
func writeJSON(cmd string, v any) int {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(cmd, exitFailed, fmt.Errorf("write: %w", err))
	}
	return exitOK
}
