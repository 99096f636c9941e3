// sensitive.go says which paths hold secrets (SPEC §5.3: keys, tokens,
// credential files by name and by place) and which are persistence (what a
// later shell, commit, agent or CI run executes).

package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

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
	// act's secrets file (KEY=value, as .env)
	".secrets": true,
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
	// gha-creds-*.json: the credentials google-github-actions/auth writes
	// into the workspace
	return (strings.Contains(base, "service-account") || strings.Contains(base, "service_account") || strings.Contains(base, "serviceaccount") ||
		strings.Contains(base, "adminsdk") || strings.HasPrefix(base, "gha-creds-")) && strings.HasSuffix(base, ".json")
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
func (pl *places) sensitive(r pathRef) bool {
	for _, p := range r.both() {
		if pl.tainted[p] {
			return true
		}
	}
	if publicKey(r) {
		return false
	}
	if !r.known {
		return r.raw != "" && sensitiveBase(strings.ToLower(filepath.Base(r.raw)))
	}
	home := strings.ToLower(pl.env.Home)
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
		for _, g := range pl.pol.sensitiveGlobs(pl.env) {
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
func (pl *places) surelySensitive(r pathRef) bool {
	if !r.glob || !r.known {
		return true
	}
	dir := r.abs
	if i := strings.IndexAny(dir, "*?["); i >= 0 {
		dir = filepath.Dir(dir[:i+1])
	}
	if pl.sensitive(pathRef{raw: dir, abs: dir, real: dir, known: true}) {
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
func (pl *places) persistence(r pathRef) string {
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
				if kind := pl.persistence(pl.resolve(m, "", true, true)); kind != "" {
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
					if kind := pl.persistence(pathRef{raw: m, abs: m, real: m, known: true}); kind != "" {
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
			base == ".bunfig.toml" || base == ".pdbrc" || base == ".irbrc" || base == ".pryrc":
			// pdb, irb and pry run the one in the working directory too
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
