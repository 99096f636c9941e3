// perm-peer driven by vscode-jsonrpc over Content-Length stdio, exactly as
// a VS Code extension would host it.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createMessageConnection, StreamMessageReader, StreamMessageWriter,
  CancellationTokenSource, ResponseError,
} from "vscode-jsonrpc/node";
import { startPeer } from "./peer.mjs";

// Events records what the editor's handlers saw; waitFor resolves once an
// event matching pred has been seen (already, or later).
class Events {
  #seen = [];
  #waiters = [];
  push(v) {
    this.#seen.push(v);
    const still = [];
    for (const w of this.#waiters) {
      if (w.pred(v)) w.resolve(v);
      else still.push(w);
    }
    this.#waiters = still;
  }
  get all() { return [...this.#seen]; }
  waitFor(pred) {
    const hit = this.#seen.find(pred);
    if (hit !== undefined) return Promise.resolve(hit);
    return new Promise((resolve) => this.#waiters.push({ pred, resolve }));
  }
}

function bash(toolCallId, command) {
  return { sessionId: "s1", turn: 1, toolCall: { toolCallId, tool: "bash", kind: "execute", rawInput: { command } } };
}

test("vscode-jsonrpc: initialize, fast path, floor, escalation with a note, cancellation, shutdown", async (t) => {
  const peer = startPeer();
  t.after(peer.cleanup);
  const conn = createMessageConnection(
    new StreamMessageReader(peer.child.stdout), new StreamMessageWriter(peer.child.stdin));

  // permission/ask handler: the editor's UI. Calls listed in `held` are not
  // answered until the peer withdraws them (cancellation token).
  const asks = new Events();
  const held = new Set(["make deploy-prod"]);
  const withdrawn = new Events();
  conn.onRequest("permission/ask", (params, token) => {
    asks.push(params);
    if (held.has(params.toolCall.rawInput.command)) {
      return new Promise((resolve) => {
        token.onCancellationRequested(() => {
          withdrawn.push(params.toolCallId);
          resolve({ reply: "reject" });
        });
      });
    }
    return { reply: "once", feedback: "deploy to staging only" };
  });
  conn.listen();

  const init = await conn.sendRequest("initialize", {
    protocolVersion: 1,
    clientInfo: { name: "vscode-test", version: "1.0.0" },
    capabilities: { prompt: true },
    project: { root: peer.project },
  });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.serverInfo.name, "perm-peer");
  assert.equal(init.capabilities.acp, true);
  assert.ok(init.capabilities.modes.includes("ask"));
  await conn.sendNotification("initialized", {});

  await t.test("fast-path allow: a read inside the project", async () => {
    const r = await conn.sendRequest("session/requestPermission", {
      sessionId: "s1", turn: 1,
      toolCall: { toolCallId: "c1", tool: "read", kind: "read", rawInput: { path: "README.md" } },
    });
    assert.equal(r.reply, "once");
    assert.equal("feedback" in r, false);
    assert.equal(r._meta.decidedBy, "gate");
  });

  await t.test("floor rejection: rm -rf /", async () => {
    const r = await conn.sendRequest("session/requestPermission", bash("c2", "rm -rf /"));
    assert.equal(r.reply, "reject");
    assert.equal(r._meta.decidedBy, "floor");
    assert.equal(r._meta.risk, "critical");
    assert.match(r.feedback, /policy/);
  });

  await t.test("escalation answered by onRequest('permission/ask') with a note", async () => {
    const r = await conn.sendRequest("session/requestPermission", bash("c3", "make deploy"));
    const ask = asks.all.find((a) => a.toolCallId === "c3");
    assert.ok(ask, "permission/ask was not received");
    assert.equal(ask.sessionId, "s1");
    assert.ok(ask.options.includes("once") && ask.options.includes("reject"));
    assert.equal(r.reply, "once");
    assert.equal(r.feedback, "deploy to staging only");
    assert.equal(r._meta.decidedBy, "user");
    assert.equal(r._meta.toolResultNote, "User approved this tool call with feedback: deploy to staging only");
  });

  await t.test("cancellation through a CancellationToken: -32800, and the ask is withdrawn", async () => {
    const source = new CancellationTokenSource();
    const pending = conn.sendRequest("session/requestPermission", bash("c4", "make deploy-prod"), source.token);
    // Cancel once the peer is waiting on the user.
    await asks.waitFor((a) => a.toolCallId === "c4");
    source.cancel();
    await assert.rejects(pending, (err) => {
      assert.ok(err instanceof ResponseError, `want a ResponseError, got ${err}`);
      assert.equal(err.code, -32800);
      return true;
    });
    // The peer withdrew the question: our handler's token was cancelled.
    await withdrawn.waitFor((id) => id === "c4");
    assert.deepEqual(withdrawn.all, ["c4"]);
  });

  await t.test("shutdown then exit: exit code 0", async () => {
    const r = await conn.sendRequest("shutdown");
    assert.equal(r, null);
    await conn.sendNotification("exit");
    const { code } = await peer.exited;
    assert.equal(code, 0, `peer stderr: ${peer.stderr()}`);
    conn.dispose();
  });
});
