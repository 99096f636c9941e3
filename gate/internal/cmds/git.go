package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// git: its global options, and the read-only subcommands the gate's code
// finds known-safe, with their flags. A subcommand not declared here is
// decided by the code alone (gate/hooks_git.go).

// git is git's entry: its global options end at the subcommand's name.
var git = tool("git", flags("-v -p --paginate -P --no-pager --no-replace-objects --bare --literal-pathspecs --glob-pathspecs --noglob-pathspecs "+
	"--icase-pathspecs --no-optional-locks --no-advice --exec-path --html-path --man-path --info-path",
	"-C -c --git-dir --work-tree --namespace --config-env --super-prefix --list-cmds --attr-source", ""), gitSubs...)

// gitDiffFlags are the diff and pretty-format options git log, show and
// diff share, but --output (writes a file), --ext-diff and --textconv
// (run configured programs).
const gitDiffFlags = "-p -u --patch -s --no-patch --raw --patch-with-raw -t --numstat --shortstat --summary --patch-with-stat " +
	"-z --name-only --name-status --submodule --color --no-color --color-moved --no-color-moved --color-words --word-diff " +
	"--no-renames --rename-empty --no-rename-empty --check --full-index --binary --abbrev -B --break-rewrites -M --find-renames " +
	"-C --find-copies --find-copies-harder -D --irreversible-delete -R --relative --no-relative -a --text --ignore-cr-at-eol " +
	"--ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines --minimal --patience --histogram " +
	"--indent-heuristic --no-indent-heuristic --function-context -W --exit-code --quiet --no-ext-diff --no-textconv " +
	"--ignore-submodules --no-prefix --default-prefix --ita-invisible-in-index --ita-visible-in-index --cumulative --merge-base " +
	"--pickaxe-all --pickaxe-regex --compact-summary --cc -c --combined-all-paths -m --dd --remerge-diff --diff-merges --no-diff-merges " +
	"--first-parent --stat --dirstat --full-diff --log-size --no-abbrev --ignore-matching-lines"

const gitDiffValues = "--stat-width --stat-name-width --stat-count --stat-graph-width --diff-algorithm --anchored -l --diff-filter " +
	"-S -G --find-object -O --src-prefix --dst-prefix --line-prefix --inter-hunk-context --unified -U --output-indicator-new " +
	"--output-indicator-old --output-indicator-context --word-diff-regex --color-moved-ws --skip-to --rotate-to -I"

// gitRevFlags are git log's revision and formatting options.
const gitRevFlags = "--oneline --graph --all --branches --tags --remotes --decorate --no-decorate --source --use-mailmap --mailmap " +
	"--follow --no-walk --do-walk --reverse --merges --no-merges --boundary --left-right --left-only --right-only --cherry " +
	"--cherry-mark --cherry-pick --topo-order --date-order --author-date-order --abbrev-commit --no-abbrev-commit --parents --children " +
	"--walk-reflogs -g --regexp-ignore-case -i --extended-regexp -E --fixed-strings -F --perl-regexp -P --invert-grep --all-match " +
	"--simplify-by-decoration --full-history --dense --sparse --simplify-merges --ancestry-path --show-pulls --bisect --stdin " +
	"--relative-date --show-signature --show-notes --no-notes --standard-notes --no-standard-notes --show-linear-break --notes " +
	"--clear-decorations --count --ignore-missing --single-worktree --reflog --alternate-refs --indexed-objects --no-min-parents --no-max-parents"

const gitRevValues = "-n --max-count --skip --since --after --until --before --author --committer --grep --grep-reflog " +
	"--min-parents --max-parents --encoding --expand-tabs --format --pretty --date --decorate-refs --decorate-refs-exclude -L " +
	"--since-as-filter --exclude --glob --exclude-hidden --max-age --min-age"

// gitValues are the values taken by optional-valued spellings of the diff
// and log options (--stat=80, --color=always, --decorate=short).
const gitOptional = "--stat --dirstat --color --decorate --abbrev --word-diff --color-moved --submodule --relative " +
	"--find-renames --find-copies --break-rewrites --ignore-submodules --notes --show-notes --color-words --diff-merges " +
	"--cc --first-parent --no-walk --date --pretty --format --graph --patch-with-stat --show-linear-break --dd"

func gitLog(name string, ex ...argv.Example) *argv.Command {
	c := sub(name, flags(gitDiffFlags+" "+gitRevFlags, gitDiffValues+" "+gitRevValues, gitOptional), ex...)
	c.Numeric = true // git log -20
	return c
}

// gitSubs are git's read-only subcommands.
var gitSubs = []*argv.Command{
	gitLog("log", ex("--oneline -20", ""), ex("-p --stat README.md", ""), ex("--format=%H -n 1", ""), ex("--output=x", "--output=x")),
	gitLog("show", ex("HEAD --stat", ""), ex("--name-only HEAD", "")),
	gitLog("whatchanged"),
	sub("diff", flags(gitDiffFlags+" --cached --staged --no-index", gitDiffValues, gitOptional),
		ex("--stat", ""), ex("--cached --name-only", ""), ex("HEAD~1 -- src/", ""), ex("--ext-diff", "--ext-diff")),
	sub("status", flags("-s --short -b --branch --show-stash --long -v --verbose --ignored --no-renames --renames --ahead-behind --no-ahead-behind -z --no-column",
		"--find-renames", "--porcelain -u --untracked-files --ignore-submodules --column --ignored"), ex("--porcelain", ""), ex("-sb", "")),
	sub("branch", flags("-a --all -r --remotes -l --list -v -vv --verbose -q --quiet --show-current --no-color --color --no-column -i --ignore-case "+
		"--omit-empty", "--contains --no-contains --merged --no-merged --points-at --sort --format --abbrev", "--column --color --abbrev"),
		ex("-a", ""), ex("--show-current", "")),
	sub("blame", flags("-b --root --show-stats -l -t -p --porcelain --line-porcelain --incremental -c -s -n --show-number -e --show-email -w "+
		"-f --show-name --score-debug --minimal --progress --no-progress --color-lines --color-by-age -M -C",
		"-L -S --reverse --since --ignore-rev --ignore-revs-file --abbrev --encoding --first-parent", ""), ex("-L 1,5 README.md", "")),
	sub("ls-files", flags("-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -k --killed -u --unmerged "+
		"--directory --no-empty-directory --eol --error-unmatch -t -v -f --full-name --recurse-submodules --deduplicate -z --sparse --exclude-standard --resolve-undo",
		"-x --exclude -X --exclude-from --exclude-per-directory --with-tree --format", "--abbrev --debug"), ex("-o --exclude-standard", "")),
	sub("ls-tree", flags("-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree", "--format", "--abbrev"), ex("-r HEAD", "")),
	sub("rev-parse", flags("--verify -q --quiet --short --abbrev-ref --symbolic --symbolic-full-name --all --branches --tags --remotes "+
		"--show-toplevel --show-cdup --show-prefix --git-dir --git-common-dir --absolute-git-dir --is-inside-git-dir --is-inside-work-tree "+
		"--is-bare-repository --is-shallow-repository --show-superproject-working-tree --shared-index-path --local-env-vars --revs-only "+
		"--no-revs --flags --no-flags --sq --sq-quote --not --default --show-object-format --show-ref-format --parseopt --keep-dashdash "+
		"--stop-at-non-option --stuck-long",
		"--prefix --since --after --until --before --resolve-git-dir --git-path --disambiguate --exclude --glob --path-format",
		"--short --abbrev-ref --branches --tags --remotes --show-object-format"), ex("--show-toplevel", ""), ex("HEAD", "")),
	sub("tag", flags("-l --list -n --column --no-column --ignore-case -i --omit-empty", "--contains --no-contains --merged --no-merged --points-at --sort --format", "--column --color"),
		ex("-l", ""), ex("--sort=-creatordate", "")),
	sub("describe", flags("--all --tags --long --always --first-parent --exact-match --debug --contains", "--abbrev --candidates --match --exclude", "--dirty --broken"),
		ex("--tags --always", "")),
	sub("shortlog", flags("-n --numbered -s --summary -e --email -c --committer "+gitRevFlags, "--format --group "+gitRevValues, "-w"), ex("-sn", "")),
	sub("reflog", flags(gitRevFlags+" "+gitDiffFlags, gitRevValues+" "+gitDiffValues, gitOptional)),
	sub("grep", flags("--cached --no-index --untracked --no-exclude-standard --exclude-standard --recurse-submodules -a --text --textconv --no-textconv "+
		"-i --ignore-case -I -w --word-regexp -v --invert-match -h -H --full-name -E --extended-regexp -G --basic-regexp -P --perl-regexp "+
		"-F --fixed-strings -n --line-number --column -l --files-with-matches --name-only -L --files-without-match -z --null -o --only-matching "+
		"-c --count --no-color --break --heading -p --show-function -W --function-context --and --or --not --all-match -q --quiet -r --recursive --no-recursive",
		"-e -f --max-depth -m --max-count --threads -A --after-context -B --before-context -C --context", "--color"),
		ex("-n foo", ""), ex("-O vim foo", "-O")),
	sub("cat-file", flags("-t -s -e -p --mailmap --no-mailmap --textconv --filters --batch-all-objects --buffer --unordered --follow-symlinks -Z", "--path --batch-command", "--batch --batch-check --allow-unknown-type --use-mailmap"),
		ex("-p HEAD", "")),
	sub("remote", flags("-v --verbose", "", "")),
	tool("stash", flags("", "", ""), gitLog("list"), gitLog("show")),
	sub("config", flags("--get --get-all --get-regexp --get-urlmatch -l --list --global --system --local --worktree --name-only --show-origin --show-scope "+
		"-z --null --bool --int --bool-or-int --path --expiry-date --includes --no-includes", "--type --default -f --file --blob", ""),
		ex("--get user.name", ""), ex("--list --show-origin", "")),
}
