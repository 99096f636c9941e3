// hooks_files.go reads the file tools (cmds/files.go): what each does to
// its operands (copy, move, link, change metadata, delete, split), and the
// fixers and other tools that rewrite files.

package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// fileTool reads the file tools (cmds/files.go) by what their entry says
// they do. It reports whether the program is one, and one it decided: a
// remote rsync is the network's.
func (c *plainCall) fileTool() bool {
	t := cmds.FileToolOf(c.lb)
	if t == nil {
		return false
	}
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	switch t.Does {
	case cmds.Deletes, cmds.DeletesTrees:
		how := rmPlain
		if hasShort(args, "f") || hasFlag(args, "--force", "--no-preserve-root") {
			how = rmForce
		}
		if hasShort(args, "rR") || hasFlag(args, "--recursive") || t.Does == cmds.DeletesTrees {
			how = rmRecursive
		}
		for _, i := range operands(args, nil) {
			a.deleteWord(args[i], sc, idx, how)
		}
	case cmds.Syncs:
		if remoteArgs(args) {
			return false
		}
		for _, u := range c.inv().Uses { // --files-from FILE reads FILE
			if w, ok := valueWord(args, u); ok && u.Flag.Role == argv.Read {
				a.readWord(w, sc, idx, false)
			}
		}
		a.copyMove(f, idx, lb, t, args, sc)
	case cmds.Copies, cmds.Moves, cmds.Links:
		a.copyMove(f, idx, lb, t, args, sc)
	case cmds.ChangesMeta:
		a.metaWrite(f, idx, lb, t, args, sc)
	case cmds.Tees:
		for _, i := range operands(args, nil) {
			a.writeWord(args[i], sc, idx)
		}
		if len(operands(args, nil)) == 0 {
			c.safe("tee without files")
		}
	case cmds.Keyed:
		for _, w := range args {
			for _, k := range t.Keys {
				file, ok := strings.CutPrefix(w.val, k.Prefix)
				switch {
				case !ok:
				case k.Role == argv.Write:
					a.writeFact(a.resolveMaybe(w, file, sc, true), idx)
				default:
					a.readFact(a.resolveMaybe(w, file, sc, false), idx, false)
				}
			}
		}
	case cmds.Patches:
		// patch FILE [PATCH] writes FILE; -o FILE writes FILE, -r FILE
		// the rejects, and the files of the patch are under -d DIR
		ops := operands(args, t.ValueFlags())
		if len(ops) > 0 {
			a.writeWord(args[ops[0]], sc, idx)
		}
		c.flagFiles(t)
		patches := optionValues(args, 'i', "--input")
		if len(ops) > 1 {
			patches = append(patches, args[ops[1]])
		}
		if !a.patchInput(patches, sc, idx) {
			a.writeFact(pathRef{raw: "(files named in the patch)"}, idx)
		}
	case cmds.Outputs:
		c.flagFiles(t)
		if t.ReadsOperands {
			for _, i := range operands(args, t.ValueFlags()) {
				a.readWord(args[i], sc, idx, false)
			}
		}
	}
	return true
}

// flagFiles reads and writes the values of a file tool's flags whose
// value is a file (patch -i PATCH, shuf -o FILE), in every spelling
// optionValues reads.
func (c *plainCall) flagFiles(t *cmds.FileTool) {
	for _, ff := range t.FileFlags() {
		for _, w := range optionValues(c.args, ff.Letter, ff.Long) {
			if ff.Role == argv.Read {
				c.a.readWord(w, c.sc, c.idx, false)
			} else {
				c.a.writeWord(w, c.sc, c.idx)
			}
		}
	}
}

// files reads the formats, floors and services left to code: formatters
// and shell servers by class, crontab, systemctl, the package tools' and
// the formatters' arms, zipinfo, ss.
// It reports whether one of its arms matched.
func (c *plainCall) files() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	switch {
	case c.is(argv.Formatter):
		f.floor = reason("floor.mkfs", lb+" formats a disk")
	case c.is(argv.ShellServer):
		f.floor = reason("floor.reverse-shell", lb+" exposes a shell to the network")
	case hookName(c.spec, lb) == "crontab":
		if hasFlag(args, "-l") && len(args) == 1 {
			c.safe("crontab -l only lists")
		} else {
			f.human = reason("human.persistence-write", "changes the crontab")
		}
	case c.hook() == "service" && len(operands(args, nil)) > 0:
		switch args[operands(args, nil)[0]].val {
		case "enable", "link", "edit", "load", "bootstrap", "set-property", "preset", "add-wants", "add-requires", "revert":
			f.human = reason("human.persistence-write", "installs or changes a service")
		case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "rescue", "emergency", "soft-reboot":
			f.human = reason("human.teardown", lb+" stops or restarts the machine")
		case "show", "cat", "print", "show-environment":
			// a unit's Environment= lines (systemctl show, cat) and a
			// launchd job's environment (launchctl print) hold its secrets,
			// as a container's does (docker inspect)
			f.ask = reason("ask.flag", lb+" "+args[operands(args, nil)[0]].val+" prints a service's environment")
		case "status", "list-units", "list-unit-files", "is-active", "is-enabled", "list", "list-timers":
			if hasLongAbbrev(args, "--host", "--machine") || hasShort(args, "HM") {
				f.ask = reason("ask.flag", lb+" --host connects to another machine over ssh")
			} else {
				c.safe(lb + " only inspects")
			}
		}
	case c.hook() == "zipinfo":
		// lists an archive's members, like unzip -l; later operands name members
		if ops := operands(args, nil); len(ops) > 0 {
			a.readWord(args[ops[0]], sc, idx, false)
		}
		c.safe("zipinfo only lists an archive")
	case hookName(c.spec, lb) == "sockets":
		// ss -ltnp lists sockets; -K kills them, and -F, -D, -f, -A, -N
		// and filter expressions take values
		if !slices.ContainsFunc(args, func(w word) bool {
			return w.dyn || len(w.val) < 2 || w.val[0] != '-' || strings.Trim(w.val[1:], "ltuanpxw46eimsrHOo") != ""
		}) {
			c.safe("ss only lists sockets")
		}
	case c.hook() == "gofmt":
		// -w rewrites the files; -l, -d, -s only print
		ops := operands(args, map[string]bool{"-r": true, "-cpuprofile": true})
		for _, w := range flagValues(args, "-cpuprofile") {
			a.writeWord(w, sc, idx)
		}
		for _, i := range ops {
			if hasShort(args, "w") {
				a.writeWord(args[i], sc, idx)
			} else {
				a.readWord(args[i], sc, idx, false)
			}
		}
		if !hasShort(args, "w") && len(flagValues(args, "-cpuprofile")) == 0 {
			c.safe("gofmt without -w only prints")
		}
	case toolHook(lb) == "fixer":
		a.fixer(f, idx, lb, args, sc)
	default:
		return false
	}
	return true
}

// drops reads the database tools that tear down: dropdb, dropuser (the
// infrastructure and cloud CLIs are cmds.Tool entries, hooks_cloud.go).
// It reports whether it matched.
func (c *plainCall) drops() bool {
	if hookName(c.spec, c.lb) != "drop-db" {
		return false
	}
	c.f.human = reason("human.teardown", c.lb+" drops a database")
	return true
}

// copyOperands are the sources of a copy, move or link (indexes in the
// args it returns) and the index of its target, -1 for none: the value
// of a flag that sets cmds.CopyTarget (-t DIR, -rtDIR,
// --target-directory=DIR, a word appended to args when attached), else
// the last operand (not ln's one: it links into the working directory).
// rsync's flags are not all declared: its operands are read as before.
func copyOperands(t *cmds.FileTool, args []word) (ops []int, target int, all []word) {
	target = -1
	if t.Does == cmds.Syncs {
		ops = operands(args, t.ValueFlags())
	} else {
		inv := parseArgs(t.Cmd, args)
		ops = inv.Operands
		for _, u := range inv.Uses {
			w, ok := valueWord(args, u)
			switch {
			case !ok || u.Flag.Sets != cmds.CopyTarget:
			case u.ValAt == u.At:
				args = append(slices.Clone(args), w)
				target = len(args) - 1
			default:
				target = u.ValAt
			}
		}
	}
	if target < 0 && len(ops) > 0 && !(t.Does == cmds.Links && len(ops) == 1) {
		target = ops[len(ops)-1]
		ops = ops[:len(ops)-1]
	}
	return ops, target, args
}

// copyMove reads a file tool that copies, moves or links its sources to
// a target (t.Does: Copies, Moves, Links, Syncs).
func (fl *factLog) copyMove(f *rfact, idx int, lb string, t *cmds.FileTool, args []word, sc *scope) {
	syncs := t.Does == cmds.Syncs
	// --delete* removes what the source lacks: rsync -a --delete empty/ ~/
	// empties the destination like rm -rf
	syncDelete := syncs && slices.ContainsFunc(args, func(w word) bool { return w.val == "--del" || strings.HasPrefix(w.val, "--delete") })
	ops, target, args := copyOperands(t, args)
	secret := false
	for _, i := range ops {
		switch t.Does {
		case cmds.Moves, cmds.Links:
			if t.Does == cmds.Moves {
				fl.deleteWord(args[i], sc, idx, rmRecursive)
			}
			// moving or linking a secret to another name reads it there
			r := fl.resolveMaybe(args[i], args[i].val, sc, false)
			if fl.sensitive(r) {
				secret = true
				fl.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
					human: reason("human.sensitive-read", lb+" gives a sensitive file another name")})
			}
			// a link to a startup file or hook is a second name that later
			// writes go through (ln -s ~/.bashrc b; echo … >> b)
			if t.Does == cmds.Links && fl.protectedWrite(r, false) {
				fl.add(&rfact{kind: protocol.FactWrite, path: r, parent: idx,
					floor: reason("floor.protected", "ln gives perm-peer's own policy, grants or database a name that writes reach")})
			} else if t.Does == cmds.Links && fl.persistence(r) != "" {
				fl.add(&rfact{kind: protocol.FactWrite, path: r, parent: idx,
					human: reason("human.persistence-write", "ln gives a file that runs or guards commands a name that writes reach")})
			}
		default:
			mid := len(fl.facts)
			fl.readWord(args[i], sc, idx, false)
			for _, g := range fl.facts[mid:] {
				secret = secret || g.human != nil && g.human.Code == "human.sensitive-read"
			}
		}
	}
	if target >= 0 && syncDelete && !strings.Contains(args[target].val, ":") {
		fl.deleteWord(args[target], sc, idx, rmRecursive)
	}
	if target >= 0 {
		mid := len(fl.facts)
		fl.writeWord(args[target], sc, idx)
		if secret {
			for _, g := range fl.facts[mid:] {
				fl.markTainted(g.path) // cat of the new name is a secret read
			}
		}
		recursive := hasShort(args, "rRa") || hasFlag(args, "--recursive", "--archive")
		if w := args[target]; recursive && !w.dyn && t.Does != cmds.Links {
			if r := fl.resolvePath(w.val, sc.cwd, true); fl.holdsProtected(r) {
				f.human = reason("human.protected-overwrite", "a recursive copy into a directory holding perm-peer's own files")
			}
		}
	}
}

// metaWrite reads a file tool that changes its operands' metadata or
// creates them (t.Does: ChangesMeta), after its lead operands (the mode or
// owner); -R on a root is a floor.
func (fl *factLog) metaWrite(f *rfact, idx int, lb string, t *cmds.FileTool, args []word, sc *scope) {
	ops := operands(args, t.ValueFlags())
	recursive := hasShort(args, "R") || hasFlag(args, "--recursive")
	if t.Lead > 0 {
		modeIsFlag := false // chmod -w file: the mode looks like a flag
		for _, w := range args {
			modeIsFlag = modeIsFlag || t.LeadLikeFlag && chmodFlagMode().MatchString(w.val)
		}
		if len(ops) >= t.Lead && !modeIsFlag {
			ops = ops[t.Lead:] // the mode or owner
		}
	}
	for _, i := range ops {
		w := args[i]
		if recursive && !w.dyn {
			r := fl.resolvePath(w.val, sc.cwd, false)
			if r.known && (fl.floorTarget(r.abs) || fl.floorTarget(r.real) || r.glob && fl.floorGlob(r) != "") {
				f.floor = reason("floor.chmod-root", lb+" -R on "+r.abs)
			}
		}
		fl.writeWord(w, sc, idx)
	}
}

var chmodFlagMode = lazyRE(`^-[rwxXst]+$`)

// fixerValueFlags are eslint's and prettier's options that take a value.
var fixerValueFlags = map[string]bool{"-c": true, "--config": true, "-o": true, "--output-file": true, "-f": true, "--format": true,
	"--ext": true, "--rulesdir": true, "--ignore-path": true, "--parser": true, "--plugin": true, "--rule": true, "--env": true,
	"--global": true, "--max-warnings": true, "--cache-location": true, "--resolve-plugins-relative-to": true, "--stdin-filename": true,
	"--fix-type": true, "--config-precedence": true, "--log-level": true, "--ignore-pattern": true}

// fixer polices eslint --fix and prettier --write: they rewrite the files
// they are given, and -o writes a report.
func (fl *factLog) fixer(f *rfact, idx int, lb string, args []word, sc *scope) {
	for _, w := range flagValues(args, "-o", "--output-file") {
		fl.writeWord(w, sc, idx)
	}
	if !hasFlag(args, "--fix", "--write", "-w") {
		return
	}
	for _, i := range operands(args, fixerValueFlags) {
		fl.writeWord(args[i], sc, idx)
	}
}

// split reads its input and writes its pieces, or feeds them to --filter.
func (c *plainCall) split() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	// split [FILE [PREFIX]]: FILE read, PREFIXaa… written; --filter=CMD
	// gets each piece on its stdin
	sops := operands(args, splitValueFlags)
	secretIn := false
	if len(sops) > 0 {
		mid := len(a.facts)
		a.readWord(args[sops[0]], sc, idx, false)
		for _, g := range a.facts[mid:] {
			secretIn = secretIn || g.human != nil && g.human.Code == "human.sensitive-read"
		}
	}
	filter := false
	for _, w := range optionValues(args, 0, "--filter") {
		filter = true
		if r := a.reparse(w.val, sc, idx); r.net && secretIn {
			f.floor = reason("floor.exfil", "split feeds a sensitive file to a network command")
		}
	}
	if !filter {
		prefix := word{val: "x"}
		if len(sops) > 1 {
			prefix = args[sops[1]]
		}
		a.writeWord(prefix, sc, idx)
	}
}

// kill reads kill's pids: -1 signals every process the user may signal
// (kill -9 -1). Its entry reads the signal in the first word only
// (argv.Command.LeadFlag), so a -1 after it is a pid.
func (c *plainCall) kill() {
	for _, i := range c.inv().Operands {
		if c.args[i].val == "-1" {
			c.f.human = reason("human.teardown", "kill -1 signals every process of the user")
		}
	}
}

// blockChanges reports a call of a block tool that changes the disk
// (listing and querying do not), by the words its entry declares.
func blockChanges(b *cmds.BlockTool, args []word) bool {
	has := func(words string) bool {
		for _, w := range args {
			for _, x := range strings.Fields(words) {
				if w.val == x || strings.HasPrefix(x, "--") && strings.HasPrefix(w.val, x) {
					return true
				}
			}
		}
		return false
	}
	return has(b.Changes) || b.ChangeLetters != "" && hasShort(args, b.ChangeLetters) || b.Inspects != "" && !has(b.Inspects) ||
		b.Changes == "" && b.Inspects == "" && b.ChangeLetters == ""
}
