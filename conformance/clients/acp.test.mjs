// perm-peer as the *client* of an ACP agent: the agent side of
// @agentclientprotocol/sdk, over NDJSON on the peer's stdio, sends
// session/request_permission and session/update to it. No initialize: an
// ACP agent never sends one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";
import { startPeer } from "./peer.mjs";

const options = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
  { optionId: "reject-always", name: "Always reject", kind: "reject_always" },
];

test("ACP SDK agent: request_permission answered with the matching option", async (t) => {
  const peer = startPeer();
  t.after(peer.cleanup);
  const stream = ndJsonStream(Writable.toWeb(peer.child.stdin), Readable.toWeb(peer.child.stdout));
  const conn = agent({ name: "conformance-agent" }).connect(stream);
  const client = conn.client;
  const sessionId = "acp-session-1";

  await t.test("an allowed call selects allow_once", async () => {
    const r = await client.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "t1", title: "Read README.md", kind: "read", status: "pending",
        rawInput: { path: "README.md" }, locations: [{ path: `${peer.project}/README.md` }] },
      options,
    });
    assert.deepEqual(r.outcome, { outcome: "selected", optionId: "allow" });
    assert.equal(r._meta?.decidedBy, "gate");
  });

  await t.test("a floor call selects reject_once", async () => {
    const r = await client.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "t2", title: "Clean the disk", kind: "execute", rawInput: { command: "rm -rf /" } },
      options,
    });
    assert.deepEqual(r.outcome, { outcome: "selected", optionId: "reject" });
    assert.equal(r._meta?.decidedBy, "floor");
  });

  await t.test("a call announced by session/update tool_call is judged on the full call from its id alone", async () => {
    await client.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "tool_call", toolCallId: "t3", title: "Read README.md", kind: "read",
        status: "pending", rawInput: { path: "README.md" } },
    });
    await client.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "tool_call", toolCallId: "t4", title: "Wipe", kind: "execute",
        status: "pending", rawInput: { command: "rm -rf /" } },
    });
    const allowed = await client.request("session/request_permission", { sessionId, toolCall: { toolCallId: "t3" }, options });
    assert.deepEqual(allowed.outcome, { outcome: "selected", optionId: "allow" });
    assert.equal(allowed._meta?.decidedBy, "gate");
    const floored = await client.request("session/request_permission", { sessionId, toolCall: { toolCallId: "t4" }, options });
    assert.deepEqual(floored.outcome, { outcome: "selected", optionId: "reject" });
    assert.equal(floored._meta?.decidedBy, "floor");
    // An id nobody announced carries no call: nothing to allow, no human to ask.
    const unknown = await client.request("session/request_permission", { sessionId, toolCall: { toolCallId: "t-unknown" }, options });
    assert.deepEqual(unknown.outcome, { outcome: "selected", optionId: "reject" });
    assert.equal(unknown._meta?.decidedBy, "headless");
  });

  await t.test("a session/update tool_call_update changes the remembered call", async () => {
    await client.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "tool_call", toolCallId: "t6", title: "Read", kind: "read",
        status: "pending", rawInput: { path: "README.md" } },
    });
    await client.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "tool_call_update", toolCallId: "t6", kind: "execute", rawInput: { command: "rm -rf /" } },
    });
    const r = await client.request("session/request_permission", { sessionId, toolCall: { toolCallId: "t6" }, options });
    assert.deepEqual(r.outcome, { outcome: "selected", optionId: "reject" });
    assert.equal(r._meta?.decidedBy, "floor");
  });

  await t.test("a call that needs a human, with no prompt-capable client, selects reject_once (headless)", async () => {
    const r = await client.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "t5", title: "Deploy", kind: "execute", rawInput: { command: "make deploy" } },
      options,
    });
    assert.deepEqual(r.outcome, { outcome: "selected", optionId: "reject" });
    assert.equal(r._meta?.decidedBy, "headless");
  });

  await t.test("closing the agent's side ends the peer with exit code 0", async () => {
    conn.close();
    peer.child.stdin.end();
    const { code } = await peer.exited;
    assert.equal(code, 0, `peer stderr: ${peer.stderr()}`);
  });
});
