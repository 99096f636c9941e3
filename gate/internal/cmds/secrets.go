package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The secret stores and the tools that decrypt: the forms in which they
// print a secret are human-only reads, decided by the gate's hooks
// (gate/hooks_other.go) or by their entries' Secrets (secretTools,
// gate/subcmds.go's secretPrinters). None is known-safe but its help.

// gpgFlags are the common flags of GnuPG's gpg and gpg2: the commands
// (--decrypt, --export-secret-keys, …) are flags too.
var gpgFlags = with(flags("-d --decrypt -e --encrypt -s --sign --clearsign --clear-sign -b --detach-sign -c --symmetric -a --armor "+
	"-k --list-keys --list-public-keys -K --list-secret-keys --list-sigs --check-sigs --fingerprint --verify --import --export "+
	"--export-secret-keys --export-secret-subkeys --gen-key --generate-key --full-generate-key --full-gen-key --delete-keys "+
	"--delete-secret-keys --edit-key --recv-keys --send-keys --search-keys --refresh-keys --list-packets --card-status "+
	"--batch --yes --no --no-tty -q --quiet -v --verbose --with-colons --with-fingerprint --keyid-format --no-default-keyring "+
	"--always-trust --dry-run -n",
	"-r --recipient -u --local-user --default-key --homedir --passphrase --pinentry-mode --keyserver --trust-model "+
		"--cipher-algo --digest-algo --compress-algo -z --keyring --secret-keyring --status-fd --logger-fd --command-fd", ""),
	writes("-o --output"), reads("--passphrase-file"))

// gpgEntry is gpg's entry under name (gpg, gpg2).
func gpgEntry(name string, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Abbrev: true, Flags: gpgFlags, Hook: "gpg",
		Examples: append([]argv.Example{want("--export-secret-keys -a me", "human human.sensitive-read"), want("--list-keys", "ask"),
			want("--version", "allow")}, ex...)}
}

var secretStores = []*argv.Command{
	// macOS security's entry is a tool's (macos.go's macTools)
	// libsecret's secret-tool: lookup prints the stored secret
	withHook("secret-service", tool("secret-tool", flags("", "", ""),
		sub("lookup", flags("", "", "")), sub("search", flags("--all --unlock", "", "")), sub("store", flags("", "--label --collection", "")),
		sub("clear", flags("", "", "")), sub("lock", flags("", "--collection", ""))),
		want("lookup service gh", "human human.sensitive-read"), want("search service gh", "ask")),
}

// secretTools are the password managers, vaults, decrypters and
// platform CLIs whose entries' Secrets name the forms that print a secret
// (vault kv get, pass show, sops -d, heroku config:get): no hook reads
// them but gpg's, and none is known-safe but its help. A name ending in
// "-*" covers every program named so (docker-credential-osxkeychain).
var secretTools = []*Tool{
	secretTool("vault", examples(tool("vault", flags("", "-address -namespace -format -field -mount -output-curl-string -output-policy", ""),
		sub("kv", flags("", "-mount -field -format -version", "")), sub("read", flags("", "-field -format", "")), sub("status", flags("", "-format", ""))),
		want("kv get secret/app", "human human.sensitive-read"), want("status", "ask")),
		"read secret/x", "kv get", "read", "print token", "token create"),
	secretTool("op", nil, "item get x --reveal", "read", "item get --reveal|--fields|--format", "inject"),
	secretTool("dotenvx", nil, "get KEY", "get", "decrypt"),
	secretTool("kwallet-query", nil, "-r x kdewallet", "-r|--read-password"),
	secretTool("pass", examples(tool("pass", flags("", "", ""), sub("show", flags("-c --clip -q --qrcode", "", "")), sub("ls", flags("", "", ""))),
		want("show web/github", "human human.sensitive-read"), want("ls", "ask")),
		"show x", "show"),
	secretTool("gopass", examples(tool("gopass", flags("-y --yes", "", ""), sub("show", flags("-c --clip -o --password -f --force -n --noparsing", "-r --revision", "")),
		sub("ls", flags("-f --flat", "", ""))),
		want("show web/github", "human human.sensitive-read"), want("ls", "ask")),
		"show x", "show"),
	secretTool("bw", examples(tool("bw", flags("--pretty --raw --response --quiet --nointeraction", "--session", ""),
		sub("get", flags("", "--itemid --organizationid", "")), sub("list", flags("", "--search --url --folderid --collectionid --organizationid", ""))),
		want("get password github", "human human.sensitive-read"), want("list items", "ask")),
		"get password x", "get"),
	secretTool("lpass", examples(tool("lpass", flags("", "", ""), sub("show", flags("--all --username --password --url --notes --json --expand-multi -x --clip -c", "--field --attach --basic-regexp -G --fixed-strings -F", "")),
		sub("ls", flags("-l --long -m -u --color", "--format", ""))),
		want("show github", "human human.sensitive-read"), want("ls", "ask")),
		"show x", "show"),
	// sops -d and decrypt print the plaintext; sops FILE opens it
	// decrypted in an editor
	secretTool("sops", gnu("sops", with(flags("-d --decrypt -e --encrypt -i --in-place --ignore-mac --verbose", "--input-type --output-type --extract --config "+
		"--age --pgp --kms --gcp-kms --azure-kv --hc-vault-transit --encrypted-regex --unencrypted-regex", ""), writes("--output")),
		want("-d secrets.enc.yaml", "human human.sensitive-read"), want("-e -i app.yaml", "ask")),
		"decrypt x.yaml", "-d|--decrypt", "decrypt"),
	secretTool("age", gnu("age", with(flags("-d --decrypt -e --encrypt -a --armor -p --passphrase", "-r --recipient", ""),
		reads("-i --identity -R --recipients-file"), writes("-o --output")),
		want("-d -i key.txt secret.age", "human human.sensitive-read"), want("-r age1xyz -o out.age notes.txt", "ask")),
		"--decrypt -i k.txt x.age", "-d|--decrypt"),
	secretTool("ansible-vault", examples(tool("ansible-vault", flags("--ask-vault-pass --ask-vault-password -v --verbose", "--vault-id --vault-password-file --vault-pass-file", ""),
		sub("view", flags("", "--vault-id --vault-password-file", "")), sub("encrypt", flags("", "--vault-id --vault-password-file --output", ""))),
		want("view vars.yml", "human human.sensitive-read"), want("encrypt vars.yml", "ask")),
		"decrypt x.yml", "view", "decrypt"),
	secretTool("heroku", nil, "config:get X", "config", "config:get", "auth:token"),
	secretTool("vercel", nil, "env pull", "env pull"),
	secretTool("netlify", nil, "env:get X", "env:get"),
	secretTool("doppler", nil, "secrets", "secrets"),
	secretTool("infisical", nil, "export", "secrets", "export"),
	secretTool("bws", nil, "secret get x", "secret get", "secret list"),
	secretTool("chamber", nil, "read svc key", "read", "export"),
	secretTool("aws-vault", nil, "export prof", "export"),
	secretTool("fly", nil, "auth token", "auth token"),
	secretTool("flyctl", nil, "auth token", "auth token"),
	secretTool("gpg", gpgEntry("gpg", want("-o out.txt -d secret.gpg", "human human.sensitive-read")), "-d x.gpg", "-d|--decrypt"),
	secretTool("gpg2", gpgEntry("gpg2"), "--decrypt x.gpg", "-d|--decrypt"),
	secretTool("keyring", nil, "get svc user", "get"),
	secretTool("docker-credential-*", nil, "get", "get"),
	secretTool("git-credential-*", nil, "get", "get"),
}

// secretTool is name's entry: its flags cmd (nil: none declared), forms
// print a secret, as example does.
func secretTool(name string, cmd *argv.Command, example string, forms ...string) *Tool {
	return &Tool{Name: name, Cmd: cmd, Secrets: forms, Examples: []argv.Example{want(example, "human human.sensitive-read")}}
}

// secretCLIs are the credential helpers whose flags the table declares:
// get prints the credential the helper stores (secretTools' families).
var secretCLIs = []*argv.Command{
	examples(tool("docker-credential-pass", flags("", "", ""), sub("get", flags("", "", "")), sub("list", flags("", "", ""))),
		want("get", "human human.sensitive-read"), want("list", "ask")),
	examples(tool("git-credential-store", flags("", "--file", ""), sub("get", flags("", "", "")), sub("store", flags("", "", ""))),
		want("get", "human human.sensitive-read"), want("--file creds get", "human human.sensitive-read")),
}
