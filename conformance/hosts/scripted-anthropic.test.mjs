// The scripted model itself: what the hosts' tests rely on it to say.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startAnthropic } from "./scripted-anthropic.mjs";

test("a tool step streams a tool_use block, then the script ends turns with text", async () => {
  const m = await startAnthropic([{ tool: "Bash", input: { command: "ls" } }]);
  try {
    const post = (body) => fetch(`${m.url}/v1/messages?beta=true`, { method: "POST", body: JSON.stringify(body) });
    const sse = await (await post({ stream: true, tools: [{ name: "Bash" }], messages: [] })).text();
    const events = sse.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
    assert.deepEqual(events.map((e) => e.type), ["message_start", "content_block_start", "content_block_delta",
      "content_block_stop", "message_delta", "message_stop"]);
    assert.equal(events[1].content_block.name, "Bash");
    assert.deepEqual(JSON.parse(events[2].delta.partial_json), { command: "ls" });
    assert.equal(events[4].delta.stop_reason, "tool_use");
    const done = await (await post({ tools: [{ name: "Bash" }], messages: [{ role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "denied" }] }] })).json();
    assert.equal(done.stop_reason, "end_turn");
    assert.deepEqual(m.toolResults().map((r) => r.content), ["denied"]);
    const side = await (await post({ messages: [] })).json();
    assert.equal(side.content[0].type, "text");
    assert.equal(m.requests.length, 2, "side requests are not main-conversation steps");
    const tokens = await (await fetch(`${m.url}/v1/messages/count_tokens`, { method: "POST", body: "{}" })).json();
    assert.equal(tokens.input_tokens, 10);
  } finally {
    await m.close();
  }
});
