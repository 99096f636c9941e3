// The real Gemini CLI (from npm) guarded by `perm-peer hook gemini`,
// installed with `perm-peer setup gemini --user`, against the scripted
// model (Gemini's generateContent, GOOGLE_GEMINI_BASE_URL) on loopback.
// `gemini -p` runs shell commands only in yolo mode, where perm-peer's
// deny is the only thing between the model and the shell.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropic } from "./scripted-anthropic.mjs";
import { audit, bin, breakPolicy, hookWorld, runHost } from "./hooked.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const geminiJS = path.join(here, "node_modules/@google/gemini-cli/bundle/gemini.js");

function world() {
  const w = hookWorld("pp-gemini-", { "README.md": "one\ntwo\n" });
  Object.assign(w.env, { GEMINI_API_KEY: "dummy", GEMINI_CLI_TRUST_WORKSPACE: "true" });
  const out = execFileSync(bin, ["setup", "gemini", "--user"], { env: w.env }).toString();
  assert.match(out, /added BeforeTool/);
  const settings = path.join(w.home, ".gemini", "settings.json");
  const s = JSON.parse(fs.readFileSync(settings, "utf8"));
  s.security = { auth: { selectedType: "gemini-api-key" } }; // no login prompt
  fs.writeFileSync(settings, JSON.stringify(s, null, 2));
  return w;
}

function runGemini(w, model, prompt) {
  return runHost(process.execPath, [geminiJS, "-p", prompt, "--approval-mode", "yolo", "--output-format", "json"],
    { cwd: w.project, env: { ...w.env, GOOGLE_GEMINI_BASE_URL: model.url } });
}

test("Gemini CLI: a floor never runs, a known-safe call runs, both audited under Gemini's session and the prompt's turn", async () => {
  const w = world();
  const model = await startAnthropic([
    { tool: "run_shell_command", input: { command: `touch floor-ran.txt && chmod -R 777 ${w.home}` } },
    { tool: "run_shell_command", input: { command: "wc -l README.md" } },
    // human-only: never "ask", which would hang `gemini -p`
    { tool: "run_shell_command", input: { command: "cat .env" } },
    { text: "done" },
  ]);
  try {
    const run = await runGemini(w, model, "tidy up");
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const results = model.toolResults();
    assert.equal(results.length, 3, JSON.stringify(results));
    assert.match(results[2].content, /perm-peer: .*ask the user/);
    assert.equal(fs.existsSync(path.join(w.project, "floor-ran.txt")), false, "the floor ran");
    assert.match(results[0].content, /blocked: perm-peer: blocked by policy/);
    assert.match(results[1].content, /2 README\.md/);
    const recs = audit(w);
    assert.deepEqual(recs.map((r) => [r.decision, r.decidedBy]), [["reject", "floor"], ["once", "gate"], ["reject", "headless"]]);
    const session = JSON.parse(run.stdout).session_id ?? recs[0].sessionId;
    for (const r of recs) {
      assert.equal(r.sessionId, session);
      assert.equal(r.turn, 1);
    }
  } finally {
    await model.close();
  }
});

test("Gemini CLI: a broken perm-peer (malformed policy) blocks the call", async () => {
  const w = world();
  breakPolicy(w);
  const model = await startAnthropic([{ tool: "run_shell_command", input: { command: "touch broken-ran.txt" } }, { text: "done" }]);
  try {
    const run = await runGemini(w, model, "go");
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(fs.existsSync(path.join(w.project, "broken-ran.txt")), false, "the call ran past a broken hook");
    assert.match(model.toolResults()[0]?.content ?? "", /cannot start/);
  } finally {
    await model.close();
  }
});

test("Gemini CLI: a human-only git rebase runs when the user's own tools.allowed or policy file names it, and is refused when neither does", async () => {
  for (const how of ["none", "settings", "policy"]) {
    const allowed = how !== "none";
    const w = world();
    execFileSync("git", ["-C", w.project, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one"]);
    if (how === "policy") {
      fs.mkdirSync(path.join(w.home, ".gemini", "policies"));
      fs.writeFileSync(path.join(w.home, ".gemini", "policies", "mine.toml"),
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git rebase"\ndecision = "allow"\npriority = 100\n');
    }
    if (how === "settings") {
      const settings = path.join(w.home, ".gemini", "settings.json");
      const s = JSON.parse(fs.readFileSync(settings, "utf8"));
      s.tools = { allowed: ["run_shell_command(git rebase)"] };
      fs.writeFileSync(settings, JSON.stringify(s, null, 2));
    }
    const model = await startAnthropic([{ tool: "run_shell_command", input: { command: "git rebase HEAD" } }, { text: "done" }]);
    try {
      const run = await runGemini(w, model, "rebase");
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const results = model.toolResults();
      assert.equal(results.length, 1, JSON.stringify(results));
      const recs = audit(w);
      assert.equal(recs.length, 1, JSON.stringify(recs));
      if (allowed) {
        assert.match(results[0].content, /up to date/, "Gemini ran the rebase its user allowed");
        assert.deepEqual([recs[0].decision, recs[0].decidedBy], ["once", "rule"]);
      } else {
        assert.match(results[0].content, /perm-peer: .*ask the user/);
        assert.deepEqual([recs[0].decision, recs[0].decidedBy], ["reject", "headless"]);
      }
    } finally {
      await model.close();
    }
  }
});
