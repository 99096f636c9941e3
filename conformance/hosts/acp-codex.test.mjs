// The real codex-acp (@zed-industries/codex-acp, Codex behind ACP) behind
// perm-peer acp, offline: the model is the scripted Responses API on
// loopback (scripted-openai.mjs), the editor a ClientApp of the ACP SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { makeProject, startProxy, audit, verify, alive, descendants } from "./acp-harness.mjs";
import { startOpenAI } from "./scripted-openai.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const codexACP = join(here, "node_modules", ".bin", "codex-acp");

test("codex-acp behind perm-peer: a floor is rejected without the editor, an unknown command is asked and the answer obeyed", async (t) => {
  const w = makeProject();
  t.after(w.cleanup);
  const model = await startOpenAI([
    { tool: "exec_command", input: { cmd: "rm -rf ~" } },
    { tool: "exec_command", input: { cmd: "frobnicate --now" } },
  ]);
  t.after(model.close);
  const codexHome = join(w.root, "codex");
  mkdirSync(codexHome);
  writeFileSync(join(codexHome, "config.toml"), [
    `model = "test-model"`, `model_provider = "mock"`, `approval_policy = "untrusted"`,
    `[model_providers.mock]`, `name = "mock"`, `base_url = "${model.url}/v1"`, `wire_api = "responses"`, `env_key = "MOCK_KEY"`, "",
  ].join("\n"));
  const px = startProxy(w, [codexACP], {
    env: { CODEX_HOME: codexHome, MOCK_KEY: "scripted", RUST_LOG: "error" },
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

  // Codex turns a rejected command into the end of the turn ("cancelled").
  const floor = await px.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "clean up" }] });
  assert.equal(floor.stopReason, "cancelled");
  assert.equal(px.asked.length, 0, "perm-peer rejected the floor without the editor");

  const asked = await px.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "now frobnicate" }] });
  assert.equal(asked.stopReason, "cancelled", "the editor's reject ended Codex's turn");
  assert.equal(px.asked.length, 1);
  assert.equal(px.asked[0].toolCall.title, "frobnicate --now");
  assert.ok(px.asked[0].options.some((o) => o.kind === "reject_once"), "forwarded with codex-acp's own options");
  // Codex ran neither command: the floored call comes back to the model as aborted
  assert.deepEqual(model.toolOutputs().map((o) => o.output.startsWith("aborted")), [true]);

  const recs = audit(w, sessionId);
  assert.deepEqual(recs.map((x) => [x.toolCall.rawInput.command.at(-1), x.decision, x.decidedBy, x.turn]), [
    ["rm -rf ~", "reject", "floor", 1], ["frobnicate --now", "reject", "user", 2]]);
  assert.equal(verify(w), 0);

  const procs = descendants(px.child.pid);
  px.child.stdin.end();
  await px.exited;
  assert.deepEqual(procs.filter(alive), [], "no agent process is left behind");
});
