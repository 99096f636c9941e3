package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// The hooks of the container and cluster CLIs (cmds/containers.go):
// docker run/exec's options and mounts and the command they run, the
// docker CLI's inspecting forms, builds, copies, and kubectl's, helm's
// and oc's teardowns.

// dockerVal are docker run's, exec's and compose's options that take a
// value.
var dockerVal = map[string]bool{"-e": true, "--env": true, "-u": true, "--user": true, "-w": true, "--workdir": true, "-v": true,
	"--volume": true, "--name": true, "-p": true, "--publish": true, "--network": true, "--net": true, "--entrypoint": true, "-m": true,
	"--memory": true, "--cpus": true, "--mount": true, "--label": true, "-l": true, "--env-file": true, "--platform": true,
	"--pull": true, "--restart": true, "--hostname": true, "-h": true, "--add-host": true, "--device": true, "--cap-add": true,
	"--cap-drop": true, "--security-opt": true, "--userns": true, "--ulimit": true, "--tmpfs": true, "--log-driver": true, "--log-opt": true,
	"--ipc": true, "--pid": true, "--gpus": true, "--shm-size": true, "--detach-keys": true, "-f": true, "--file": true,
	"--project-name": true, "--profile": true, "--runtime": true, "--dns": true, "--expose": true, "--group-add": true}

// container reads docker, podman and nerdctl: run and exec run a
// command in a container (analysed as the inner command), with the
// environment files and bind mounts it is given; the rest of the CLI is
// read by dockerCLI through plain.
func (a *analyzer) container(f *rfact, idx int, args []word, sc *scope) summary {
	// --env-file .env hands the file's secrets to the container's program,
	// like . ./.env && cmd: a read of the file
	// (compose's --env-file .env names the file compose loads anyway: no
	// more than docker compose up without it)
	compose := slices.ContainsFunc(args, func(w word) bool { return w.val == "compose" })
	read := func(w word) {
		if compose && !w.dyn && a.resolvePath(w.val, sc.cwd, false).abs == a.resolvePath(".env", sc.cwd, false).abs {
			return
		}
		a.readWord(w, sc, idx, false)
	}
	for j, w := range args {
		if v, ok := strings.CutPrefix(w.val, "--env-file="); ok {
			read(word{val: v, dyn: w.dyn})
		} else if w.val == "--env-file" && j+1 < len(args) {
			read(args[j+1])
		}
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].val, "-") {
		if dockerVal[args[i].val] {
			i++
		}
		i++
	}
	if i < len(args) && args[i].val == "compose" {
		i++
		for i < len(args) && strings.HasPrefix(args[i].val, "-") {
			if dockerVal[args[i].val] {
				i++
			}
			i++
		}
	}
	if i+1 < len(args) && args[i].val == "container" && (args[i+1].val == "exec" || args[i+1].val == "run") {
		i++ // docker container run is docker run
	}
	if i >= len(args) || (args[i].val != "exec" && args[i].val != "run") {
		return a.plain(f, idx, "docker", args, sc)
	}
	a.noAlways = true
	f.wrapper = true
	f.open = reason("ask.runner", "runs a program in a container")
	i++
	for i < len(args) && strings.HasPrefix(args[i].val, "-") {
		n, v, eq := strings.Cut(args[i].val, "=")
		if dockerVal[n] && !eq && i+1 < len(args) {
			v = args[i+1].val
		}
		if w := args[i].val; len(w) > 2 && strings.HasPrefix(w, "-v") {
			n, v = "-v", w[2:] // -v/:/host, the value attached
		}
		if n == "-v" || n == "--volume" || n == "--mount" {
			a.containerMount(f, n, v, sc, idx)
		}
		if hostRoot(n, v) {
			f.human = reason("human.privileged", "docker "+clip(args[i].val, 80)+" gives the container root on the host")
		}
		if dockerVal[args[i].val] {
			i++
		}
		i++
	}
	i++ // container, image or service
	if i < len(args) {
		return a.inner(args[i:], sc, idx)
	}
	return summary{}
}

// hostRoot reports a flag of docker run (value v) that gives the container
// root on the host, as sudo would: --privileged, the host's process or
// user namespace, a host device, or a capability that reaches past the
// container (mount, modules, ptrace, reading any file).
func hostRoot(n, v string) bool {
	switch n {
	case "--privileged":
		return v != "false"
	case "--pid", "--userns":
		return v == "host"
	case "--device":
		return true
	case "--cap-add":
		switch strings.ToUpper(strings.TrimPrefix(strings.ToUpper(v), "CAP_")) {
		case "ALL", "SYS_ADMIN", "SYS_MODULE", "SYS_PTRACE", "DAC_READ_SEARCH", "SYS_RAWIO":
			return true
		}
	}
	return false
}

// containerMount checks a bind mount: a container given /, a system
// directory, the home or a secret reads everything in it.
func (fl *factLog) containerMount(f *rfact, flag, v string, sc *scope, idx int) {
	host, _, _ := strings.Cut(v, ":")
	if flag == "--mount" {
		host = ""
		for _, kv := range strings.Split(v, ",") {
			if k, x, ok := strings.Cut(kv, "="); ok && (k == "source" || k == "src") {
				host = x
			}
		}
	}
	if host == "" || !strings.ContainsAny(host[:1], "/~.") {
		return // a named volume
	}
	r := fl.resolvePath(host, sc.cwd, false)
	if fl.sensitive(r) || r.known && fl.floorTarget(r.abs) && !fl.inProject(r) {
		fl.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
			human: reason("human.sensitive-read", "mounts "+r.abs+" into a container, secrets included")})
	}
}

// dockerCLI reads the docker CLI's other forms (podman's and nerdctl's
// are read as docker's): the ones that only inspect, compose config (it
// prints the .env it interpolates), builds, inspect (a container's
// environment), cp.
func (c *plainCall) dockerCLI() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	if len(args) > 0 {
		switch args[0].val {
		case "ps", "images", "version", "info", "logs", "port", "stats", "top":
			c.safe(lb + " " + args[0].val + " only inspects")
		case "container", "image":
			// container ls and image ls are docker ps and docker images
			// (the management commands' queries of the table)
			if len(args) > 1 && cmds.Lookup(lb).Sub(args[0].val).Sub(args[1].val) != nil {
				c.safe(lb + " " + args[0].val + " " + args[1].val + " only lists")
			} else if args[0].val == "image" {
				c.dockerBuild()
			} else if len(args) > 1 && args[1].val == "cp" {
				c.copyOut(args[2:]) // docker container cp is docker cp
			}
		case "compose":
			// compose ps/logs are docker ps/logs of the project's
			// services; compose config would print the interpolated .env
			if len(args) > 1 && (args[1].val == "ps" || args[1].val == "logs" || args[1].val == "version" || args[1].val == "ls") {
				c.safe(lb + " compose " + args[1].val + " only inspects")
			}
			if slices.ContainsFunc(args[1:], func(w word) bool { return w.val == "config" }) && !hasFlag(args, "--no-interpolate") {
				// it prints the compose file with the project's .env filled in
				a.readWord(word{val: ".env"}, sc, idx, false)
			}
		case "network", "volume":
			if len(args) == 2 && args[1].val == "ls" {
				c.safe(lb + " " + args[0].val + " ls only lists")
			}
		case "build", "buildx":
			c.dockerBuild()
		case "inspect":
			// a container's configuration holds its environment: API keys;
			// a --format template that names other fields prints those
			if tmpl := optionValues(args, 'f', "--format"); len(tmpl) == 0 || slices.ContainsFunc(tmpl, dockerTemplateMayPrintEnv) {
				f.ask = reason("ask.flag", lb+" inspect prints container environment variables")
			} else {
				c.safe(lb + " inspect prints the fields its template names")
			}
		case "cp":
			c.copyOut(args[1:])
		}
	}
}

// kube reads kubectl, helm and oc: cp copies between the pod and local
// files; deleting a namespace or everything, and uninstalling, tear
// deployments down.
func (c *plainCall) kube() {
	f, lb, args, t := c.f, c.lb, c.args, cmds.ToolOf(c.lb)
	ops := operands(args, map[string]bool{"-n": true, "--namespace": true, "--context": true, "-o": true, "-c": true, "--container": true})
	if len(ops) > 0 && args[ops[0]].val == "cp" {
		c.copyOut(args[ops[0]+1:])
	}
	if len(ops) > 1 && (args[ops[0]].val == "delete" && (strings.HasPrefix(args[ops[1]].val, "ns") || strings.HasPrefix(args[ops[1]].val, "namespace") || hasFlag(args, "--all")) ||
		slices.Contains(t.Uninstalls, args[ops[0]].val)) {
		f.human = reason("human.teardown", lb+" deletes a deployment or namespace")
	}
	c.kubeQuery()
}

// kubeQuery finds kubectl's queries known-safe (the table's kubectl
// subcommands: get, logs, top pods, config current-context …) when their
// output is a table or names (cmds.KubeOutput: wide, name) and no word is
// known only at run time; flags before the subcommand ask.
func (c *plainCall) kubeQuery() {
	args := c.args
	q := cmds.Lookup(c.lb)
	i := 0
	for ; q != nil && len(q.Subs) > 0 && i < len(args); i++ {
		q = q.Sub(args[i].val)
	}
	if q == nil || len(q.Subs) > 0 || slices.ContainsFunc(args, func(w word) bool { return w.dyn }) {
		return
	}
	rest := args[i:]
	for _, u := range parseArgs(q, rest).Uses {
		if v, _ := valueWord(rest, u); u.Flag.Sets == cmds.KubeOutput && v.val != "wide" && v.val != "name" {
			return
		}
	}
	sub := c.lb
	for _, w := range args[:i] {
		sub += " " + w.val
	}
	c.safe(sub + " only prints")
}

// templateFields are the field chains of a Go template ({{.State.Status}}).
var templateFields = lazyRE(`\.[A-Za-z0-9_.]*`)

// dockerTemplateMayPrintEnv reports a docker inspect --format template that
// may print .Config.Env: a field chain through Config or Env, the whole
// object (., $), or one only known at run time.
func dockerTemplateMayPrintEnv(w word) bool {
	if w.dyn || strings.Contains(w.val, "$") {
		return true
	}
	for _, m := range templateFields().FindAllString(w.val, -1) {
		if l := strings.ToLower(m); m == "." || strings.Contains(l, "config") || strings.Contains(l, "env") {
			return true
		}
	}
	return false
}

// dockerBuildValueFlags are docker build's options that take a value.
var dockerBuildValueFlags = map[string]bool{"-t": true, "--tag": true, "-f": true, "--file": true, "--build-arg": true, "--target": true,
	"--platform": true, "--label": true, "--secret": true, "--ssh": true, "--network": true, "--cache-from": true,
	"--cache-to": true, "--progress": true, "--build-context": true, "-o": true, "--output": true, "--iidfile": true,
	"--add-host": true, "--shm-size": true, "-m": true, "--memory": true, "--ulimit": true, "--metadata-file": true,
	"--builder": true, "--attest": true, "--isolation": true, "--cgroup-parent": true, "--cpuset-cpus": true, "--annotation": true}

// dockerBuild sees what a build reads and writes: its context and
// Dockerfile (sent to the daemon), --secret and --build-context sources,
// and --output, --iidfile, --metadata-file.
func (c *plainCall) dockerBuild() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	for _, w := range flagValues(args, "--secret") {
		for _, kv := range strings.Split(w.val, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok && (k == "src" || k == "source") {
				a.readWord(word{val: v, dyn: w.dyn}, sc, idx, false)
			}
		}
	}
	local := func(v string) bool {
		return v != "" && v != "-" && !strings.Contains(v, "://") && !strings.HasPrefix(v, "git@")
	}
	for _, w := range flagValues(args, "--build-context") {
		if _, v, ok := strings.Cut(w.val, "="); ok && local(v) {
			a.readWord(word{val: v, dyn: w.dyn}, sc, idx, false)
		}
	}
	for _, w := range flagValues(args, "-f", "--file") {
		if r := a.resolveMaybe(w, w.val, sc, false); local(w.val) && (w.dyn || !a.inProject(r)) {
			// like make -f: the build steps are not this project's
			f.ask = reason("ask.flag", "docker build -f reads a Dockerfile outside the project")
			a.readWord(w, sc, idx, false)
		}
	}
	for _, w := range flagValues(args, "--iidfile", "--metadata-file") {
		a.writeWord(w, sc, idx)
	}
	for _, w := range flagValues(args, "-o", "--output") {
		dest := w.val
		if strings.Contains(dest, "=") {
			dest = ""
			for _, kv := range strings.Split(w.val, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok && k == "dest" {
					dest = v
				}
			}
		}
		if local(dest) {
			a.writeWord(word{val: dest, dyn: w.dyn}, sc, idx)
		}
	}
	ops := operands(args, dockerBuildValueFlags)
	// docker build CTX, docker buildx build CTX, docker image build CTX
	if len(ops) > 1 && (args[ops[1]].val == "build" || args[ops[0]].val == "build") {
		ctx := ops[len(ops)-1]
		if ctx != ops[0] && args[ctx].val != "build" && local(args[ctx].val) {
			// the whole tree goes to the daemon, secrets below it included
			a.readWord(args[ctx], sc, idx, false)
		}
	}
}

// copyOut analyses docker cp / kubectl cp SRC DST: a local SRC is read, a
// local DST written (CONTAINER:PATH is the container's).
func (c *plainCall) copyOut(args []word) {
	a, sc, idx := c.a, c.sc, c.idx
	ops := operands(args, map[string]bool{"-c": true, "--container": true, "-n": true, "--namespace": true})
	if len(ops) < 2 {
		return
	}
	local := func(w word) bool {
		return !strings.Contains(w.val, ":") || strings.HasPrefix(w.val, "/") || strings.HasPrefix(w.val, ".")
	}
	src, dst := args[ops[0]], args[ops[len(ops)-1]]
	if local(src) {
		a.readWord(src, sc, idx, false)
	}
	if local(dst) {
		a.writeWord(dst, sc, idx)
	}
}

// containerCLI says lb is docker, podman or nerdctl: a tool whose hook
// is docker (cmds/containers.go).
func containerCLI(lb string) bool {
	t := cmds.ToolOf(lb)
	return t != nil && t.Hook == "docker"
}
