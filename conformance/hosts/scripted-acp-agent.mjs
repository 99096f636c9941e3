// A scripted ACP agent on stdio (the agent side of @agentclientprotocol/sdk)
// for the proxy tests. Each prompt's text is a JSON list of steps, run in
// order; each step's outcome is sent back as an agent_message_chunk whose
// text is JSON {"step": i, "ok": ..., "value" | "error": ...}:
//   {"permission": {toolCall, options?}, "announce": update?}  session/update tool_call (announce), then
//                                                   session/request_permission; value = the outcome;
//                                                   with "abortable": true, a _scripted/abort notification
//                                                   from the client withdraws it ($/cancel_request)
//   {"read": PATH} / {"write": PATH, "content": S}  fs/read_text_file / fs/write_text_file through the client
//   {"terminal": CMD, "args": [...]}                terminal/create
//   {"updates": N}                                  N session/update chunks (a flood)
//   {"ext": METHOD, "params": P}                    an extension request to the client
//   {"raw": TEXT}                                   TEXT written as is to stdout (a non-JSON line)
//   {"crash": CODE}                                 exit at once with CODE
// A session/cancel makes the prompt end with stopReason "cancelled".
// With SCRIPTED_TAP=DIR the agent keeps every byte it reads in DIR/in and
// every byte it writes in DIR/out.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";

const defaultOptions = [
  { optionId: "ok-1", name: "Allow", kind: "allow_once" },
  { optionId: "ok-all", name: "Always allow", kind: "allow_always" },
  { optionId: "no-1", name: "Reject", kind: "reject_once" },
  { optionId: "no-all", name: "Always reject", kind: "reject_always" },
];

let sessions = 0;
const cancelled = new Set();
let aborter = null; // withdraws the pending abortable permission request

const app = agent({ name: "scripted-acp-agent" })
  .onRequest("initialize", () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: false, _meta: { scripted: { version: 1 } } },
    agentInfo: { name: "scripted-acp-agent", version: "1.0.0" },
    authMethods: [],
  }))
  .onRequest("session/new", () => ({ sessionId: `scripted-${++sessions}`, _meta: { scripted: true } }))
  .onRequest("_scripted/echo", (p) => p, ({ params }) => ({ echoed: params }))
  .onNotification("session/cancel", ({ params }) => { cancelled.add(params.sessionId); })
  .onNotification("_scripted/abort", (p) => p, () => { aborter?.abort(); })
  .onRequest("session/prompt", async ({ params, client }) => {
    const { sessionId } = params;
    cancelled.delete(sessionId);
    const steps = JSON.parse(params.prompt.find((b) => b.type === "text").text);
    const say = (value) => client.notify("session/update", {
      sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(value) } },
    });
    for (const [i, step] of steps.entries()) {
      if (cancelled.has(sessionId)) return { stopReason: "cancelled" };
      try {
        const value = await run(step, sessionId, client);
        await say({ step: i, ok: true, value });
      } catch (e) {
        await say({ step: i, ok: false, error: { code: e.code, message: e.message } });
      }
    }
    return { stopReason: cancelled.has(sessionId) ? "cancelled" : "end_turn" };
  });

async function run(step, sessionId, client) {
  if (step.permission) {
    const { toolCall, options = defaultOptions } = step.permission;
    if (step.announce) {
      await client.notify("session/update", { sessionId, update: { sessionUpdate: "tool_call", ...step.announce } });
    }
    const signal = step.abortable ? (aborter = new AbortController()).signal : undefined;
    const r = await client.request("session/request_permission", { sessionId, toolCall, options }, { cancellationSignal: signal });
    return r.outcome;
  }
  if (step.read) return (await client.request("fs/read_text_file", { sessionId, path: step.read })).content;
  if (step.write) return await client.request("fs/write_text_file", { sessionId, path: step.write, content: step.content ?? "" });
  if (step.terminal) return await client.request("terminal/create", { sessionId, command: step.terminal, args: step.args ?? [] });
  if (step.updates) {
    for (let n = 0; n < step.updates; n++) {
      await client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: `t${n}` } } });
    }
    return step.updates;
  }
  if (step.ext) return await client.request(step.ext, step.params ?? {});
  if (step.raw !== undefined) {
    await new Promise((ok) => out.write(step.raw + "\n", ok));
    return "written";
  }
  if (step.crash !== undefined) process.exit(step.crash);
  throw new Error("unknown step " + JSON.stringify(step));
}

const tap = process.env.SCRIPTED_TAP;
const out = new Writable({
  write(chunk, _enc, done) {
    if (tap) appendFileSync(join(tap, "out"), chunk);
    process.stdout.write(chunk, done);
  },
});
if (tap) process.stdin.on("data", (b) => appendFileSync(join(tap, "in"), b));
app.connect(ndJsonStream(Writable.toWeb(out), Readable.toWeb(process.stdin)));
