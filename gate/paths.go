package gate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// pathRef is one file a call touches, resolved against the call's cwd.
type pathRef struct {
	raw   string // as written
	abs   string // cleaned absolute path; "" when unknown
	real  string // abs with symlinks resolved when the file exists; else abs
	glob  bool   // contains unexpanded glob characters
	known bool   // false for dynamic words, unknown cwd, ~user
	// via are further resolved forms of a glob whose directory patterns
	// match symlinked directories (*/x with a -> .. and b -> ~); real is
	// the first of them
	via []string
}

// resolvePath makes p absolute against cwd, cleans it and resolves symlinks
// when the file exists. forWrite also resolves the parent directory, so a new
// file written through a symlinked directory lands where it really goes.
func (a *analyzer) resolvePath(p, cwd string, forWrite bool) pathRef {
	return a.resolve(p, cwd, forWrite, false)
}

// resolve is resolvePath; literal paths (from file tools) have no globs.
func (a *analyzer) resolve(p, cwd string, forWrite, literal bool) (r pathRef) {
	r = pathRef{raw: p, glob: !literal && hasGlob(p)}
	var extAlts []string
	if loose, ok := loosenExtglob(p); ok && !literal {
		// bash may have extglob on (scripts, shopt -s extglob): .@(e)nv
		// is .env, !(src) everything but src; judged as the * that
		// matches at least as much, and as the names its alternatives
		// spell (+(.e)nv is .env, which * does not match)
		p, r.glob, extAlts = loose, true, extglobNames(r.raw)
	}
	defer func() {
		for _, x := range extAlts {
			if _, ext := loosenExtglob(x); ext {
				continue // a group extglobNames could not read
			}
			if rx := a.resolve(x, cwd, forWrite, false); rx.known {
				r.via = appendForm(r.via, rx.abs)
			}
		}
	}()
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if a.env.Home == "" {
			return r
		}
		p = a.env.Home + p[1:]
	case p == "~+" || strings.HasPrefix(p, "~+/"):
		// ~+ is $PWD; ~- is $OLDPWD, which the gate does not know
		if cwd == "" {
			return r
		}
		p = cwd + p[2:]
	case p == "~-" || strings.HasPrefix(p, "~-/"):
		return r
	case strings.HasPrefix(p, "~"):
		// ~user: the user's home, next to ours (root's is /root)
		user, rest, _ := strings.Cut(p[1:], "/")
		if a.env.Home == "" || strings.ContainsAny(user, "$`") {
			return r
		}
		home := filepath.Join(filepath.Dir(a.env.Home), user)
		if user == "root" {
			home = "/root"
		}
		p = home + "/" + rest
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return r
		}
		p = cwd + "/" + p
	}
	unclean := p
	r.abs = filepath.Clean(p)
	r.real = r.abs
	r.known = true
	if r.glob {
		// the shell walks the directories a glob names as the kernel
		// resolves them: up/* with up -> .. is ../* (SPEC §5.5)
		if forms := globThrough(unclean, a.realDir); len(forms) > 0 {
			r.real, r.via = forms[0], forms[1:]
		}
		return r
	}
	// Lstat first: most paths an agent names in a plan do not exist yet, and
	// one failed syscall is the cheapest way to learn that.
	if fi, err := os.Lstat(r.abs); err == nil {
		if real, err := filepath.EvalSymlinks(r.abs); err == nil {
			r.real = real
			if fi.Mode()&os.ModeSymlink != 0 {
				fi, err = os.Stat(real)
			}
			if err == nil && fi.Mode().IsRegular() && linkCount(fi) > 1 {
				r.real = a.hardLinkedTwin(real, fi)
			}
		} else {
			// a dangling link: writing through it creates its target
			r.real = followDangling(r.abs)
		}
	} else if forWrite {
		r.real = resolveMissing(r.abs)
	}
	// The kernel resolves "link/.." from the link's target, not by
	// dropping "link": with dep -> /elsewhere/x, dep/../.aws is
	// /elsewhere/.aws. EvalSymlinks walks the path that way.
	if strings.Contains(unclean, "..") {
		if real, err := filepath.EvalSymlinks(unclean); err == nil {
			r.real = real
		} else if i := strings.LastIndexByte(unclean, '/'); forWrite && i > 0 {
			if real, err := filepath.EvalSymlinks(unclean[:i]); err == nil {
				r.real = filepath.Join(real, unclean[i+1:])
			}
		}
	}
	return r
}

// followDangling resolves a chain of symlinks whose last target does not
// exist yet (rc -> ~/.bashrc): where a write through it would land.
func followDangling(p string) string {
	for i := 0; i < 16; i++ {
		fi, err := os.Lstat(p)
		if err != nil {
			if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				return filepath.Join(real, filepath.Base(p))
			}
			return p
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				return real
			}
			return p
		}
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	return p
}

// resolveMissing is where a write to abs, which does not exist, lands: the
// deepest ancestor that exists is resolved and the rest joined to it, since
// write tools create the missing directories (p/cfg/autostart/x.desktop with
// cfg -> ~/.config is ~/.config/autostart/x.desktop).
func resolveMissing(abs string) string {
	p, rest := abs, ""
	for range 64 {
		dir := filepath.Dir(p)
		if dir == p {
			break
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = dir
		if _, err := os.Lstat(p); err == nil {
			return filepath.Join(followDangling(p), rest)
		}
	}
	return abs
}

// both returns the lexical and the resolved paths (one when they agree).
func (r pathRef) both() []string {
	if r.real == r.abs && len(r.via) == 0 {
		return []string{r.abs}
	}
	out := []string{r.abs}
	for _, p := range append([]string{r.real}, r.via...) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Bounds of globThrough: past them a directory pattern stays unresolved.
const (
	maxWalkDirs  = 32
	maxWalkForms = 16
)

// globThrough resolves the directories an absolute glob walks through: its
// literal directories with the kernel's symlink and ".." rules, and every
// directory a directory pattern matches on disk (u?/*, */* with up -> ..).
// The last element stays a pattern: rm and ls act on a link it matches,
// not its target, and readers judge the matches themselves. It returns the
// resolved patterns, or nil when none differs from the cleaned one.
func globThrough(unclean string, realDir func(string) string) []string {
	segs := strings.Split(strings.TrimPrefix(unclean, "/"), "/")
	last := len(segs) - 1
	cur, lit := []string{"/"}, ""
	dirs := 0
	for _, seg := range segs[:last] {
		if !hasGlob(seg) {
			lit += "/" + seg // literal directories resolve in one walk
			continue
		}
		var next []string
		for _, d := range cur {
			if lit != "" {
				d = realDir(d + lit)
			}
			ms, ok := dirMatches(d, seg, &dirs)
			if !ok {
				next = appendForm(next, filepath.Join(d, seg))
				continue
			}
			for _, m := range ms {
				// a match that is no link keeps the pattern: only the
				// directories reached through a link are new places
				if rd := realDir(m); rd != m && isDir(rd) {
					next = appendForm(next, rd)
				} else {
					next = appendForm(next, filepath.Join(d, seg))
				}
			}
		}
		if len(next) == 0 {
			return nil // no directory matches: the glob matches nothing
		}
		cur, lit = next, ""
	}
	clean := filepath.Clean(unclean)
	var out []string
	for _, d := range cur {
		if lit != "" {
			d = realDir(d + lit)
		}
		if p := filepath.Join(d, segs[last]); p != clean {
			out = appendForm(out, p)
		}
	}
	return out
}

// appendForm appends p once, up to maxWalkForms.
func appendForm(forms []string, p string) []string {
	if len(forms) >= maxWalkForms || slices.Contains(forms, p) {
		return forms
	}
	return append(forms, p)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// dirMatches lists the entries of d that seg matches (case ignored,
// dotfiles included, as globMatches does). ok is false when d cannot be
// read or the walk has read maxWalkDirs directories.
func dirMatches(d, seg string, dirs *int) (ms []string, ok bool) {
	if *dirs++; *dirs > maxWalkDirs || hasGlob(d) {
		return nil, false
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		if os.IsNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
			return nil, true
		}
		return nil, false
	}
	if len(ents) > maxGlobEntries {
		return nil, false
	}
	lseg := strings.ToLower(seg)
	names := make([]string, 0, len(ents)+2)
	if seg[0] == '.' {
		names = append(names, ".", "..")
	}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	for _, n := range names {
		if shellGlobMatch(lseg, strings.ToLower(n)) {
			ms = append(ms, filepath.Join(d, n))
		}
	}
	return ms, true
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// extglobNames are the names an extglob's @(…) +(…) ?(…) *(…) groups
// spell with each alternative once (or none for ? and *), up to
// maxWalkForms; nil when a !(…) group makes them unbounded.
func extglobNames(s string) []string {
	i := strings.IndexFunc(s, func(r rune) bool { return strings.ContainsRune("@!+*?", r) })
	for i >= 0 && (i+1 >= len(s) || s[i+1] != '(') {
		j := strings.IndexFunc(s[i+1:], func(r rune) bool { return strings.ContainsRune("@!+*?", r) })
		if j < 0 {
			return []string{s}
		}
		i += j + 1
	}
	if i < 0 {
		return []string{s}
	}
	if s[i] == '!' {
		return nil
	}
	depth, end := 0, -1
	var alts []string
	start := i + 2
	for j := i + 1; j < len(s) && end < 0; j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				end = j
				alts = append(alts, s[start:j])
			}
		case '|':
			if depth == 1 {
				alts = append(alts, s[start:j])
				start = j + 1
			}
		}
	}
	if end < 0 {
		return []string{s}
	}
	if s[i] == '?' || s[i] == '*' {
		alts = append(alts, "")
	}
	var out []string
	for _, alt := range alts {
		rest := extglobNames(s[:i] + alt + s[end+1:])
		if rest == nil {
			return nil
		}
		for _, r := range rest {
			out = appendForm(out, r)
		}
	}
	return out
}

// loosenExtglob replaces each bash extglob group, @(…) !(…) +(…) *(…)
// ?(…), with *, a pattern that matches every name the group could; ok
// reports that s had one.
func loosenExtglob(s string) (string, bool) {
	if !strings.Contains(s, "(") {
		return s, false
	}
	var b strings.Builder
	ok := false
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("@!+*?", s[i]) >= 0 && i+1 < len(s) && s[i+1] == '(' {
			depth, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if j < len(s) {
				b.WriteByte('*')
				i, ok = j, true
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), ok
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "" || p == "" {
		return false
	}
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// inProject reports whether every form of the path lies inside the project.
func (a *analyzer) inProject(r pathRef) bool {
	if !r.known || a.env.Project == "" {
		return false
	}
	for _, p := range r.both() {
		if !within(p, a.env.Project) {
			return false
		}
	}
	return true
}

// sensitiveNames are base names (lower case) that hold secrets wherever they are.
var sensitiveExact = map[string]bool{
	".env": true, ".netrc": true, "_netrc": true, ".git-credentials": true, ".pgpass": true,
	".pypirc": true, ".vault-token": true, ".htpasswd": true, "login data": true, "cookies": true,
	"cookies.sqlite": true, "logins.json": true, "key3.db": true, "key4.db": true, "shadow": true,
	"gshadow": true, ".npmrc": true, ".dockercfg": true, ".envrc": true, ".dev.vars": true, "rclone.conf": true,
	"secrets.json": true, "secrets.yaml": true, "secrets.yml": true, "secrets.toml": true,
	"terraform.tfstate": true, "terraform.tfstate.backup": true, ".my.cnf": true, ".mylogin.cnf": true,
	"oauth_creds.json": true, "application_default_credentials.json": true,
	// ansible vault password files
	".vault_pass": true, ".vault_pass.txt": true, ".vault-pass": true, ".vault_password": true, "vault_pass.txt": true,
	// OAuth tokens saved by Google's client libraries, registry and
	// composer auth, GnuPG's old secret keyring, cluster credentials,
	// wallets
	"token.json": true, "auth.json": true, "secring.gpg": true, "kubeconfig": true, "wallet.dat": true,
}

var envExamples = map[string]bool{".env.example": true, ".env.sample": true, ".env.template": true,
	".env-example": true, ".env_example": true, ".env-sample": true, ".env_sample": true}

var sensitiveSuffixes = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".keychain", ".keychain-db", ".kdbx", ".ovpn",
	".p8", ".ppk", ".keytab", ".tfvars", ".kubeconfig"}

var sensitivePrefixes = []string{"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "client_secret"}

// sensitiveHome are paths under the home directory (lower case, relative).
var sensitiveHome = []string{
	".ssh", ".aws/credentials", ".config/gcloud", ".gnupg", ".docker/config.json", ".kube/config",
	".password-store", ".config/gh/hosts.yml", ".mozilla", ".config/google-chrome", ".config/chromium",
	"library/keychains", "library/application support/google/chrome", "library/cookies",
	".local/share/keyrings", ".azure", ".terraform.d/credentials.tfrc.json",
	".codex/auth.json", ".claude/.credentials.json", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".config/github-copilot", ".config/git/credentials", ".bash_history", ".zsh_history", ".local/share/fish/fish_history", ".psql_history",
	".mysql_history", ".python_history", ".node_repl_history",
	".aws/sso/cache", ".aws/cli/cache", ".gemini/oauth_creds.json", ".config/azure", ".oci/config", ".kube/cache",
	// the token and password stores of other CLIs and build tools
	".claude.json", ".config/hub", ".config/glab-cli/config.yml", ".config/tea/config.yml", ".s3cfg", ".boto", ".passwd-s3fs",
	".mc/config.json", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties", ".ivy2/.credentials",
	".composer/auth.json", ".config/composer/auth.json", ".nuget/nuget/nuget.config", ".yarnrc.yml",
	".terraformrc", ".databrickscfg", ".snowsql/config", ".config/doctl/config.yaml", ".config/hcloud/cli.toml",
	".fly/config.yml", ".netlify/config.json", ".wrangler/config", ".config/.wrangler/config", ".config/stripe/config.toml",
	".ngrok2/ngrok.yml", ".config/ngrok/ngrok.yml", "library/application support/ngrok/ngrok.yml",
	".local/share/com.vercel.cli/auth.json", "library/application support/com.vercel.cli/auth.json",
	".supabase/access-token", ".railway/config.json", ".circleci/cli.yml", ".travis/config.yml", ".jfrog/jfrog-cli.conf",
	".sentryclirc", ".config/configstore/firebase-tools.json", ".cache/huggingface/token", ".huggingface/token",
	".kaggle/kaggle.json", ".config/sops/age", "library/application support/sops/age", ".subversion/auth", ".vnc/passwd",
	".local/share/atuin/key", ".rediscli_history",
	// more tools' credentials: dbt profiles, Kaggle, Solana and Ethereum
	// keys, wallets, and editors' MCP configurations (servers' API keys)
	".dbt/profiles.yml", ".config/kaggle/kaggle.json", ".config/solana/id.json", ".ethereum/keystore", ".bitcoin", ".electrum",
	".cursor/mcp.json", ".codeium/windsurf/mcp_config.json", ".config/netlify/config.json",
}

// homeSecretSuffixes are the sensitiveHome paths of more than one component,
// as "/.aws/credentials": found at the end of any path, a copy of one.
// containsDir reports lp holding dir followed by a "/" (without building
// dir+"/": the walk asks this of every file it visits).
func containsDir(lp, dir string) bool {
	for i := 0; i+len(dir) < len(lp); {
		j := strings.Index(lp[i:], dir)
		if j < 0 {
			return false
		}
		if k := i + j + len(dir); k < len(lp) && lp[k] == '/' {
			return true
		}
		i += j + 1
	}
	return false
}

var homeSecretSuffixes = func() []string {
	var out []string
	for _, h := range sensitiveHome {
		if strings.Contains(h, "/") {
			out = append(out, "/"+h)
		}
	}
	return out
}()

// isSensitiveName reports whether a base name (lower case) is a secret.
func isSensitiveName(base string) bool {
	if sensitiveExact[base] {
		return true
	}
	// .env.local, .env-prod, .env_prod, .env~, prod.env: environment files
	if strings.HasPrefix(base, ".env") && len(base) > 4 && strings.IndexByte(".-_~", base[4]) >= 0 && !envExamples[base] ||
		strings.HasSuffix(base, ".env") || strings.HasSuffix(base, ".tfstate") {
		return true
	}
	for _, s := range sensitiveSuffixes {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	for _, s := range sensitivePrefixes {
		if strings.HasPrefix(base, s) {
			return true
		}
	}
	if strings.HasPrefix(base, "ssh_host_") && strings.HasSuffix(base, "_key") {
		return true // /etc/ssh/ssh_host_ed25519_key: the host's private key
	}
	// credentials.json, credentials.csv and accessKeys.csv (cloud console
	// downloads), service-account and Firebase admin SDK keys
	if (strings.Contains(base, "credentials") || strings.Contains(base, "accesskeys")) && (strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".csv")) {
		return true
	}
	return (strings.Contains(base, "service-account") || strings.Contains(base, "service_account") || strings.Contains(base, "serviceaccount") ||
		strings.Contains(base, "adminsdk")) && strings.HasSuffix(base, ".json")
}

// globCandidates are names a glob is tested against: if a pattern could match
// one of them, it could match a secret.
var globCandidates = []string{".env", ".env.local", ".env.production", "id_rsa", "id_ed25519", "server.pem",
	"server.key", "cert.p12", "cert.pfx", ".netrc", ".git-credentials", "credentials.json", ".npmrc", ".pgpass",
	// the usual stages and backup copies of an environment file: *.bak or
	// *.staging in git ls-files (whose * matches a leading dot) lists them
	".env.dev", ".env.development", ".env.staging", ".env.prod", ".env.test", ".env.bak", ".env.old", ".env.backup",
	".env.save", ".env.orig", "authkey_abc123.p8", "server.ppk", ".my.cnf"}

// sensitive reports whether any form of the path names a secret (SPEC §5.5).
// Matching is path-aware and case-insensitive.
func (a *analyzer) sensitive(r pathRef) bool {
	for _, p := range r.both() {
		if a.tainted[p] {
			return true
		}
	}
	if publicKey(r) {
		return false
	}
	if !r.known {
		return r.raw != "" && sensitiveBase(strings.ToLower(filepath.Base(r.raw)))
	}
	home := strings.ToLower(a.env.Home)
	for _, p := range r.both() {
		lp := strings.ToLower(p)
		if base := filepath.Base(lp); sensitiveBase(base) && (base != ".npmrc" || npmrcHasToken(p)) {
			return true
		}
		if strings.HasSuffix(lp, "/.git/config") && gitConfigHasCreds(p) {
			return true // url = https://x:ghp_…@github.com/o/r
		}
		// a copy of a home secret elsewhere is one too (project/.aws/credentials)
		for _, h := range homeSecretSuffixes {
			if strings.HasSuffix(lp, h) || containsDir(lp, h) {
				return true
			}
		}
		if home != "" && within(home, lp) {
			return true // the home directory itself, or above it: ~/.ssh is inside
		}
		if home != "" && within(lp, home) && lp != home {
			rel := lp[len(home)+1:]
			for _, h := range sensitiveHome {
				// ~/.aws holds ~/.aws/credentials: copying or archiving the
				// directory reads it (~/.config too: gcloud, gh; so file
				// ~/.config asks, which costs little)
				if rel == h || strings.HasPrefix(rel, h+"/") || strings.HasPrefix(h, rel+"/") || (hasGlob(rel) && globMayMatch(rel, h)) {
					return true
				}
			}
		}
		if strings.HasPrefix(lp, "/etc/shadow") || strings.HasPrefix(lp, "/etc/sudoers") || strings.HasPrefix(lp, "/etc/gshadow") ||
			within(lp, "/etc/ssl/private") || within(lp, "/etc/pki/tls/private") ||
			within(lp, "/run/secrets") || within(lp, "/var/run/secrets") { // docker and kubernetes secret mounts
			return true
		}
		for _, g := range a.pol.sensitiveGlobs(a.env) {
			if ok, _ := doublestar.Match(g, lp); ok {
				return true
			}
			if ok, _ := doublestar.Match(g+"/**", lp); ok {
				return true
			}
		}
	}
	return false
}

// publicKey reports a public key (*.pub), which is no secret (SPEC §5.5)
// even in ~/.ssh: every form of the path, the file a link or hard link
// stands for included, has the suffix (ln ~/.ssh/id_rsa k.pub is the
// private key).
func publicKey(r pathRef) bool {
	if !r.known {
		return strings.HasSuffix(strings.ToLower(r.raw), ".pub")
	}
	for _, p := range r.both() {
		if !strings.HasSuffix(strings.ToLower(p), ".pub") {
			return false
		}
	}
	return true
}

// surelySensitive tells a secret from a glob that only may match one: scp
// dist/* host: could send a dist/server.key, so it is a human-only read,
// but only ~/.ssh/* (whose fixed directory is itself sensitive) is surely
// a secret, enough for the exfiltration floor that no one can override.
func (a *analyzer) surelySensitive(r pathRef) bool {
	if !r.glob || !r.known {
		return true
	}
	dir := r.abs
	if i := strings.IndexAny(dir, "*?["); i >= 0 {
		dir = filepath.Dir(dir[:i+1])
	}
	if a.sensitive(pathRef{raw: dir, abs: dir, real: dir, known: true}) {
		return true
	}
	// a pattern that matches no ordinary file name is aimed at the secret
	// (.[!x]nv, *.pem); one that does (*, *.tgz, .env*) only may match one
	base := filepath.Base(r.abs)
	for _, c := range ordinaryNames {
		if shellGlobMatch(base, c) {
			return false
		}
	}
	return true
}

// ordinaryNames are file names no one keeps secrets in, for surelySensitive.
var ordinaryNames = []string{"README.md", "main.go", "index.js", "app.py", "app.tgz", "app.tar.gz", "app.zip", "notes.txt",
	"Makefile", "package.json", "report.pdf", "image.png", "data.csv", "lib.so", "a.out", "dist", "build", ".gitignore", ".env.example"}

// npmrcHasToken reports an .npmrc that holds credentials. A file that does
// not exist (or cannot be read) counts as holding them.
func npmrcHasToken(path string) bool {
	head, ok := fileHead(path)
	if !ok {
		return true
	}
	text := strings.ToLower(string(head))
	for _, k := range []string{"_authtoken", "_auth", "_password", "password", "token"} {
		if strings.Contains(text, k) {
			return true
		}
	}
	return false
}

// posixClasses are the bracket classes bash knows, as ranges Go's
// filepath.Match reads.
var posixClasses = map[string]string{
	"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
	"xdigit": "0-9a-fA-F", "space": " \t\n\r\v\f", "blank": " \t", "punct": "!-/:-@\\[-`{-~",
	"print": " -~", "graph": "!-~", "word": "a-zA-Z0-9_", "cntrl": "\x00-\x1f",
}

// shellGlobMatch is filepath.Match for a bash glob: [!x] negates like [^x] and
// [[:alpha:]] is a class. A pattern it cannot read matches (fail closed).
func shellGlobMatch(pattern, name string) bool {
	var b strings.Builder
	in := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			b.WriteByte(c)
			i++
			b.WriteByte(pattern[i])
		case !in && c == '[':
			in = true
			b.WriteByte(c)
			if i+1 < len(pattern) && pattern[i+1] == '!' {
				b.WriteByte('^')
				i++
			}
		case in && c == '[' && i+1 < len(pattern) && pattern[i+1] == ':':
			end := strings.Index(pattern[i+2:], ":]")
			if end < 0 {
				return true
			}
			cls, ok := posixClasses[pattern[i+2:i+2+end]]
			if !ok {
				return true
			}
			b.WriteString(cls)
			i += end + 3
		case in && c == ']':
			in = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	ok, err := filepath.Match(b.String(), name)
	if err != nil {
		// bash reads an unclosed [ as itself: docs/[draft.md is a name
		return pattern == name
	}
	return ok
}

// sensitiveBase handles a base name that may itself be a glob.
func sensitiveBase(base string) bool {
	if !hasGlob(base) && !strings.Contains(base, "{") {
		return isSensitiveName(base)
	}
	for _, alt := range braceExpand(base) {
		if !hasGlob(alt) {
			if isSensitiveName(alt) {
				return true
			}
			continue
		}
		if globMatchesCandidate(alt, false) {
			return true
		}
	}
	return false
}

// sourceNames are names of plain source files. A glob that matches one
// of them (*, **, *.json, config*) reads a whole tree rather than aiming
// at secrets, as **/.env, .env*, *.pem and id_* do (ordinaryNames, for
// the floor, also counts .env.example as ordinary).
var sourceNames = []string{"main.go", "index.ts", "readme.md", "package.json", "app.py", "config.yaml", "makefile", "a"}

// aimsAtSecret reports a glob base name (lower case) one of whose brace
// alternatives can name a secret and no ordinary file.
func aimsAtSecret(base string) bool {
	for _, alt := range braceExpand(base) {
		if sensitiveBase(alt) && !slices.ContainsFunc(sourceNames, func(n string) bool { return shellGlobMatch(alt, n) }) {
			return true
		}
	}
	return false
}

// globMatchesCandidate reports a glob base name that matches one of
// globCandidates. starDot: its * and ? match a leading dot, as find's
// -name and git's pathspecs do; the shell's do not.
func globMatchesCandidate(pat string, starDot bool) bool {
	for _, c := range globCandidates {
		if !starDot && c[0] == '.' && pat[0] != '.' {
			continue
		}
		if shellGlobMatch(pat, c) {
			return true
		}
	}
	return false
}

// globMayMatch reports whether a glob path could name the literal path lit
// or something under it.
func globMayMatch(pattern, lit string) bool {
	if ok, _ := doublestar.Match(pattern, lit); ok {
		return true
	}
	// the pattern is a prefix of the literal: ~/.s*/x matches ~/.ssh/x
	pp := strings.Split(pattern, "/")
	lp := strings.Split(lit, "/")
	for i := 0; i < len(pp) && i < len(lp); i++ {
		if !shellGlobMatch(pp[i], lp[i]) {
			return false
		}
	}
	return true
}

// isEnvDumpPath reports /proc/*/environ.
func isEnvDumpPath(p string) bool {
	return strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/environ")
}

// gitRef reports a file of git's refs: writing or deleting one moves or
// drops a branch, past what the reflog shows (like git update-ref).
func gitRef(r pathRef) bool {
	for _, p := range r.both() {
		if i := strings.LastIndex(p, "/.git/"); i >= 0 {
			rest := p[i+len("/.git/"):]
			if strings.HasPrefix(rest, "refs/") || rest == "refs" || rest == "HEAD" || rest == "packed-refs" || rest == "ORIG_HEAD" {
				return true
			}
		}
	}
	return false
}

// persistence classifies a write that makes something run later or changes
// how agents and tools behave (SPEC §5.4); "" when it is none of those.
func (a *analyzer) persistence(r pathRef) string {
	forms := r.both()
	if !r.known {
		forms = []string{"/" + strings.TrimPrefix(r.raw, "/")}
		if gitHookNames[filepath.Base(r.raw)] {
			// cd "$(git rev-parse --git-dir)/hooks"; echo … > pre-commit:
			// in a directory only known at run time, a hook's name is one
			return "git hook"
		}
	}
	if r.glob && r.known {
		// a glob that matches on disk writes those files (chmod +x dist/*),
		// not every persistence file its pattern could name
		if ms, ok := globMatches(r.abs); ok {
			for _, m := range ms {
				if kind := a.persistence(a.resolve(m, "", true, true)); kind != "" {
					return kind
				}
			}
			forms = nil
		}
	}
	if r.glob || !r.known && hasGlob(r.raw) {
		// bash expands a glob that matches: >> .git/confi[g] is .git/config
		for _, p := range forms {
			for _, c := range persistCandidates {
				if m := globSuffixMatch(p, c); m != "" {
					if kind := a.persistence(pathRef{raw: m, abs: m, real: m, known: true}); kind != "" {
						return kind
					}
				}
			}
		}
	}
	for _, p := range forms {
		if kind := persistenceOf(p); kind != "" {
			return kind
		}
	}
	return ""
}

// persistenceOf classifies one absolute path, and a directory by what it
// holds: cp x .github/workflows and wget -P .git/hooks write a file in it.
func persistenceOf(p string) string {
	for _, lp := range []string{strings.ToLower(p), strings.ToLower(p) + "/x"} {
		base := filepath.Base(lp)
		switch {
		case strings.Contains(lp, "/.git/hooks/") || strings.HasSuffix(lp, "/.git/hooks") || strings.Contains(lp, "/.husky/") ||
			strings.Contains(lp, "/.githooks/") || // the usual core.hooksPath
			strings.Contains(lp, "/.git/modules/") && (strings.Contains(lp, "/hooks/") || strings.HasSuffix(lp, "/hooks")) ||
			strings.HasPrefix(base, "lefthook") && (strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml")) ||
			strings.HasPrefix(base, ".lefthook") && (strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml")):
			return "git hook"
		case strings.HasSuffix(lp, "/.git/config") || base == "config.worktree" && strings.Contains(lp, "/.git/") || base == ".gitconfig" ||
			strings.HasSuffix(lp, "/.config/git/config") || strings.Contains(lp, "/.git/modules/") && strings.HasSuffix(lp, "/config"):
			return "git config"
		case base == ".git":
			// a gitdir: pointer file sends git (and the git status a rule
			// allows) to a repository whose config runs programs
			return "git directory pointer"
		case strings.Contains(lp, "/.github/workflows/") || strings.Contains(lp, "/.github/actions/") || strings.Contains(lp, "/.circleci/") ||
			strings.Contains(lp, "/.buildkite/") || base == ".gitlab-ci.yml" || base == "jenkinsfile" || base == ".travis.yml" ||
			base == "azure-pipelines.yml" || base == "bitbucket-pipelines.yml" || base == ".pre-commit-config.yaml" || strings.Contains(lp, "/.devcontainer/") ||
			strings.Contains(lp, "/.gitea/workflows/") || strings.Contains(lp, "/.forgejo/workflows/") || base == ".devcontainer.json" || base == ".gitpod.yml" ||
			ciFile(lp, base):
			return "CI configuration"
		case strings.Contains(lp, "/.vscode/") || strings.Contains(lp, "/.zed/") || strings.HasSuffix(base, ".code-workspace") || strings.Contains(lp, "/.idea/") && (base == "workspace.xml" || strings.Contains(lp, "/runconfigurations/")):
			return "editor task configuration"
		case strings.HasSuffix(lp, "/.cargo/config.toml") || strings.HasSuffix(lp, "/.cargo/config") || base == ".pnpmfile.cjs" ||
			base == "mise.toml" || base == ".mise.toml" || base == ".bazelrc" || base == "user.bazelrc":
			return "build tool configuration that runs programs"
		case strings.Contains(lp, "/.config/autostart/") || strings.Contains(lp, "/.local/bin/"):
			return "program started or found first on the PATH"
		case base == ".envrc":
			return ".envrc"
		case shellRC[base] || strings.Contains(lp, "/.config/fish/"):
			return "shell startup file"
		case base == "authorized_keys" || base == "authorized_keys2" || strings.Contains(lp, "/.ssh/"):
			return "ssh configuration"
		case strings.Contains(lp, "/cron") || base == "crontab" || strings.HasPrefix(lp, "/var/spool/cron"):
			return "crontab"
		case strings.Contains(lp, "/systemd/") || strings.Contains(lp, "/launchagents/") || strings.Contains(lp, "/launchdaemons/"):
			return "service unit"
		case base == ".npmrc" || base == ".yarnrc" || base == ".yarnrc.yml":
			return "package manager configuration"
		case strings.Contains(lp, "/.claude/") || strings.Contains(lp, "/.codex/") || strings.Contains(lp, "/.cursor/") ||
			strings.Contains(lp, "/.gemini/") || strings.Contains(lp, "/.continue/") || strings.Contains(lp, "/.windsurf/") ||
			base == ".mcp.json" || base == ".cursorrules" || base == ".clinerules" || base == ".aider.conf.yml" ||
			base == ".windsurfrules" || strings.HasSuffix(lp, "/.github/copilot-instructions.md") || strings.Contains(lp, "/.clinerules/") ||
			base == "claude.md" || base == "claude.local.md" || base == "agents.md" || base == "gemini.md" || base == "opencode.json" ||
			base == ".roomodes" || strings.Contains(lp, "/.github/instructions/") || strings.Contains(lp, "/.roo/") || strings.Contains(lp, "/.kiro/") ||
			agentFile(lp, base):
			return "agent instructions or configuration"
		case strings.HasSuffix(base, ".pth") || base == "sitecustomize.py" || base == "usercustomize.py" || base == "bunfig.toml" ||
			base == ".bunfig.toml":
			return "language runtime start-up file"
		case persistDirs[base]:
			return "directory of persistence files"
		}
	}
	return ""
}

// gitHookNames are the names git runs from a hooks directory (githooks(5)).
var gitHookNames = setOf("applypatch-msg pre-applypatch post-applypatch pre-commit pre-merge-commit prepare-commit-msg " +
	"commit-msg post-commit pre-rebase post-checkout post-merge pre-push pre-receive update proc-receive post-receive " +
	"post-update reference-transaction push-to-checkout pre-auto-gc post-rewrite sendemail-validate fsmonitor-watchman post-index-change")

// agentFile reports the newer agent rules, memory, skill and MCP files
// (SPEC §5.4): what a future agent run reads as instructions or runs.
func agentFile(lp, base string) bool {
	switch base {
	case "agent.md", ".rules", ".goosehints", "opencode.jsonc", "mcp.json", ".windsurfrules", "copilot-instructions.md", "warp.md",
		"qwen.md", "crush.md", "crush.local.md", "crush.json", ".crush.json", ".augment-guidelines",
		"agents.override.md", ".kilocodemodes", ".replit":
		return true
	}
	for _, d := range []string{"/.agents/", "/.github/skills/", "/.github/agents/", "/.github/prompts/", "/.github/chatmodes/",
		"/.opencode/", "/.goose/", "/.amazonq/", "/.junie/", "/.augment/", "/.qwen/", "/.crush/", "/.trae/", "/.kilocode/",
		"/.openhands/", "/.idx/"} {
		if strings.Contains(lp, d) {
			return true
		}
	}
	return false
}

// ciFile reports the pipeline files of more CI services: what they hold
// runs with the project's secrets on the next push.
func ciFile(lp, base string) bool {
	switch base {
	case ".drone.yml", ".woodpecker.yml", ".woodpecker.yaml", "appveyor.yml", ".appveyor.yml", "cloudbuild.yaml", "cloudbuild.yml",
		"buildspec.yml", "buildspec.yaml", "codemagic.yaml", ".cirrus.yml", "wercker.yml", "bitrise.yml":
		return true
	}
	return strings.Contains(lp, "/.woodpecker/") || strings.Contains(lp, "/.semaphore/") || strings.Contains(lp, "/.tekton/")
}

// persistDirs are directories whose files are persistence: moving, deleting
// or replacing one (mv .github x) changes them all.
var persistDirs = map[string]bool{".github": true, ".gitea": true, ".forgejo": true, ".circleci": true, ".buildkite": true,
	".husky": true, ".githooks": true, ".vscode": true, ".zed": true, ".devcontainer": true, ".claude": true, ".codex": true,
	".cursor": true, ".gemini": true, ".continue": true, ".windsurf": true, ".roo": true, ".kiro": true, ".agents": true,
	".opencode": true, ".clinerules": true, ".ssh": true, ".config": true, ".trae": true, ".kilocode": true, ".qwen": true,
	".crush": true, ".junie": true, ".augment": true, ".amazonq": true, ".goose": true, ".openhands": true, ".idx": true,
	".woodpecker": true, ".semaphore": true, ".tekton": true}

// persistCandidates are persistence files a glob written to is checked
// against.
var persistCandidates = []string{".git/config", ".envrc", ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zshenv",
	".gitconfig", ".npmrc", ".ssh/authorized_keys", ".ssh/config", ".mcp.json", "claude.md", "agents.md",
	".cargo/config.toml", ".pre-commit-config.yaml", ".gitlab-ci.yml"}

// globSuffixMatch returns p with its last elements replaced by c when they
// match c element by element (case-insensitively); "" when they do not.
func globSuffixMatch(p, c string) string {
	pp, cp := strings.Split(strings.ToLower(p), "/"), strings.Split(c, "/")
	if len(pp) <= len(cp) {
		return ""
	}
	tail := pp[len(pp)-len(cp):]
	for i := range cp {
		if !shellGlobMatch(tail[i], cp[i]) {
			return ""
		}
	}
	return strings.Join(strings.Split(p, "/")[:len(pp)-len(cp)], "/") + "/" + c
}

var shellRC = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true, ".profile": true,
	".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true, ".zlogout": true, ".kshrc": true,
	".cshrc": true, ".tcshrc": true, ".inputrc": true,
}

// diskDevice reports a raw disk or memory device: writing it destroys data.
func diskDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	n := p[len("/dev/"):]
	for _, d := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "mapper/", "md", "dm-", "loop", "mem", "kmem", "port"} {
		if strings.HasPrefix(n, d) {
			return true
		}
	}
	return false
}

// harmlessDevice is a write target that is not a file write.
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/pts/")
}

// systemTop are top-level directories whose loss breaks the machine; their
// direct children are floors too.
var systemTop = map[string]bool{
	"usr": true, "etc": true, "bin": true, "sbin": true, "lib": true, "lib32": true, "lib64": true, "boot": true,
	"var": true, "opt": true, "system": true, "library": true, "applications": true, "private": true, "dev": true,
	"proc": true, "sys": true, "root": true, "snap": true,
}

// floorTarget reports whether recursively deleting p is a hard floor: /,
// top-level directories, system directories one level down, the home
// directory, the project and every ancestor of either.
func (a *analyzer) floorTarget(p string) bool {
	if p == "" {
		return false
	}
	if p == "/" {
		return true
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(parts) == 1 {
		return true
	}
	if len(parts) == 2 && systemTop[strings.ToLower(parts[0])] {
		return true
	}
	for _, keep := range []string{a.env.Home, a.env.Project} {
		if keep != "" && within(keep, p) {
			return true
		}
	}
	return false
}

// floorGlob is the form of a glob (lexical, or through the links its
// directories are) whose deletion could remove a floor target: /*, ~/*,
// /u*, project/*, /*/*; "" when none.
func (a *analyzer) floorGlob(r pathRef) string {
	for _, p := range r.both() {
		if dir := filepath.Dir(p); !hasGlob(dir) && a.floorTarget(dir) && broadGlob(filepath.Base(p)) {
			return p
		}
		if strings.Count(p, "/") == 1 {
			return p
		}
		for _, keep := range []string{a.env.Home, a.env.Project} {
			for k := keep; k != "" && k != "/"; k = filepath.Dir(k) {
				if ok, _ := doublestar.Match(p, k); ok {
					return p
				}
			}
		}
	}
	return ""
}

// homeDirs are directories most home directories hold, whose loss is
// the loss of the user's files or setup.
var homeDirs = []string{"Desktop", "Documents", "Downloads", "Music", "Pictures", "Public", "Templates", "Videos",
	"snap", ".config", ".cache", ".local", ".ssh", ".gnupg", ".aws", ".kube", ".docker", ".mozilla"}

// homeDirGlob says which well-known home directory a glob directly in the
// home directory matches (rm -rf ~/D* deletes ~/Documents), lexically or
// through the links its directories are, as "P, which matches ~/D"; ""
// when none. A name starting with a dot is matched only by a pattern
// starting with one, as bash globs do by default.
func (a *analyzer) homeDirGlob(r pathRef) string {
	home := a.env.Home
	if home == "" || home == "/" {
		return ""
	}
	for _, p := range r.both() {
		if filepath.Dir(p) != filepath.Clean(home) {
			continue
		}
		pat := filepath.Base(p)
		for _, d := range homeDirs {
			if strings.HasPrefix(d, ".") != strings.HasPrefix(pat, ".") {
				continue
			}
			if ok, _ := doublestar.Match(pat, d); ok {
				return p + ", which matches ~/" + d
			}
		}
	}
	return ""
}

// broadGlob reports whether a glob name matches about anything (*, .*, ?*,
// [a-z]*, *.*): in a floor directory it is that directory's contents. A
// name with a literal part (*.log, test_*) removes some files, not the
// directory, so rm -f *.log in the project root is a write, not a floor.
func broadGlob(name string) bool {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '*', '?', '.':
		case '[':
			end := strings.IndexByte(name[i+1:], ']')
			if end < 0 {
				return false
			}
			i += end + 1
		default:
			return false
		}
	}
	return true
}

// braceExpand expands bash brace alternatives {a,b} (up to 64 results).
func braceExpand(s string) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return []string{s}
	}
	depth, end := 0, -1
	for i := open; i < len(s) && end < 0; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				end = i
			}
		}
	}
	if end < 0 || !strings.Contains(s[open:end], ",") {
		return []string{s}
	}
	var alts []string
	depth, start := 0, open+1
	for i := open + 1; i < end; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				alts = append(alts, s[start:i])
				start = i + 1
			}
		}
	}
	alts = append(alts, s[start:end])
	var out []string
	for _, alt := range alts {
		for _, e := range braceExpand(s[:open] + alt + s[end+1:]) {
			if len(out) >= 64 {
				return out
			}
			out = append(out, e)
		}
	}
	return out
}

// markTainted records a file written from a secret in this call, so that
// sending it on later in the same call is exfiltration too.
func (a *analyzer) markTainted(r pathRef) {
	if a.tainted == nil {
		a.tainted = map[string]bool{}
	}
	for _, p := range r.both() {
		a.tainted[p] = true
	}
}

// markFetched records a file a downloader wrote: running it later in the
// same call is download-then-execute.
func (a *analyzer) markFetched(r pathRef) {
	if !r.known {
		return
	}
	if a.fetched == nil {
		a.fetched = map[string]bool{}
	}
	for _, p := range r.both() {
		a.fetched[p] = true
	}
}

// runsFetched reports a script or program path written by a downloader
// earlier in the call; it makes f human-only.
func (a *analyzer) runsFetched(f *rfact, w word, sc *scope) {
	if a.fetched == nil || w.dyn {
		return
	}
	r := a.resolvePath(w.val, sc.cwd, false)
	for _, p := range r.both() {
		if a.fetched[p] {
			f.human = reason("human.download-exec", "runs a file downloaded in the same command")
		}
	}
}

// Bounds of globMatches: past them the glob is judged by its pattern.
const (
	maxGlobMatches = 256
	maxGlobDirs    = 32
	maxGlobEntries = 4096
)

// globMatches expands an absolute glob on disk, for a reader to be judged
// by the files it will read rather than by every secret name the pattern
// could match. It errs towards more matches: * matches dotfiles (dotglob
// may be on in the agent's shell), . and .. too for a .pattern, and case
// is ignored (nocaseglob). ok is false when the pattern cannot be expanded
// cheaply and surely: **, extglob, escapes, an unreadable directory, no
// match at all (the directory may not be the one the command sees) or more
// than maxGlobMatches.
func globMatches(pattern string) (matches []string, ok bool) {
	if strings.Contains(pattern, "**") || strings.ContainsAny(pattern, `\(`) || !filepath.IsAbs(pattern) {
		return nil, false
	}
	cur := []string{"/"}
	dirs, entries := 0, 0
	for _, seg := range strings.Split(pattern[1:], "/") {
		if !hasGlob(seg) {
			for i := range cur {
				cur[i] = filepath.Join(cur[i], seg)
			}
			continue
		}
		lseg := strings.ToLower(seg)
		var next []string
		for _, d := range cur {
			if dirs++; dirs > maxGlobDirs {
				return nil, false
			}
			ents, err := os.ReadDir(d)
			if err != nil {
				if os.IsNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
					continue
				}
				return nil, false
			}
			if entries += len(ents); entries > maxGlobEntries {
				return nil, false
			}
			names := make([]string, 0, len(ents)+2)
			if seg[0] == '.' {
				names = append(names, ".", "..")
			}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			for _, n := range names {
				if shellGlobMatch(lseg, strings.ToLower(n)) {
					if next = append(next, filepath.Join(d, n)); len(next) > maxGlobMatches {
						return nil, false
					}
				}
			}
		}
		cur = next
	}
	for _, m := range cur {
		if _, err := os.Lstat(m); err == nil {
			matches = append(matches, m)
		}
	}
	return matches, len(matches) > 0
}

// hardLinkedTwin is the secret or perm-peer file a file with more than one
// hard link is the same file as (notes.txt made by ln .env notes.txt, ln
// ~/.ssh/id_rsa k, ln ~/.local/state/perm-peer/x.db n.db): a secret name
// beside it, a home secret file or one of perm-peer's own. It is p itself
// when there is none.
func (a *analyzer) hardLinkedTwin(p string, fi os.FileInfo) string {
	var cands []string
	if ents, err := os.ReadDir(filepath.Dir(p)); err == nil && len(ents) <= 4000 {
		for _, e := range ents {
			if e.Type().IsRegular() && isSensitiveName(strings.ToLower(e.Name())) {
				cands = append(cands, filepath.Join(filepath.Dir(p), e.Name()))
			}
		}
	}
	if h := a.env.Home; h != "" {
		if ents, err := os.ReadDir(filepath.Join(h, ".ssh")); err == nil && len(ents) <= 4000 {
			for _, e := range ents {
				cands = append(cands, filepath.Join(h, ".ssh", e.Name()))
			}
		}
		for _, s := range sensitiveHome {
			cands = append(cands, filepath.Join(h, s))
		}
	}
	cands = append(cands, a.protected().twins()...)
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && c != p && os.SameFile(fi, st) {
			return c
		}
	}
	return p
}

// userinfoURL is a URL with a password or token before the host.
var userinfoURL = lazyRE(`://[^/@\s:]*:[^/@\s]+@`)

// gitConfigHasCreds reports a .git/config whose remote URLs carry a
// password or token (git remote add origin https://x:TOKEN@host/…).
func gitConfigHasCreds(path string) bool {
	head, ok := fileHead(path)
	return ok && userinfoURL().Match(head)
}

// fileHead is the first 64 KB of a file (ok false: it cannot be read),
// enough for the small config files the gate looks into.
func fileHead(path string) (head []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, 64*1024)
	n, _ := f.Read(buf)
	return buf[:n], true
}
