// The real Codex CLI (from npm) guarded by `perm-peer hook codex`,
// installed with `perm-peer setup codex --user`, against the scripted model
// (its Responses API) on loopback. Codex runs non-managed hooks only once
// its user trusted them; the test trusts them as Codex's /hooks screen
// does, by recording each hook's hash in config.toml.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropic } from "./scripted-anthropic.mjs";
import { audit, bin, breakPolicy, hookWorld, runHost } from "./hooked.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const codexBin = path.join(here, "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");

function world() {
  const w = hookWorld("pp-codex-", { "README.md": "one\ntwo\n", ".env": "API_KEY=SECRET-MARKER-0815\n" });
  w.codexHome = path.join(w.root, "codex");
  fs.mkdirSync(w.codexHome);
  Object.assign(w.env, { CODEX_HOME: w.codexHome, MOCK_KEY: "dummy" });
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
  return runHost(codexBin, ["exec", "--skip-git-repo-check", "-s", "danger-full-access", prompt], { cwd: w.project, env: w.env });
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
  breakPolicy(w);
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

test("Codex: a human-only git rebase runs when the user's own execpolicy allows it, and is refused when it does not", async () => {
  for (const allowed of [false, true]) {
    const w = world();
    execFileSync("git", ["-C", w.project, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one"]);
    if (allowed) {
      fs.mkdirSync(path.join(w.codexHome, "rules"));
      // the form Codex's own "always allow" appends
      fs.writeFileSync(path.join(w.codexHome, "rules", "default.rules"), 'prefix_rule(pattern=["git","rebase"], decision="allow")\n');
    }
    const model = await startAnthropic([{ tool: "exec_command", input: { cmd: "git rebase HEAD" } }, { text: "done" }]);
    try {
      const run = await runCodex(w, model, "rebase");
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const ids = model.toolResults().map((r) => r.tool_use_id);
      assert.equal(ids.length, 1, JSON.stringify(model.toolResults()));
      const recs = audit(w);
      if (allowed) {
        assert.match(result(model, ids[0]), /up to date/, "Codex ran the rebase its user allowed");
        assert.deepEqual(recs.map((r) => [r.decision, r.decidedBy]), [["once", "rule"]]);
      } else {
        assert.match(result(model, ids[0]), /needs a human/);
        assert.deepEqual(recs.map((r) => [r.decision, r.decidedBy]), [["reject", "headless"]]);
      }
    } finally {
      await model.close();
    }
  }
});
