package gate_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/protocol"
)

// The programs golden locks the gate's answer for every program it names
// (testdata/programs.txt: the 538 names of issue 23's start, one member of
// each of the 7 prefix families, and the 99 the table declared since:
// TestProgramsListCoversTable keeps it whole), called bare, with --version, --help and -v, with an
// invented flag and with a file operand, and for the common subcommands of
// the programs that have them. Half of these names appear in no corpus
// row, so the verdict golden alone says nothing about them while their
// code moves into the table. Regenerate with:
//   go test ./gate/ -run TestProgramsGolden -update

const (
	programsFile   = "testdata/programs.txt"
	programsGolden = "testdata/programs.golden.jsonl"
	// wrapperProbes are calls of the wrappers (cmds/wrappers.go), one a
	// line: their options, subcommands, operands and hooks' forms, which
	// issue 23 S4 moved from code into the table without changing one
	wrapperProbes = "testdata/wrapper-probes.txt"
)

// programArgs are the argument lists every program is called with.
var programArgs = []string{"", "--version", "--help", "-v", "--zz-bogus", "README.md", "--zz-bogus README.md"}

// subcommandProbes are the read-only forms of programs with subcommands:
// each is called as it is and with an invented flag.
var subcommandProbes = []string{
	"git log", "git status", "git diff", "git show", "git branch", "git blame README.md", "git ls-files", "git rev-parse HEAD",
	"git tag", "git remote -v", "git stash list", "git config --get user.name", "git describe", "git shortlog", "git reflog",
	"git grep foo", "git ls-tree HEAD", "git cat-file -p HEAD", "git log -p README.md", "git diff --stat",
	"docker ps", "docker images", "docker logs web", "docker inspect web", "docker version", "docker info",
	"docker compose ps", "docker compose logs", "podman ps", "kubectl get pods", "kubectl describe pod x", "kubectl logs x",
	"go version", "go env", "go list ./...", "go vet ./...", "go test ./...", "go build ./...", "go doc fmt",
	"npm ls", "npm view react", "npm test", "npm run build", "npm outdated", "yarn list", "pnpm ls",
	"cargo build", "cargo test", "cargo tree", "cargo metadata", "pip list", "pip show requests", "pip freeze",
	"systemctl status nginx", "systemctl list-units", "brew list", "gh pr list", "gh repo view", "helm list",
	"terraform plan", "terraform show", "aws s3 ls", "gcloud config list", "uv pip list", "poetry show",
	"make -n", "rg foo", "rg -n foo src", "grep foo README.md", "grep -rn foo .", "jq . a.json", "yq . a.yaml",
	"find . -name x", "fd x", "ag foo", "ack foo", "ps aux", "date +%s", "printenv HOME", "which go",
	"realpath README.md", "zipinfo a.zip", "tee out.txt", "sed -n 1p README.md", "awk '{print}' README.md",
	"tar -tf a.tar", "ip addr", "ss -ltn", "ssh-keygen -l -f key.pub", "telnet example.com 23", "sort -k 2 README.md",
	"uniq -c README.md", "ls --col=auto", "openssl version",
}

// programCases are the calls of the programs golden.
func programCases(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(programsFile)
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(data))
	if len(names) != 644 {
		t.Fatalf("%s has %d names, want 538, 7 family members and the 99 the table declared since", programsFile, len(names))
	}
	var cmds []string
	for _, n := range names {
		for _, a := range programArgs {
			cmds = append(cmds, strings.TrimSpace(n+" "+a))
		}
	}
	for _, p := range subcommandProbes {
		cmds = append(cmds, p, p+" --zz-bogus")
	}
	probes, err := os.ReadFile(wrapperProbes)
	if err != nil {
		t.Fatal(err)
	}
	cmds = append(cmds, strings.Split(strings.TrimSpace(string(probes)), "\n")...)
	slices.Sort(cmds)
	return slices.Compact(cmds)
}

// programLine is one line of the programs golden: the call and the gate's
// answer without the facts (the verdict golden has those for the corpus).
type programLine struct {
	Cmd       string             `json:"cmd"`
	Decision  protocol.Decision  `json:"decision"`
	HumanOnly bool               `json:"humanOnly,omitempty"`
	DecidedBy protocol.DecidedBy `json:"decidedBy"`
	Reasons   []protocol.Reason  `json:"reasons"`
}

func programsEnv(t *testing.T) gate.Env {
	t.Helper()
	pol, err := gate.PolicyFrom(protocol.Policy{}, protocol.Policy{}, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	return gate.Env{Project: "/repo", Cwd: "/repo", Home: "/home/u", Policy: pol}
}

func TestProgramsGolden(t *testing.T) {
	e := programsEnv(t)
	var out bytes.Buffer
	got := map[string]string{}
	cmds := programCases(t)
	for _, c := range cmds {
		in, _ := json.Marshal(map[string]string{"command": c})
		v := gate.Analyze(protocol.ToolCall{Tool: "bash", Kind: protocol.KindExecute, RawInput: in}, e)
		line, err := json.Marshal(programLine{Cmd: c, Decision: v.Decision, HumanOnly: v.HumanOnly, DecidedBy: v.DecidedBy, Reasons: v.Reasons})
		if err != nil {
			t.Fatal(err)
		}
		got[c] = string(line)
		out.Write(line)
		out.WriteByte('\n')
	}
	if *update {
		if err := os.WriteFile(programsGolden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d verdicts to %s", len(cmds), programsGolden)
		return
	}
	f, err := os.Open(programsGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l programLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		want[l.Cmd] = sc.Text()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cmds {
		if w := want[c]; w != got[c] {
			if n++; n <= 40 {
				t.Errorf("%s\n  want %s\n  got  %s", c, w, got[c])
			}
		}
		delete(want, c)
	}
	for c := range want {
		n++
		t.Errorf("case gone from the inputs: %s", c)
	}
	if n > 0 {
		t.Errorf("%d of %d program verdicts differ from %s; explain each in the commit and run with -update", n, len(cmds), programsGolden)
	}
}
