package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/scripts"
	"github.com/perm-peer/perm-peer/protocol"
)

// tarCall is a call of tar (or bsdtar): its words as package scripts'
// ReadTar reads them, and where it extracts to.
type tarCall struct {
	a       *analyzer
	f       *rfact
	idx     int
	args    []word
	sc      *scope
	t       scripts.Tar
	dir     string // where it extracts, or packs from: -C, else the working directory
	extract bool   // x, --extract, --get
	list    bool   // t, --list
}

// tar analyses a tar command line: the commands its options run, the
// archive it writes or reads, the files it packs (relative to -C) and the
// directory it extracts into.
func (a *analyzer) tar(f *rfact, idx int, args []word, sc *scope) {
	c := &tarCall{a: a, f: f, idx: idx, args: args, sc: sc, t: scripts.ReadTar(len(args), wordAt(args)), dir: sc.cwd}
	c.runs()
	c.extract = strings.ContainsAny(c.t.Letters, "x") || hasLongAbbrev(args, "--extract", "--get")
	c.list = strings.ContainsAny(c.t.Letters, "t") || hasLongAbbrev(args, "--list")
	for _, w := range c.values('C') {
		c.dir = a.pathWord(w, sc, true).abs
	}
	if c.extract {
		c.extractInto()
	}
	for _, w := range c.values('f') {
		if c.extract || c.list {
			a.readWord(w, sc, idx, false)
		} else {
			a.writeWord(w, sc, idx)
		}
	}
	if !c.extract && !c.list {
		c.pack()
	}
	for _, l := range []byte{'T', 'X'} {
		for _, w := range c.values(l) {
			a.readWord(w, sc, idx, false)
		}
	}
	c.sideFiles()
	if !c.extract && !c.list {
		c.packedFiles()
	}
	if len(c.t.Unknown) > 0 {
		f.ask = reason("ask.flag", "tar "+clip(c.t.Unknown[0], 80)+" is a flag the gate does not know")
	}
	if c.list && !c.extract && f.ask == nil && f.human == nil {
		f.safe = reason("gate.safe", "tar -t only lists an archive")
	}
}

// sideFiles: tar writes its verbose listing to --index-file and the
// volume number to --volno-file whatever it does (tar -tvf a.tar
// --index-file=~/.bashrc lists and writes ~/.bashrc), and the snapshot
// of -g/--listed-incremental when it creates an archive (extracting or
// listing, GNU tar does not open it).
func (c *tarCall) sideFiles() {
	for _, w := range c.values('>') {
		c.a.writeWord(w, c.sc, c.idx)
	}
	if !c.extract && !c.list {
		for _, w := range c.values('g') {
			c.a.writeWord(w, c.sc, c.idx)
		}
	}
}

// values are the values of the option with letter l, in order.
func (c *tarCall) values(l byte) []word {
	var out []word
	for _, v := range c.t.Values {
		switch {
		case v.Letter != l:
		case v.Attached:
			out = append(out, word{val: v.Val, dyn: c.args[v.At].dyn})
		default:
			out = append(out, c.args[v.At])
		}
	}
	return out
}

// runs: the commands tar's options run (-I, -F, --to-command, …) are
// analysed, and tar asks.
func (c *tarCall) runs() {
	for _, l := range []byte{'I', 'F'} {
		for _, w := range c.values(l) {
			c.f.ask = reason("ask.flag", "tar runs a command")
			c.a.reparse(w.val, c.sc, c.idx)
		}
	}
	for _, cmd := range c.t.Runs {
		c.f.ask = reason("ask.flag", "tar runs a command")
		c.a.reparse(cmd, c.sc, c.idx)
	}
}

// extractInto: extracting writes the directory, and a member named for
// extraction is written under it.
func (c *tarCall) extractInto() {
	a := c.a
	r := a.resolvePath(c.dir, "", true)
	a.writeFact(r, c.idx)
	if a.holdsProtected(r) {
		c.f.human = reason("human.protected-overwrite", "an archive extracted where perm-peer's own files live could overwrite them")
	}
	for _, o := range c.t.Operands {
		if m := a.resolveMaybe(c.args[o], c.args[o].val, &scope{cwd: c.dir}, true); a.protectedWrite(m, false) {
			a.writeFact(m, c.idx)
		}
	}
}

// pack taints the archive when the files packed hold a secret.
func (c *tarCall) pack() {
	a, args := c.a, c.args
	// GNU tar matches an exclude against every name (unanchored) unless
	// told otherwise; bsdtar --include can bring a name back
	var excl []string
	if !hasLongAbbrev(args, "--anchored", "--no-wildcards", "--include") {
		for _, w := range c.values('!') {
			if w.dyn {
				excl = nil
				break
			}
			excl = append(excl, w.val)
		}
	}
	follow := strings.ContainsAny(c.t.Letters, "h") || hasLongAbbrev(args, "--dereference")
	a.packed(c.values('f'), args, c.t.Operands, &scope{cwd: c.dir}, c.sc, follow, excl...)
}

// packedFiles: the files packed are read, named relative to -C. An
// archive streamed to stdout carries their hidden files (.env, keys) to
// wherever the output goes: the agent's context or, piped, the network
// (the taint then makes it a floor).
func (c *tarCall) packedFiles() {
	a, args := c.a, c.args
	in := &scope{cwd: c.dir}
	if c.dir == "" {
		in = c.sc
	}
	for _, i := range c.t.Operands {
		a.readWord(args[i], in, c.idx, false)
	}
	if c.t.ToStdout {
		for _, i := range c.t.Operands {
			a.add(&rfact{kind: protocol.FactRead, path: a.pathWord(args[i], in, false), parent: c.idx,
				human: reason("human.sensitive-read", "an archive streamed to stdout carries hidden files such as .env")})
		}
	}
}

// archive analyses the archivers other than tar (zip, unzip, gunzip, 7z):
// what they extract, create, list or stream to stdout.
func (a *analyzer) archive(f *rfact, idx int, lb string, args []word, sc *scope) {
	if lb == "tar" || lb == "bsdtar" {
		a.tar(f, idx, args, sc)
		return
	}
	ops := operands(args, map[string]bool{"-d": true, "-x": true, "-i": true, "-TT": true, "--unzip-command": true})
	sub := ""
	if len(ops) > 0 {
		sub = args[ops[0]].val
	}
	// zip -TT CMD tests the archive with CMD, through the shell
	for _, w := range optionValues(args, 0, "--unzip-command") {
		f.ask = reason("ask.flag", "zip runs a command")
		a.reparse(w.val, sc, idx)
	}
	for i, w := range args {
		if lb == "zip" && w.val == "-TT" && i+1 < len(args) {
			f.ask = reason("ask.flag", "zip runs a command")
			a.reparse(args[i+1].val, sc, idx)
		}
	}
	var extract, listing bool
	dir := sc.cwd
	switch lb {
	case "unzip":
		// -l, -v, -t, -Z, -z list or test; -p and -c print to stdout
		listing = hasShort(args, "lvtZzpc")
		extract = !listing
		for _, w := range optionValues(args, 'd', "") {
			dir = a.pathWord(w, sc, true).abs
		}
	case "gunzip":
		listing = hasShort(args, "ctl") || hasLongAbbrev(args, "--stdout", "--to-stdout", "--list", "--test")
		extract = !listing
	case "7z", "7za", "7zr":
		extract = sub == "x" || sub == "e"
		listing = sub == "l" || sub == "t"
		for _, w := range args {
			if o, ok := strings.CutPrefix(w.val, "-o"); ok && o != "" {
				dir = a.resolveMaybe(w, o, sc, true).abs
			}
		}
		if len(ops) > 0 {
			ops = ops[1:] // the command letter
		}
	}
	if extract {
		r := a.resolvePath(dir, "", true)
		a.writeFact(r, idx)
		if a.holdsProtected(r) {
			f.human = reason("human.protected-overwrite", "an archive extracted where perm-peer's own files live could overwrite them")
		}
	}
	// zip NAME FILES… and 7z a NAME FILES… write the archive NAME
	creates := !extract && !listing && len(ops) > 0 && (lb == "zip" || strings.HasPrefix(lb, "7z") && (sub == "a" || sub == "u"))
	for n, i := range ops {
		if creates && n == 0 {
			if args[i].val != "-" {
				a.writeWord(args[i], sc, idx)
			}
			continue
		}
		a.readWord(args[i], sc, idx, false)
	}
	if creates && args[ops[0]].val != "-" && (lb != "zip" || hasShort(args, "rR") || hasFlag(args, "--recurse-paths")) {
		// zip stores what links point to unless -y; 7z does by default
		a.packed([]word{args[ops[0]]}, args, ops[1:], sc, sc, lb != "zip" || !hasShort(args, "y") && !hasFlag(args, "--symlinks"))
	}
	if listing && f.ask == nil {
		f.safe = reason("gate.safe", lb+" only lists, tests or prints an archive")
	}
	// zip - FILES… streams the archive to stdout
	if !extract && lb == "zip" && len(ops) > 1 && args[ops[0]].val == "-" {
		for n, i := range ops {
			if lb == "zip" && n == 0 {
				continue // the archive name, "-"
			}
			a.add(&rfact{kind: protocol.FactRead, path: a.pathWord(args[i], sc, false), parent: idx,
				human: reason("human.sensitive-read", "an archive streamed to stdout carries hidden files such as .env")})
		}
	}
}

// packed taints an archive written to a file from a directory that holds a
// secret: uploading the archive later in the call sends that secret
// (tar czf x.tgz . && curl -T x.tgz).
func (a *analyzer) packed(archives, args []word, ops []int, in, sc *scope, follow bool, excl ...string) {
	for _, i := range ops {
		if args[i].dyn {
			continue
		}
		// a directory too large to check is not tainted: tar czf x.tgz . of
		// a big project is everyday, and the upload of x.tgz asks anyway
		if found, _ := a.dirSecret(a.resolvePath(args[i].val, in.cwd, false), follow, excl...); !found {
			continue
		}
		for _, w := range archives {
			if !w.dyn {
				a.markTainted(a.resolvePath(w.val, sc.cwd, true))
			}
		}
		return
	}
}
