// The real opencode (opencode-ai, `opencode acp`) behind perm-peer acp,
// offline: the model is the scripted Anthropic API on loopback
// (scripted-anthropic.mjs), the editor a ClientApp of the ACP SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { makeProject, startProxy, audit, verify, alive, descendants } from "./acp-harness.mjs";
import { startAnthropic } from "./scripted-anthropic.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const opencode = join(here, "node_modules", ".bin", "opencode");

test("opencode behind perm-peer: a safe command is allowed without the editor, an unknown one is asked and the answer obeyed", async (t) => {
  const w = makeProject();
  t.after(w.cleanup);
  const model = await startAnthropic([
    { tool: "bash", input: { command: "ls", description: "list" } },
    { tool: "bash", input: { command: "frobnicate --now", description: "frobnicate" } },
    { text: "finished" },
  ]);
  t.after(model.close);
  // opencode asks the client before every shell command
  writeFileSync(join(w.project, "opencode.json"), JSON.stringify({
    provider: { anthropic: { options: { baseURL: `${model.url}/v1`, apiKey: "sk-scripted" } } },
    model: "anthropic/claude-sonnet-4-5", permission: { bash: "ask", edit: "ask" }, autoupdate: false, share: "disabled",
  }));
  const px = startProxy(w, [opencode, "acp"], {
    env: { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" },
    handlers: {
      "session/request_permission": ({ params }) => {
        const o = params.options.find((x) => x.kind === "reject_once");
        return { outcome: { outcome: "selected", optionId: o.optionId } };
      },
    },
  });
  t.after(px.kill);
  await px.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await px.agent.request("session/new", { cwd: w.project, mcpServers: [] });
  const r = await px.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look around" }] });
  assert.equal(r.stopReason, "end_turn");

  assert.deepEqual(px.asked.map((a) => a.toolCall.rawInput?.command), ["frobnicate --now"], "only the unknown command reached the editor");
  assert.ok(px.asked[0].options.some((o) => o.kind === "reject_once"), "forwarded with opencode's own options");
  const results = model.toolResults().map((x) => JSON.stringify(x.content));
  assert.match(results[0], /README\.md/, "ls ran: perm-peer allowed it");
  // opencode ends the turn on a rejection; the call is marked failed, never run
  const frob = px.updates.map((u) => u.update).filter((u) => u.sessionUpdate === "tool_call_update" && u.rawInput?.command === "frobnicate --now");
  assert.ok(frob.some((u) => u.status === "failed"), "frobnicate failed");
  assert.ok(!frob.some((u) => u.status === "completed"), "frobnicate did not run");
  const recs = audit(w, sessionId);
  assert.deepEqual(recs.map((x) => [x.toolCall.rawInput.command, x.decision, x.decidedBy, x.turn]), [
    ["ls", "once", "gate", 1], ["frobnicate --now", "reject", "user", 1]]);
  assert.equal(verify(w), 0);

  const procs = descendants(px.child.pid);
  px.child.stdin.end();
  await px.exited;
  assert.deepEqual(procs.filter(alive), [], "no agent process is left behind");
});
