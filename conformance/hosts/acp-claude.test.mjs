// The real claude-agent-acp (@zed-industries/claude-agent-acp, which runs
// the Claude Code CLI) behind perm-peer acp, offline: the model is the
// scripted Anthropic API on loopback (scripted-anthropic.mjs), the editor a
// ClientApp of @agentclientprotocol/sdk.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { makeProject, startProxy, audit, verify, alive, descendants } from "./acp-harness.mjs";
import { startAnthropic } from "./scripted-anthropic.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const claudeACP = join(here, "node_modules", "@zed-industries", "claude-agent-acp", "dist", "index.js");

function claudeEnv(w, model) {
  return {
    ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "sk-scripted", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    IS_SANDBOX: "1", // the bundled CLI refuses its bypass flag as root without it
    HOME: w.env.HOME,
  };
}

test("claude-agent-acp behind perm-peer: a floor is rejected without the editor, a human-only call is asked and the answer obeyed", async (t) => {
  const w = makeProject();
  t.after(w.cleanup);
  const model = await startAnthropic([
    { tool: "Bash", input: { command: "rm -rf ~", description: "wipe home" } },
    { tool: "Bash", input: { command: "git push --force origin main", description: "force push" } },
    { text: "finished" },
  ]);
  t.after(model.close);
  const px = startProxy(w, ["node", claudeACP], {
    env: claudeEnv(w, model),
    handlers: {
      "session/request_permission": ({ params }) => {
        const o = params.options.find((x) => x.kind === "reject_once");
        return { outcome: { outcome: "selected", optionId: o.optionId } };
      },
    },
  });
  t.after(px.kill);
  await px.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  const { sessionId } = await px.agent.request("session/new", { cwd: w.project, mcpServers: [] });
  assert.match(sessionId, /\S/);
  const r = await px.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "clean up and push" }] });
  assert.equal(r.stopReason, "end_turn");

  // The editor saw the force push only, with claude-agent-acp's own options.
  assert.equal(px.asked.length, 1, `the editor was asked once, got: ${JSON.stringify(px.asked.map((a) => a.toolCall.rawInput))}`);
  assert.equal(px.asked[0].toolCall.rawInput.command, "git push --force origin main");
  assert.deepEqual(px.asked[0].options.map((o) => o.kind).sort(), ["allow_always", "allow_once", "reject_once"]);
  // Claude ran neither: both tool results say so.
  const results = model.toolResults();
  assert.equal(results.length, 2);
  for (const res of results) {
    const text = JSON.stringify(res.content);
    assert.ok(res.is_error === true || /refused|denied|reject/i.test(text), `tool result: ${text}`);
  }
  // The audit, under claude-agent-acp's session id, turn 1.
  const recs = audit(w, sessionId);
  assert.deepEqual(recs.map((x) => [x.toolCall.rawInput.command, x.decision, x.decidedBy, x.turn]), [
    ["rm -rf ~", "reject", "floor", 1], ["git push --force origin main", "reject", "user", 1]]);
  assert.equal(recs[0].toolCall.tool, "Bash", "the tool name claude-agent-acp put in _meta.claudeCode.toolName");
  assert.equal(verify(w), 0);

  // The editor goes away: claude-agent-acp does not exit on EOF, so after
  // the grace period perm-peer terminates it (and the CLI it started). The
  // editor asked for that end: perm-peer exits 0 and says how the agent was
  // stopped.
  const procs = descendants(px.child.pid);
  assert.ok(procs.length >= 1, "the agent runs under perm-peer");
  px.child.stdin.end();
  const { code } = await px.exited;
  assert.equal(code, 0);
  assert.match(px.stderr(), /the agent was stopped by SIGTERM/);
  assert.deepEqual(procs.filter(alive), [], "no agent process is left behind");
});
