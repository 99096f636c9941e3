package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	file := flag.String("file", "", "the run's tally file")
	flag.Parse()
	args := flag.Args()
	if *file == "" || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: testtally -file F gotest|tap|summary|exit|total ...")
		os.Exit(2)
	}
	if args[0] == "total" {
		os.Exit(total(*file, args[1:], os.Stdout))
	}
	mode, stage, name, cmdArgs, ok := parseArgs(args)
	if !ok {
		fmt.Fprintln(os.Stderr, "usage: testtally -file F MODE STAGE [NAME] -- CMD ARGS...")
		os.Exit(2)
	}
	c, err := run(mode, stage, name, cmdArgs, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testtally: %v\n", err)
		c.failed++
	}
	if err := record(*file, stage, c); err != nil {
		fmt.Fprintf(os.Stderr, "testtally: %v\n", err)
		os.Exit(2)
	}
	if c.failed > 0 {
		os.Exit(1)
	}
}

// parseArgs splits "MODE STAGE [NAME] -- CMD ARGS..."; NAME defaults to
// the command line.
func parseArgs(args []string) (mode, stage, name string, argv []string, ok bool) {
	dash := -1
	for i, a := range args {
		if a == "--" {
			dash = i
			break
		}
	}
	if dash < 2 || dash > 3 || dash == len(args)-1 {
		return "", "", "", nil, false
	}
	mode, stage, argv = args[0], args[1], args[dash+1:]
	name = strings.Join(argv, " ")
	if dash == 3 {
		name = args[2]
	}
	return mode, stage, name, argv, true
}

// count is one stage's result. failures names what failed, so that the
// run's last lines (often all a CI page keeps) say which test it was.
type count struct {
	passed, failed int
	failures       []string
}

// run runs the command, counting its results by mode.
func run(mode, stage, name string, argv []string, out io.Writer) (count, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = nil
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return count{}, err
	}
	if err := cmd.Start(); err != nil {
		return count{}, fmt.Errorf("%s: %w", stage, err)
	}
	var c count
	var quiet bytes.Buffer
	switch mode {
	case "gotest":
		c = readGoTest(stdout, out)
	case "tap":
		c = readTAP(stdout, out)
	case "summary":
		c = readSummary(stdout, out)
	case "exit":
		_, _ = io.Copy(&quiet, stdout) // shown only when the check fails
	default:
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return count{}, fmt.Errorf("unknown mode %q", mode)
	}
	werr := cmd.Wait()
	switch {
	case mode == "exit" && werr == nil:
		fmt.Fprintf(out, "  ok    %s\n", name)
		c.passed++
	case mode == "exit":
		_, _ = out.Write(quiet.Bytes())
		fmt.Fprintf(out, "  FAIL  %s (%v)\n", name, werr)
		c.failed++
		c.failures = append(c.failures, name)
	case werr != nil && c.failed == 0:
		fmt.Fprintf(out, "  FAIL  %s: %s %v with no failed test counted\n", stage, argv[0], werr)
		c.failed++
		c.failures = append(c.failures, fmt.Sprintf("%s exited: %v", argv[0], werr))
	}
	return c, nil
}

func record(file, stage string, c count) error {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s\t%d\t%d\n", stage, c.passed, c.failed)
	for _, name := range c.failures {
		if err == nil {
			_, err = fmt.Fprintf(f, "%s\tFAIL\t%s\n", stage, oneLine(name))
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// total prints each stage's count (stages in the order they ran, a stage
// recorded more than once summed), the name of every failed test, and the
// one closing line. An expected stage that recorded nothing (it could not
// start) is one failure.
func total(file string, expected []string, out io.Writer) int {
	var order []string
	per := map[string]*count{}
	f, err := os.Open(file)
	if err != nil {
		f, _ = os.Open(os.DevNull)
	}
	defer f.Close()
	var failures []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if stage, name, ok := strings.Cut(sc.Text(), "\tFAIL\t"); ok {
			failures = append(failures, stage+": "+name)
			continue
		}
		var stage string
		var c count
		if n, _ := fmt.Sscanf(sc.Text(), "%s\t%d\t%d", &stage, &c.passed, &c.failed); n != 3 {
			continue
		}
		if per[stage] == nil {
			per[stage] = &count{}
			order = append(order, stage)
		}
		per[stage].passed += c.passed
		per[stage].failed += c.failed
	}
	for _, s := range expected {
		if per[s] == nil {
			fmt.Fprintf(out, "  FAIL  stage %s recorded nothing (it did not run to its end)\n", s)
			per[s] = &count{failed: 1}
			order = append(order, s)
		}
	}
	var all count
	fmt.Fprintln(out, "== summary")
	for _, s := range order {
		c := per[s]
		fmt.Fprintf(out, "  %-12s %d passed, %d failed\n", s, c.passed, c.failed)
		all.passed += c.passed
		all.failed += c.failed
	}
	if len(order) == 0 {
		all.failed = 1
	}
	for _, f := range failures {
		fmt.Fprintf(out, "  failed: %s\n", f)
	}
	fmt.Fprintf(out, "%d passed, %d failed\n", all.passed, all.failed)
	if all.failed > 0 {
		return 1
	}
	return 0
}

// oneLine keeps a failure's name to one line of a readable length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
