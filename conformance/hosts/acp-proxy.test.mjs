// perm-peer acp between an editor and an agent, both played by
// @agentclientprotocol/sdk (a ClientApp as Zed, scripted-acp-agent.mjs as
// the agent), the real binary in the middle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { makeProject, startProxy, scriptedAgent, audit, grants, verify, lines } from "./acp-harness.mjs";

const editorOptions = (kind) => ({ params }) => {
  const o = params.options.find((x) => x.kind === kind);
  return { outcome: { outcome: "selected", optionId: o.optionId } };
};

// prompt runs one scripted prompt and returns the agent's step reports.
async function prompt(px, sessionId, steps) {
  const before = px.said(sessionId).length;
  const r = await px.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: JSON.stringify(steps) }] });
  return { stopReason: r.stopReason, steps: px.said(sessionId).slice(before) };
}

const isAnswerTo = (line, ids) => { const m = JSON.parse(line); return m.method === undefined && ids.has(JSON.stringify(m.id)); };

const bash = (id, command) => ({ toolCallId: id, title: command, kind: "execute", rawInput: { command } });

test("the proxy relays an SDK editor and agent, decides what it can and asks the editor the rest", async (t) => {
  const w = makeProject();
  t.after(w.cleanup);
  let answer = editorOptions("allow_once");
  const editorReads = [];
  const terminals = [];
  const tap = join(w.root, "tap");
  mkdirSync(tap);
  const px = startProxy(w, ["node", scriptedAgent], {
    env: { SCRIPTED_TAP: tap },
    handlers: {
      "session/request_permission": (ctx) => answer(ctx),
      "fs/read_text_file": ({ params }) => { editorReads.push(params.path); return { content: readFileSync(params.path, "utf8") }; },
      "fs/write_text_file": ({ params }) => { writeFileSync(params.path, params.content); return {}; },
      "terminal/create": ({ params }) => { terminals.push(params); return { terminalId: `term-${terminals.length}` }; },
      "_scripted/ping": ({ params }) => ({ pong: params }),
    },
  });
  t.after(px.kill);

  const init = await px.agent.request("initialize", { protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { zed: { x: 1 } } },
    clientInfo: { name: "zed-test", version: "0" } });
  assert.equal(init.agentInfo.name, "scripted-acp-agent");
  assert.deepEqual(init.agentCapabilities._meta, { scripted: { version: 1 } }, "_meta passes through");
  const session = await px.agent.request("session/new", { cwd: w.project, mcpServers: [] });
  const sid = session.sessionId;
  assert.equal(sid, "scripted-1");
  assert.deepEqual(session._meta, { scripted: true });
  const echo = await px.agent.request("_scripted/echo", { a: [1, 2], _meta: { k: "v" } });
  assert.deepEqual(echo, { echoed: { a: [1, 2], _meta: { k: "v" } } }, "an unknown method and its answer pass through");

  await t.test("turn 1: a safe read and a floor are decided without the editor; an unknown command is forwarded with the agent's own options", async () => {
    const r = await prompt(px, sid, [
      { permission: { toolCall: { toolCallId: "c1", title: "Read README.md", kind: "read", rawInput: { path: "README.md" } } } },
      { permission: { toolCall: bash("c2", "rm -rf /") } },
      { permission: { toolCall: { toolCallId: "c3" } }, announce: { ...bash("c3", "frobnicate --now"), status: "pending", _meta: { claudeCode: { toolName: "Bash" } } } },
      { ext: "_scripted/ping", params: { n: 7 } },
      { updates: 5 },
    ]);
    assert.equal(r.stopReason, "end_turn");
    assert.deepEqual(r.steps.map((s) => s.value), [
      { outcome: "selected", optionId: "ok-1" },
      { outcome: "selected", optionId: "no-1" },
      { outcome: "selected", optionId: "ok-1" },
      { pong: { n: 7 } },
      5,
    ]);
    assert.equal(px.asked.length, 1, "only the unknown command reached the editor");
    assert.equal(px.asked[0].toolCall.toolCallId, "c3");
    assert.deepEqual(px.asked[0].options.map((o) => o.optionId), ["ok-1", "ok-all", "no-1", "no-all"], "forwarded with the agent's options");
    const recs = audit(w, sid);
    assert.deepEqual(recs.map((x) => [x.toolCall.toolCallId, x.decision, x.decidedBy, x.turn]), [
      ["c1", "once", "gate", 1], ["c2", "reject", "floor", 1], ["c3", "once", "user", 1]]);
    assert.equal(recs[2].toolCall.tool, "Bash", "the tool name from _meta.claudeCode.toolName");
    assert.equal(recs[2].toolCall.rawInput.command, "frobnicate --now", "decided on the announced call, not the bare id");
  });

  await t.test("turn 2: an editor allow_always becomes perm-peer's grant and the agent gets allow_once; a reject is relayed", async () => {
    answer = editorOptions("allow_always");
    const r = await prompt(px, sid, [
      { permission: { toolCall: bash("c4", "make build") } },
      { permission: { toolCall: bash("c5", "make build") } },
    ]);
    assert.deepEqual(r.steps.map((s) => s.value), [
      { outcome: "selected", optionId: "ok-1" }, { outcome: "selected", optionId: "ok-1" }]);
    assert.equal(px.asked.length, 2, "the second make build was decided by perm-peer's grant");
    answer = editorOptions("reject_once");
    const r2 = await prompt(px, sid, [{ permission: { toolCall: bash("c6", "frobnicate --later") } }]);
    assert.deepEqual(r2.steps[0].value, { outcome: "selected", optionId: "no-1" });
    const recs = audit(w, sid).slice(3);
    assert.deepEqual(recs.map((x) => [x.toolCall.toolCallId, x.decision, x.decidedBy, x.source, x.turn]), [
      ["c4", "always", "user", "user", 2], ["c5", "once", "session", "auto", 2], ["c6", "reject", "user", "user", 3]]);
    assert.equal(recs[0].grant, "Bash(make build *)");
    assert.deepEqual(grants(w).map((g) => g.pattern), ["Bash(make build *)"], "a persistent grant of perm-peer's own");
  });

  await t.test("turn 4: editor-side effects go through the gate", async () => {
    answer = editorOptions("allow_once");
    const target = join(w.project, "src", "new.txt");
    const r = await prompt(px, sid, [
      { read: join(w.project, "README.md") },
      { read: join(w.project, ".env") },
      { write: target, content: "unapproved" },
      { permission: { toolCall: { toolCallId: "c7", title: "Write src/new.txt", kind: "edit", rawInput: { file_path: target, content: "approved" } } } },
      { write: target, content: "approved" },
      { write: join(w.project, ".perm-peer", "policy.json"), content: "{}" },
      { terminal: "rm", args: ["-rf", "/"] },
      { terminal: "ls", args: ["-la"] },
    ]);
    const [safe, secret, unapproved, approval, approved, policy, floor, ls] = r.steps;
    assert.equal(safe.value, "hello\n");
    assert.equal(secret.ok, false);
    assert.equal(secret.error.code, -32010);
    assert.deepEqual(editorReads, [join(w.project, "README.md")], "the editor never saw the read of .env");
    assert.equal(unapproved.ok, false, "a write nobody approved is refused");
    assert.deepEqual(approval.value, { outcome: "selected", optionId: "ok-1" });
    assert.equal(approved.ok, true, "the write the human approved in the tool call goes through");
    assert.equal(readFileSync(target, "utf8"), "approved");
    assert.equal(policy.ok, false);
    assert.equal(existsSync(join(w.project, ".perm-peer", "policy.json")), false);
    assert.equal(floor.ok, false);
    assert.equal(ls.ok, true);
    assert.deepEqual(terminals.map((x) => [x.command, x.args]), [["ls", ["-la"]]]);
    const recs = audit(w, sid).filter((x) => x.turn === 4);
    assert.deepEqual(recs.map((x) => [x.toolCall.tool ?? x.toolCall.kind, x.decision, x.decidedBy]), [
      ["read", "reject", "headless"], ["write", "reject", "headless"], ["edit", "once", "user"], ["write", "once", "user"],
      ["write", "reject", "floor"], ["bash", "reject", "floor"], ["bash", "once", "gate"]]);
    assert.equal(recs[0].toolCall.rawInput.path, join(w.project, ".env"));
  });

  await t.test("turn 5: session/cancel answers a forwarded request cancelled and drops the editor's late answer", async () => {
    let release;
    const late = new Promise((ok) => { release = ok; });
    let askedNow;
    const wasAsked = new Promise((ok) => { askedNow = ok; });
    answer = async (ctx) => { askedNow(); await late; return editorOptions("allow_once")(ctx); };
    const turn = prompt(px, sid, [{ permission: { toolCall: bash("c8", "frobnicate --slow") } }]);
    await wasAsked;
    await px.agent.notify("session/cancel", { sessionId: sid });
    const r = await turn;
    release();
    assert.equal(r.stopReason, "cancelled");
    assert.deepEqual(r.steps[0].value, { outcome: "cancelled" });
    const rec = audit(w, sid).find((x) => x.toolCall.toolCallId === "c8");
    assert.equal(rec.decision, "reject");
    assert.equal(rec.decidedBy, "headless");
    assert.equal(rec.turn, 5);
    // the next turn still works, and the late answer reached nobody
    answer = editorOptions("allow_once");
    const next = await prompt(px, sid, [{ permission: { toolCall: bash("c9", "ls") } }]);
    assert.deepEqual(next.steps[0].value, { outcome: "selected", optionId: "ok-1" });
  });

  await t.test("turn 7: a Gemini-shaped request (no rawInput, no tool name) is decided on its diff's path", async () => {
    const policy = join(w.project, ".perm-peer", "policy.json");
    const hook = join(w.project, ".git", "hooks", "pre-commit");
    const asked = px.asked.length;
    const r = await prompt(px, sid, [
      { permission: { toolCall: { toolCallId: "g1", status: "pending", title: "Edit policy.json", kind: "edit",
        content: [{ type: "diff", path: policy, oldText: null, newText: "{}" }] },
        options: [{ optionId: "proceed_once", name: "Allow", kind: "allow_once" }, { optionId: "cancel", name: "Cancel", kind: "reject_once" }] } },
      { permission: { toolCall: { toolCallId: "g2", status: "pending", title: "Edit pre-commit", kind: "edit",
        content: [{ type: "diff", path: hook, oldText: "", newText: "curl x | sh" }] },
        options: [{ optionId: "proceed_once", name: "Allow", kind: "allow_once" }, { optionId: "cancel", name: "Cancel", kind: "reject_once" }] } },
    ]);
    assert.deepEqual(r.steps.map((s) => s.value), [{ outcome: "selected", optionId: "cancel" }, { outcome: "selected", optionId: "proceed_once" }]);
    assert.equal(px.asked.length, asked + 1, "the floor was decided here, the git hook (human-only) asked");
    assert.equal(px.asked.at(-1).toolCall.toolCallId, "g2");
    const recs = audit(w, sid).filter((x) => x.turn === 7);
    assert.deepEqual(recs.map((x) => [x.toolCall.toolCallId, x.decision, x.decidedBy]), [["g1", "reject", "floor"], ["g2", "once", "user"]]);
    assert.deepEqual(recs[0].toolCall.locations, [{ path: policy }]);
  });

  await t.test("transparency: every line passed through is byte for byte what its sender wrote, in order", async () => {
    const agentOut = lines([readFileSync(join(tap, "out"))]);
    const agentIn = lines([readFileSync(join(tap, "in"))]);
    const editorIn = px.received();
    const editorOut = px.sent();
    // agent → editor: the editor got the agent's lines, unchanged and in
    // order, but for the id of a permission request it was asked (perm-peer's
    // own, so that an answer can never reach another request that reuses the
    // agent's id); the ones missing are the requests perm-peer decided itself
    const decided = new Set(["session/request_permission", "fs/read_text_file", "fs/write_text_file", "terminal/create"]);
    const asAgentWrote = (editorLine, agentLine) => {
      const e = JSON.parse(editorLine);
      if (e.method !== "session/request_permission" || typeof e.id !== "string" || !e.id.startsWith("perm-peer-")) return editorLine;
      return editorLine.replace(`"id":${JSON.stringify(e.id)}`, `"id":${JSON.stringify(JSON.parse(agentLine).id)}`);
    };
    const kept = [];
    for (const l of agentOut) {
      if (kept.length < editorIn.length && asAgentWrote(editorIn[kept.length], l) === l) kept.push(l);
      else assert.ok(decided.has(JSON.parse(l).method), `a line the editor did not get is one perm-peer decided: ${l}`);
    }
    assert.equal(kept.length, editorIn.length, "the editor got nothing the agent did not write");
    const forwardedIds = new Set(editorIn.map((l) => JSON.parse(l)).filter((m) => m.method === "session/request_permission").map((m) => JSON.stringify(m.id)));
    assert.equal(forwardedIds.size, px.asked.length);
    // editor → agent: likewise, minus the editor's answers to forwarded
    // requests (perm-peer answers the agent after auditing them); the
    // extra lines the agent got are perm-peer's answers to its requests
    const keptIn = [];
    for (const l of agentIn) {
      if (editorOut.filter((e) => !isAnswerTo(e, forwardedIds))[keptIn.length] === l) keptIn.push(l);
      else assert.ok(JSON.parse(l).id !== undefined && JSON.parse(l).method === undefined, `an extra line is an answer from perm-peer: ${l}`);
    }
    assert.equal(keptIn.length, editorOut.filter((e) => !isAnswerTo(e, forwardedIds)).length);
    assert.ok(agentOut.some((l) => l.includes('"_meta":{"claudeCode"')), "a _meta-bearing update went through");
    assert.equal(verify(w), 0, "the audit chain verifies");
  });

  px.child.stdin.end();
  const { code } = await px.exited;
  assert.equal(code, 0, "the agent exits 0 when its stdin closes, and so does perm-peer");
});
