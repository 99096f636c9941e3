// The real hosts after `perm-peer setup` alone: no hand-written trust, no
// edited settings. Claude Code picks up the project's per-machine
// .claude/settings.local.json, and after `setup --remove` runs no
// perm-peer hook; Codex, after the trust and review setup records in
// $CODEX_HOME/config.toml, runs the project's hooks: a .env read is
// refused while a known-safe call runs. `perm-peer doctor` agrees.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropic } from "./scripted-anthropic.mjs";
import { audit, bin, hookWorld, runHost } from "./hooked.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const claudeBin = path.join(here, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const codexBin = path.join(here, "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");
const secret = "API_KEY=sk-live-SECRET-MARKER-2207\n";

const pp = (w, ...args) => execFileSync(bin, args, { cwd: w.project, env: w.env }).toString();
const resultText = (model, id) => {
  const r = model.toolResults().find((b) => b.tool_use_id === id);
  if (!r) return "";
  return typeof r.content === "string" ? r.content : (r.content ?? []).map((c) => c.text ?? c.output ?? "").join("\n");
};

async function runClaude(w, model) {
  const env = { ...w.env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" };
  delete env.CLAUDECODE;
  return runHost(claudeBin, ["-p", "go", "--output-format", "stream-json", "--verbose"], { cwd: w.project, env });
}

test("Claude Code after setup: the hooks in .claude/settings.local.json run; after setup --remove none does", async () => {
  const w = hookWorld("pp-setup-claude-", { "README.md": "one\ntwo\n", ".env": secret });
  assert.match(pp(w, "setup", "claude-code"), /settings\.local\.json/);
  assert.equal(fs.existsSync(path.join(w.project, ".claude", "settings.json")), false, "setup wrote the shared settings.json");
  assert.match(pp(w, "doctor"), /^ok\s+claude-code\s+.*settings\.local\.json: 4 hooks, will run$/m);

  let model = await startAnthropic([
    { tool: "Bash", input: { command: "cat .env", description: "secret" } },
    { tool: "Bash", input: { command: "wc -l README.md", description: "count" } },
    { text: "done" },
  ]);
  try {
    const run = await runClaude(w, model);
    assert.equal(run.code, 0, run.stderr);
    const [secretId, safeId] = model.toolResults().map((r) => r.tool_use_id);
    assert.doesNotMatch(resultText(model, secretId), /SECRET-MARKER/);
    assert.match(resultText(model, safeId), /2 README\.md/);
    const recs = audit(w);
    assert.ok(recs.some((r) => r.decision === "once" && JSON.stringify(r).includes("wc -l README.md")), JSON.stringify(recs));
  } finally {
    await model.close();
  }
  const before = audit(w).length;

  assert.match(pp(w, "setup", "claude-code", "--remove"), /removed PreToolUse/);
  assert.equal(fs.existsSync(path.join(w.project, ".claude", "settings.local.json")), false, "the file setup created is still there");
  model = await startAnthropic([{ tool: "Bash", input: { command: "wc -l README.md", description: "count" } }, { text: "done" }]);
  try {
    const run = await runClaude(w, model);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(audit(w).length, before, "a perm-peer hook ran after setup --remove");
  } finally {
    await model.close();
  }
});

test("Codex after setup: project trust and hook review recorded by setup; a .env read is refused, a known-safe call runs", async () => {
  const w = hookWorld("pp-setup-codex-", { "README.md": "one\ntwo\n", ".env": secret });
  const codexHome = path.join(w.root, "codex");
  fs.mkdirSync(codexHome);
  Object.assign(w.env, { CODEX_HOME: codexHome, MOCK_KEY: "dummy" });
  const model = await startAnthropic([
    { tool: "exec_command", input: { cmd: "cat .env" } },
    { tool: "exec_command", input: { cmd: "wc -l README.md" } },
    { text: "done" },
  ]);
  try {
    // the user's own config: the model provider, nothing about hooks or trust
    fs.writeFileSync(path.join(codexHome, "config.toml"), `model = "test-model"\nmodel_provider = "mock"\n\n` +
      `[model_providers.mock]\nname = "mock"\nbase_url = "${model.url}/v1"\nwire_api = "responses"\nenv_key = "MOCK_KEY"\n`);
    const out = pp(w, "setup", "codex");
    assert.match(out, /trusted the project/);
    assert.match(out, /recorded 4 perm-peer hooks as reviewed/);
    assert.match(pp(w, "doctor"), /^ok\s+codex\s+.*hooks\.json: 4 hooks, will run$/m);

    const run = await runHost(codexBin, ["exec", "--skip-git-repo-check", "-s", "danger-full-access", "tidy up"], { cwd: w.project, env: w.env });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.doesNotMatch(run.stderr, /need review/, "Codex still asks for the hooks' review");
    const [secretId, safeId] = model.toolResults().map((r) => r.tool_use_id);
    assert.doesNotMatch(resultText(model, secretId), /SECRET-MARKER/, "Codex printed .env: the hooks did not run");
    assert.match(resultText(model, secretId), /needs a human|blocked/);
    assert.match(resultText(model, safeId), /2 README\.md/);
    assert.ok(audit(w).length >= 2, "perm-peer audited nothing");
  } finally {
    await model.close();
  }
});
