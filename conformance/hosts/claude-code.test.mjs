// The real Claude Code CLI (from npm) guarded by `perm-peer hook
// claude-code`, installed with `perm-peer setup claude-code`, against the
// scripted model: what runs, what does not, and what the audit says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropic } from "./scripted-anthropic.mjs";
import { audit, bin, breakPolicy, hookWorld, runHost } from "./hooked.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const claudeBin = path.join(here, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");

/** world makes the project and installs the hooks. */
function world() {
  const w = hookWorld("pp-claude-", { "README.md": "readme line one\nline two\n", ".env": "API_KEY=sk-live-SECRET-MARKER-4711\n" });
  const out = execFileSync(bin, ["setup", "claude-code", "--project", w.project], { env: w.env }).toString();
  assert.match(out, /added PreToolUse/);
  return w;
}

/** runClaude runs one headless prompt and returns the stream-json events. */
async function runClaude(w, model, prompt) {
  const env = { ...w.env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" };
  delete env.CLAUDECODE;
  const run = await runHost(claudeBin, ["-p", prompt, "--output-format", "stream-json", "--verbose"], { cwd: w.project, env });
  run.events = run.stdout.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
  return run;
}

/** resultText is the text of the tool_result Claude sent for a tool_use id. */
function resultText(model, id) {
  const r = model.toolResults().find((b) => b.tool_use_id === id);
  if (!r) return undefined;
  return typeof r.content === "string" ? r.content : (r.content ?? []).map((c) => c.text ?? "").join("\n");
}

test("Claude Code: floors never run, known-safe calls run unasked, human-only calls wait for a human, all audited under Claude's session and turn", async () => {
  const w = world();
  const policy = path.join(w.config, "perm-peer", "policy.json");
  const model = await startAnthropic([
    // 1: a floor (a write to perm-peer's own policy), with a file write before it
    { tool: "Bash", input: { command: `touch floor-ran.txt && echo '{}' > ${policy}`, description: "floor" } },
    // 2: known-safe
    { tool: "Bash", input: { command: "wc -l README.md", description: "count" } },
    // 3: human-only (a secret read); -p has no human
    { tool: "Bash", input: { command: "cat .env", description: "secret" } },
    // 4: a known-safe Read
    { tool: "Read", input: { file_path: path.join(w.project, "README.md") } },
    { text: "all done" },
  ]);
  try {
    const run = await runClaude(w, model, "please tidy up");
    assert.equal(run.code, 0, run.stderr);
    const init = run.events.find((e) => e.type === "system" && e.subtype === "init");
    const result = run.events.find((e) => e.type === "result");
    assert.ok(init?.session_id, "no init event");
    const session = init.session_id;
    const ids = model.toolResults().map((r) => r.tool_use_id);
    assert.equal(ids.length, 4, `tool results: ${JSON.stringify(model.toolResults())}`);
    const [floorId, safeId, secretId, readId] = ids;

    // The floor did not run: no file, and Claude was told why.
    assert.equal(fs.existsSync(path.join(w.project, "floor-ran.txt")), false, "the floor ran");
    assert.match(resultText(model, floorId), /perm-peer: blocked by policy/);
    // Known-safe calls ran without a prompt.
    assert.match(resultText(model, safeId), /2 README\.md/);
    assert.match(resultText(model, readId), /readme line one/);
    // The human-only call did not run: nobody could approve it.
    assert.doesNotMatch(resultText(model, secretId), /SECRET-MARKER/);
    const denied = (result.permission_denials ?? []).map((d) => d.tool_use_id);
    assert.ok(denied.includes(floorId) && denied.includes(secretId), `permission_denials ${JSON.stringify(result.permission_denials)}`);
    assert.ok(!denied.includes(safeId) && !denied.includes(readId));

    // Every decided call is audited under Claude's session id, in the prompt's turn.
    const recs = audit(w);
    const byCall = new Map(recs.map((r) => [r.toolCall?.toolCallId, r]));
    assert.equal(byCall.get(floorId)?.decision, "reject");
    assert.equal(byCall.get(floorId)?.decidedBy, "floor");
    assert.equal(byCall.get(safeId)?.decision, "once");
    assert.equal(byCall.get(readId)?.decision, "once");
    assert.ok(!recs.some((r) => r.toolCall?.toolCallId === secretId && r.decision !== "reject"),
      "the secret read has an approval on record");
    for (const r of recs) {
      assert.equal(r.sessionId, session);
      assert.equal(r.turn, 1);
      // `claude -p`: no person saw any call
      assert.ok(r.source !== "user" && r.decidedBy !== "user", `a record names the user: ${JSON.stringify(r)}`);
    }
  } finally {
    await model.close();
  }
});

test("Claude Code: a broken perm-peer (malformed policy) blocks the call instead of letting it through", async () => {
  const w = world();
  breakPolicy(w);
  const model = await startAnthropic([
    { tool: "Bash", input: { command: "touch broken-ran.txt", description: "write" } },
    { tool: "Bash", input: { command: "wc -l README.md", description: "count" } },
    { text: "done" },
  ]);
  try {
    const run = await runClaude(w, model, "go");
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fs.existsSync(path.join(w.project, "broken-ran.txt")), false, "the call ran past a broken hook");
    const [writeId, safeId] = model.toolResults().map((r) => r.tool_use_id);
    assert.match(resultText(model, writeId), /cannot start/);
    // even a known-safe call is blocked: perm-peer cannot vouch for anything
    assert.match(resultText(model, safeId), /cannot start/);
    assert.doesNotMatch(resultText(model, safeId), /README\.md\n?$/m);
  } finally {
    await model.close();
  }
});
