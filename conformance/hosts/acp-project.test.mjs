// Without --project, perm-peer acp guards the project of the first
// session's cwd: that project's policy and its own default DB.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeProject, startProxy, scriptedAgent, audit } from "./acp-harness.mjs";

test("the project is the cwd of session/new: its policy decides, its default DB records", async (t) => {
  const w = makeProject();
  t.after(w.cleanup);
  mkdirSync(join(w.project, ".perm-peer"));
  writeFileSync(join(w.project, ".perm-peer", "policy.json"), JSON.stringify({ deny: ["Bash(frobnicate *)"] }));
  // launched elsewhere (Zed's working directory is not the project), no --db
  const px = startProxy(w, ["node", scriptedAgent], { args: [], cwd: w.root,
    handlers: { "session/request_permission": () => assert.fail("the project's deny rule decides, not the editor") } });
  t.after(px.kill);
  await px.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await px.agent.request("session/new", { cwd: w.project, mcpServers: [] });
  await px.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: JSON.stringify([
    { permission: { toolCall: { toolCallId: "c1", kind: "execute", title: "f", rawInput: { command: "frobnicate --all" } } } }]) }] });
  assert.deepEqual(px.said(sessionId)[0].value, { outcome: "selected", optionId: "no-1" });
  px.child.stdin.end();
  assert.equal((await px.exited).code, 0);
  const recs = audit(w, sessionId, ["--project", w.project]);
  assert.deepEqual(recs.map((r) => [r.decision, r.decidedBy, r.turn]), [["reject", "rule", 1]]);
});
