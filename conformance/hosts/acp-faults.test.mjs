// Faults around perm-peer acp (docs/HOSTS.md, "Zed and ACP agents"): each
// ends with no allow, every decision recorded and no agent process left.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdirSync, readFileSync } from "node:fs";
import { makeProject, startProxy, scriptedAgent, audit, verify, alive, descendants, lines } from "./acp-harness.mjs";

const bash = (id, command) => ({ toolCallId: id, title: command, kind: "execute", rawInput: { command } });
const steps = (list) => [{ type: "text", text: JSON.stringify(list) }];

// open starts the proxy with the scripted agent and a session; ask is the
// editor's permission handler.
async function open(t, ask) {
  const w = makeProject();
  t.after(w.cleanup);
  const tap = join(w.root, "tap");
  mkdirSync(tap);
  const px = startProxy(w, ["node", scriptedAgent], { env: { SCRIPTED_TAP: tap }, handlers: { "session/request_permission": ask } });
  px.tapIn = () => lines([readFileSync(join(tap, "in"))]).map((l) => JSON.parse(l));
  t.after(px.kill);
  await px.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await px.agent.request("session/new", { cwd: w.project, mcpServers: [] });
  return { w, px, sessionId };
}

// pending is an editor handler that tells when it is asked and never answers.
function pending() {
  let asked;
  const wasAsked = new Promise((ok) => { asked = ok; });
  return { wasAsked, handler: () => { asked(); return new Promise(() => {}); } };
}

test("the agent crashes while its request waits for the editor: recorded as a headless reject, perm-peer exits with the agent's status", async (t) => {
  const editor = pending();
  const { w, px, sessionId } = await open(t, editor.handler);
  const turn = px.agent.request("session/prompt", { sessionId, prompt: steps([{ permission: { toolCall: bash("c1", "frobnicate") } }]) });
  turn.catch(() => {});
  await editor.wasAsked;
  const agents = descendants(px.child.pid);
  assert.equal(agents.length, 1);
  process.kill(agents[0], "SIGKILL");
  const { code } = await px.exited;
  assert.equal(code, 128 + 9);
  await assert.rejects(turn, "the editor's prompt fails: the agent is gone");
  const recs = audit(w, sessionId);
  assert.deepEqual(recs.map((r) => [r.toolCall.toolCallId, r.decision, r.decidedBy]), [["c1", "reject", "headless"]]);
  assert.equal(verify(w), 0);
  assert.deepEqual(agents.filter(alive), []);
});

test("the agent writes a non-JSON line and an ambiguous request: both dropped, never forwarded; the session goes on", async (t) => {
  const { w, px, sessionId } = await open(t, () => assert.fail("the editor is not asked"));
  const ambiguous = JSON.stringify({ jsonrpc: "2.0", id: 900, method: "fs/write_text_file",
    params: { sessionId, path: `${w.project}/x`, content: "" } }).replace(/}$/, ',"method":"_x/harmless"}');
  const r = await px.agent.request("session/prompt", { sessionId, prompt: steps([
    { raw: "this is not json" }, { raw: ambiguous },
    { permission: { toolCall: { toolCallId: "c2", kind: "read", title: "read", rawInput: { path: "README.md" } } } },
  ]) });
  assert.equal(r.stopReason, "end_turn");
  assert.deepEqual(px.said(sessionId).map((s) => s.value), ["written", "written", { outcome: "selected", optionId: "ok-1" }]);
  const got = px.received();
  assert.equal(got.some((l) => l.includes("this is not json") || l.includes('"id":900')), false);
  assert.deepEqual(audit(w, sessionId).map((x) => x.decidedBy), ["gate"]);
  px.child.stdin.end();
  assert.equal((await px.exited).code, 0);
  // Log lines go out through a queue (they never stall the relay), which
  // is flushed at exit: read them once perm-peer is gone.
  assert.match(px.stderr(), /dropped a line from the agent that is not a JSON-RPC message/);
  assert.match(px.stderr(), /appears twice/);
});

test("the agent floods updates: every one reaches the editor in order, and decisions go on", async (t) => {
  const { w, px, sessionId } = await open(t, () => assert.fail("the editor is not asked"));
  const n = 20000;
  const r = await px.agent.request("session/prompt", { sessionId, prompt: steps([
    { updates: n }, { permission: { toolCall: bash("c3", "rm -rf /") } }]) });
  assert.equal(r.stopReason, "end_turn");
  const thoughts = px.updates.filter((u) => u.update.sessionUpdate === "agent_thought_chunk").map((u) => u.update.content.text);
  assert.equal(thoughts.length, n);
  assert.ok(thoughts.every((t, i) => t === `t${i}`), "in order");
  assert.deepEqual(px.said(sessionId)[1].value, { outcome: "selected", optionId: "no-1" });
  assert.deepEqual(audit(w, sessionId).map((x) => [x.decision, x.decidedBy]), [["reject", "floor"]]);
  px.child.stdin.end();
  assert.equal((await px.exited).code, 0);
});

test("the editor vanishes mid-escalation: the agent gets cancelled, the record says headless, the agent is stopped", async (t) => {
  const editor = pending();
  const { w, px, sessionId } = await open(t, editor.handler);
  const turn = px.agent.request("session/prompt", { sessionId, prompt: steps([{ permission: { toolCall: bash("c4", "frobnicate") } }]) });
  turn.catch(() => {});
  await editor.wasAsked;
  const agents = descendants(px.child.pid);
  px.child.stdin.end(); // the editor's end of perm-peer's stdin closes
  const { code } = await px.exited;
  assert.equal(code, 0, "the scripted agent exits by itself once its stdin closes");
  const recs = audit(w, sessionId);
  assert.deepEqual(recs.map((r) => [r.toolCall.toolCallId, r.decision, r.decidedBy]), [["c4", "reject", "headless"]]);
  const answer = px.tapIn().find((m) => m.result?.outcome && m.id !== undefined && m.method === undefined);
  assert.deepEqual(answer.result.outcome, { outcome: "cancelled" }, "the agent's request is answered cancelled");
  assert.equal(verify(w), 0);
  assert.deepEqual(agents.filter(alive), []);
});

test("the agent withdraws its own forwarded request ($/cancel_request): relayed to the editor, answered cancelled, recorded", async (t) => {
  const editor = pending();
  const { w, px, sessionId } = await open(t, editor.handler);
  const turn = px.agent.request("session/prompt", { sessionId, prompt: steps([{ permission: { toolCall: bash("c5", "frobnicate") }, abortable: true }]) });
  await editor.wasAsked;
  await px.agent.notify("_scripted/abort", {});
  assert.equal((await turn).stopReason, "end_turn");
  assert.deepEqual(px.said(sessionId)[0].value, { outcome: "cancelled" });
  assert.ok(px.received().some((l) => JSON.parse(l).method === "$/cancel_request"), "the editor is told to withdraw its question");
  assert.deepEqual(audit(w, sessionId).map((r) => [r.toolCall.toolCallId, r.decision, r.decidedBy]), [["c5", "reject", "headless"]]);
  px.child.stdin.end();
  assert.equal((await px.exited).code, 0);
});

test("a tool call update too large to remember: a request naming it by id alone goes to a human", async (t) => {
  let asked = 0;
  const { w, px, sessionId } = await open(t, ({ params }) => {
    asked++;
    return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "reject_once").optionId } };
  });
  const big = { toolCallId: "c6", title: "ls", kind: "execute", status: "pending", rawInput: { command: "ls", padding: "x".repeat(300 << 10) } };
  const r = await px.agent.request("session/prompt", { sessionId, prompt: steps([{ permission: { toolCall: { toolCallId: "c6" } }, announce: big }]) });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(asked, 1, "asked, not allowed on what perm-peer could not keep");
  assert.ok(px.updates.some((u) => u.update.toolCallId === "c6" && u.update.rawInput?.padding?.length === 300 << 10), "the update itself went through whole");
  assert.deepEqual(audit(w, sessionId).map((x) => [x.decision, x.decidedBy]), [["reject", "user"]]);
  px.child.stdin.end();
  assert.equal((await px.exited).code, 0);
});
