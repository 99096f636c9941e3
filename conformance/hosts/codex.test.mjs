// The real Codex CLI (from npm) guarded by `perm-peer hook codex`,
// installed with `perm-peer setup codex --user`, against the scripted model
// (its Responses API) on loopback. Codex runs non-managed hooks only once
// its user trusted them; the test trusts them as Codex's /hooks screen
// does, by recording each hook's hash in config.toml.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropic } from "./scripted-anthropic.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const codexBin = path.join(here, "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");
const bin = process.env.PERM_PEER_BIN;
if (!bin) throw new Error("PERM_PEER_BIN must name the perm-peer binary (make hosts sets it)");

function world() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pp-codex-"));
  const w = { root, home: path.join(root, "home"), codexHome: path.join(root, "codex"), project: path.join(root, "project"),
    config: path.join(root, "config"), state: path.join(root, "state") };
  for (const d of [w.home, w.codexHome, w.project, w.config, w.state]) fs.mkdirSync(d, { recursive: true });
  execFileSync("git", ["init", "-q", w.project]);
  fs.writeFileSync(path.join(w.project, "README.md"), "one\ntwo\n");
  fs.writeFileSync(path.join(w.project, ".env"), "API_KEY=SECRET-MARKER-0815\n");
  w.env = { ...process.env, HOME: w.home, CODEX_HOME: w.codexHome, XDG_CONFIG_HOME: w.config, XDG_STATE_HOME: w.state, MOCK_KEY: "dummy" };
  const out = execFileSync(bin, ["setup", "codex", "--user"], { env: w.env }).toString();
  assert.match(out, /added PreToolUse/);
  return w;
}

/** trustState is the [hooks.state] Codex writes when its user trusts every hook in hooks.json. */
function trustState(hooksFile) {
  const snake = (e) => e.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
  let toml = "";
  for (const [event, groups] of Object.entries(JSON.parse(fs.readFileSync(hooksFile, "utf8")).hooks)) {
    groups.forEach((g, gi) => g.hooks.forEach((h, hi) => {
      // sorted keys, compact: Codex's canonical identity of a hook
      const identity = { event_name: snake(event), hooks: [{ async: false, command: h.command, timeout: h.timeout ?? 600, type: "command" }] };
      if (g.matcher !== undefined) identity.matcher = g.matcher;
      const hash = crypto.createHash("sha256").update(JSON.stringify(identity)).digest("hex");
      toml += `[hooks.state."${hooksFile}:${snake(event)}:${gi}:${hi}"]\ntrusted_hash = "sha256:${hash}"\n\n`;
    }));
  }
  return toml;
}

function runCodex(w, model, prompt) {
  fs.writeFileSync(path.join(w.codexHome, "config.toml"), `model = "test-model"\nmodel_provider = "mock"\n\n` +
    `[model_providers.mock]\nname = "mock"\nbase_url = "${model.url}/v1"\nwire_api = "responses"\nenv_key = "MOCK_KEY"\n\n` +
    trustState(path.join(w.codexHome, "hooks.json")));
  return new Promise((resolve, reject) => {
    const child = spawn(codexBin, ["exec", "--skip-git-repo-check", "-s", "danger-full-access", prompt],
      { cwd: w.project, env: w.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: out, stderr: err }));
  });
}

function audit(w) {
  const out = execFileSync(bin, ["audit", "--json", "--project", w.project], { env: w.env }).toString();
  return out.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

const result = (model, id) => model.toolResults().find((r) => r.tool_use_id === id)?.content ?? "";

test("Codex: floors never run, known-safe calls run, a secret read is refused (Codex cannot be made to ask), all audited under Codex's session and turn", async () => {
  const w = world();
  const model = await startAnthropic([
    { tool: "exec_command", input: { cmd: `touch floor-ran.txt && chmod -R 777 ${w.home}` } },
    { tool: "exec_command", input: { cmd: "wc -l README.md" } },
    { tool: "exec_command", input: { cmd: "cat .env" } },
    { text: "done" },
  ]);
  try {
    const run = await runCodex(w, model, "tidy up");
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const ids = model.toolResults().map((r) => r.tool_use_id);
    assert.equal(ids.length, 3, JSON.stringify(model.toolResults()));
    const [floorId, safeId, secretId] = ids;
    assert.equal(fs.existsSync(path.join(w.project, "floor-ran.txt")), false, "the floor ran");
    assert.match(result(model, floorId), /blocked by PreToolUse hook: perm-peer: blocked by policy/);
    assert.match(result(model, safeId), /2 README\.md/);
    assert.doesNotMatch(result(model, secretId), /SECRET-MARKER/);
    assert.match(result(model, secretId), /needs a human/);

    const recs = audit(w);
    assert.deepEqual(recs.map((r) => [r.decision, r.decidedBy]), [["reject", "floor"], ["once", "gate"], ["reject", "headless"]]);
    const session = recs[0].sessionId;
    assert.match(session, /^[0-9a-f-]{36}$/, "not Codex's session id");
    assert.match(run.stderr, new RegExp(`session id: ${session}`));
    for (const r of recs) {
      assert.equal(r.sessionId, session);
      assert.equal(r.turn, 1);
    }
  } finally {
    await model.close();
  }
});

test("Codex: a broken perm-peer (malformed policy) blocks the call", async () => {
  const w = world();
  fs.mkdirSync(path.join(w.config, "perm-peer"), { recursive: true });
  fs.writeFileSync(path.join(w.config, "perm-peer", "policy.json"), "{");
  const model = await startAnthropic([{ tool: "exec_command", input: { cmd: "touch broken-ran.txt" } }, { text: "done" }]);
  try {
    const run = await runCodex(w, model, "go");
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(fs.existsSync(path.join(w.project, "broken-ran.txt")), false, "the call ran past a broken hook");
    assert.match(result(model, model.toolResults()[0]?.tool_use_id), /cannot start/);
  } finally {
    await model.close();
  }
});
