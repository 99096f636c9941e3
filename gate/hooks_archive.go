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
	secret  bool   // the files it packs hold a secret
}

// tar analyses a tar command line: the commands its options run, the
// archive it writes or reads, the files it packs (relative to -C) and the
// directory it extracts into.
func (c *plainCall) tar() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	tc := &tarCall{a: a, f: f, idx: idx, args: args, sc: sc, t: scripts.ReadTar(len(args), wordAt(args)), dir: sc.cwd}
	tc.runs()
	tc.extract = strings.ContainsAny(tc.t.Letters, "x") || hasLongAbbrev(args, "--extract", "--get")
	tc.list = strings.ContainsAny(tc.t.Letters, "t") || hasLongAbbrev(args, "--list")
	for _, w := range tc.values('C') {
		tc.dir = a.pathWord(w, sc, true).abs
	}
	if tc.extract {
		tc.extractInto()
	}
	before := len(a.facts)
	for _, w := range tc.values('f') {
		if tc.extract || tc.list {
			a.readWord(w, sc, idx, false)
		} else {
			a.writeWord(w, sc, idx)
		}
	}
	if !tc.extract && !tc.list {
		tc.pack()
	}
	for _, l := range []byte{'T', 'X'} {
		for _, w := range tc.values(l) {
			a.readWord(w, sc, idx, false)
		}
	}
	tc.sideFiles()
	if !tc.extract && !tc.list {
		tc.packedFiles()
	}
	tc.remote(before)
	if len(tc.t.Unknown) > 0 {
		f.ask = reason("ask.flag", "tar "+clip(tc.t.Unknown[0], 80)+" is a flag the gate does not know")
	}
	if tc.list && !tc.extract && f.ask == nil && f.human == nil {
		f.safe = reason("gate.safe", "tar -t only lists an archive")
	}
}

// remote: an archive named host:file is read or written on that host
// through rsh (tar -tf evil:x.tar connects to evil); what a call that
// creates it packs is sent there, a secret among it floors. facts from
// before on are the call's reads of the files it packs.
func (c *tarCall) remote(before int) {
	a := c.a
	if hasLongAbbrev(c.args, "--force-local") {
		return
	}
	for _, w := range c.values('f') {
		if w.dyn || !scripts.TarRemote(w.val) {
			continue
		}
		host, _, _ := strings.Cut(w.val, ":")
		a.add(&rfact{kind: protocol.FactNetwork, host: host[strings.IndexByte(host, '@')+1:], parent: c.idx})
		c.f.ask = reason("ask.network", "tar opens an archive on another host through rsh")
		creates := !c.extract && !c.list
		if creates && c.secret {
			c.f.floor = reason("floor.exfil", "a directory holding a secret is packed and sent to the network")
		}
		for _, g := range a.facts[before:] {
			if creates && g.human != nil && g.human.Code == "human.sensitive-read" && a.surelySensitive(g.path) {
				c.f.floor = reason("floor.exfil", "a sensitive file is sent to the network")
			}
		}
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
	c.secret = a.packed(c.values('f'), args, c.t.Operands, &scope{cwd: c.dir}, c.sc, follow, excl...)
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

// archiver reads a call of an archiver through the hook its entry names
// (cmds/archives.go): tar's letters, or the command forms of zip, unzip,
// gunzip, gzip and 7-Zip.
// It reports whether it read the call.
func (c *plainCall) archiver() bool {
	switch h := hookName(c.spec, c.lb); h {
	case "tar":
		c.tar()
	case "zip", "unzip", "gunzip", "gzip", "7z":
		hc := *c // archive keeps its call in the heap: a copy spares plain's c
		hc.archive(h)
		*c = hc
	default:
		return false
	}
	return true
}

// archiveCall is a call of an archiver other than tar, as its hook reads
// it: its operands, and what it does with them.
type archiveCall struct {
	*plainCall
	hook    string
	ops     []int // its operands: files, and the archive it creates first
	sub     string
	dir     string // where it extracts: -d, -o, else the working directory
	extract bool
	listing bool // it only lists, tests or prints an archive
	creates bool // it writes the archive its first operand names
}

// archive analyses the archivers other than tar (zip, unzip, gunzip,
// gzip, 7z), hook naming which: what they extract, create, list or stream
// to stdout.
func (c *plainCall) archive(hook string) {
	z := &archiveCall{plainCall: c, hook: hook, dir: c.sc.cwd,
		ops: operands(c.args, map[string]bool{"-d": true, "-x": true, "-i": true, "-TT": true, "--unzip-command": true})}
	if len(z.ops) > 0 {
		z.sub = c.args[z.ops[0]].val
	}
	z.testCommands()
	switch hook {
	case "unzip":
		z.unzip()
	case "gunzip":
		// -c, --stdout, -t and -l print, test or list
		z.listing = hasShort(c.args, "ctl") || hasLongAbbrev(c.args, "--stdout", "--to-stdout", "--list", "--test")
		z.extract = !z.listing
	case "7z":
		z.sevenZip()
	case "zip":
		z.creates = len(z.ops) > 0
	}
	z.effects()
}

// testCommands: zip -TT CMD and --unzip-command CMD test the archive with
// CMD, through the shell.
func (z *archiveCall) testCommands() {
	a, f, args := z.a, z.f, z.args
	for _, w := range optionValues(args, 0, "--unzip-command") {
		f.ask = reason("ask.flag", "zip runs a command")
		a.reparse(w.val, z.sc, z.idx)
	}
	for i, w := range args {
		if z.hook == "zip" && w.val == "-TT" && i+1 < len(args) {
			f.ask = reason("ask.flag", "zip runs a command")
			a.reparse(args[i+1].val, z.sc, z.idx)
		}
	}
}

// unzip: -l, -v, -t, -Z, -z list or test, -p and -c print to stdout;
// otherwise it extracts, into -d DIR.
func (z *archiveCall) unzip() {
	z.listing = hasShort(z.args, "lvtZzpc")
	z.extract = !z.listing
	for _, w := range optionValues(z.args, 'd', "") {
		z.dir = z.a.pathWord(w, z.sc, true).abs
	}
}

// sevenZip: the command letter is the first operand (x and e extract,
// into -oDIR, l and t list or test, a and u create or update the archive
// named next).
func (z *archiveCall) sevenZip() {
	z.extract = z.sub == "x" || z.sub == "e"
	z.listing = z.sub == "l" || z.sub == "t"
	for _, w := range z.args {
		if o, ok := strings.CutPrefix(w.val, "-o"); ok && o != "" {
			z.dir = z.a.resolveMaybe(w, o, z.sc, true).abs
		}
	}
	if len(z.ops) > 0 {
		z.ops = z.ops[1:] // the command letter
	}
	z.creates = !z.extract && !z.listing && len(z.ops) > 0 && (z.sub == "a" || z.sub == "u")
}

// effects: extracting writes the directory; the archive created is
// written, the other operands read; an archive packed from a directory
// holding a secret is tainted; listing only is known-safe; zip - FILES…
// streams the archive to stdout.
func (z *archiveCall) effects() {
	a, f, idx, args, sc := z.a, z.f, z.idx, z.args, z.sc
	if z.extract {
		r := a.resolvePath(z.dir, "", true)
		a.writeFact(r, idx)
		if a.holdsProtected(r) {
			f.human = reason("human.protected-overwrite", "an archive extracted where perm-peer's own files live could overwrite them")
		}
	}
	for n, i := range z.ops {
		if z.creates && n == 0 {
			if args[i].val != "-" {
				a.writeWord(args[i], sc, idx)
			}
			continue
		}
		a.readWord(args[i], sc, idx, false)
	}
	zip := z.hook == "zip"
	if z.creates && args[z.ops[0]].val != "-" && (!zip || hasShort(args, "rR") || hasFlag(args, "--recurse-paths")) {
		// zip stores what links point to unless -y; 7z does by default
		a.packed([]word{args[z.ops[0]]}, args, z.ops[1:], sc, sc, !zip || !hasShort(args, "y") && !hasFlag(args, "--symlinks"))
	}
	if z.listing && f.ask == nil {
		f.safe = reason("gate.safe", z.lb+" only lists, tests or prints an archive")
	}
	if zip && len(z.ops) > 1 && args[z.ops[0]].val == "-" {
		for _, i := range z.ops[1:] {
			a.add(&rfact{kind: protocol.FactRead, path: a.pathWord(args[i], sc, false), parent: idx,
				human: reason("human.sensitive-read", "an archive streamed to stdout carries hidden files such as .env")})
		}
	}
}

// packed taints an archive written to a file from a directory that holds a
// secret: uploading the archive later in the call sends that secret
// (tar czf x.tgz . && curl -T x.tgz). It reports whether one does.
func (pl *places) packed(archives, args []word, ops []int, in, sc *scope, follow bool, excl ...string) bool {
	for _, i := range ops {
		if args[i].dyn {
			continue
		}
		// a directory too large to check is not tainted: tar czf x.tgz . of
		// a big project is everyday, and the upload of x.tgz asks anyway
		if found, _ := pl.dirSecret(pl.resolvePath(args[i].val, in.cwd, false), follow, excl...); !found {
			continue
		}
		for _, w := range archives {
			if !w.dyn {
				pl.markTainted(pl.resolvePath(w.val, sc.cwd, true))
			}
		}
		return true
	}
	return false
}
