// A scripted Anthropic Messages API on 127.0.0.1 that plays the model for
// the real hosts under test (Claude Code, claude-agent-acp). It speaks just
// enough of the API for them: POST /v1/messages (streamed as SSE or not),
// POST /v1/messages/count_tokens, and a short text for side requests. The
// same script also answers OpenAI's Responses API (POST /v1/responses,
// streamed), which Codex CLI speaks to a custom provider: a tool step is a
// function_call item there (name and arguments as the step gives them);
// and Gemini's generateContent (streamed or not, GOOGLE_GEMINI_BASE_URL),
// where it is a functionCall part.
//
// A script is a list of steps, taken one per main-conversation request (one
// that carries a `tools` array): {tool: NAME, input: {...}} asks for a tool
// call, {text: "..."} ends the turn with text. A step may be a function of
// the request body returning a step, to react to a tool result. When the
// script is used up, every further request ends its turn with "done".
import http from "node:http";

let ids = 0;

/** startAnthropic serves script on a loopback port. */
export async function startAnthropic(script = []) {
  const steps = [...script];
  const requests = []; // main-conversation request bodies, in order
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => answer(req, res, body));
  });
  function answer(req, res, body) {
    const path = (req.url || "").split("?")[0];
    let msg = {};
    try { msg = body ? JSON.parse(body) : {}; } catch { /* a side request */ }
    if (path.endsWith("/count_tokens")) return json(res, { input_tokens: 10 });
    if (path.endsWith("/v1/responses")) return responses(res, msg);
    if (path.endsWith(":countTokens")) return json(res, { totalTokens: 10 });
    if (path.endsWith(":generateContent") || path.endsWith(":streamGenerateContent")) return gemini(res, msg, path.endsWith(":streamGenerateContent"));
    if (!path.endsWith("/v1/messages")) return json(res, { type: "error", error: { type: "not_found_error", message: path } }, 404);
    let step = { text: "ok" };
    if (Array.isArray(msg.tools) && msg.tools.length > 0) {
      requests.push(msg);
      let next = steps.shift() ?? { text: "done" };
      step = typeof next === "function" ? next(msg) : next;
    }
    const content = step.tool
      ? [{ type: "tool_use", id: `toolu_${++ids}`, name: step.tool, input: step.input ?? {} }]
      : [{ type: "text", text: step.text ?? "" }];
    const stop = step.tool ? "tool_use" : "end_turn";
    if (msg.stream) return sse(res, msg.model, content, stop);
    json(res, message(msg.model, content, stop));
  }
  // responses answers a Responses API request: a main-conversation request
  // (one with tools) takes the next step.
  function responses(res, msg) {
    let step = { text: "ok" };
    if (Array.isArray(msg.tools) && msg.tools.length > 0) {
      requests.push(msg);
      const next = steps.shift() ?? { text: "done" };
      step = typeof next === "function" ? next(msg) : next;
    }
    const id = `resp_${++ids}`;
    const item = step.tool
      ? { type: "function_call", id: `fc_${ids}`, call_id: `call_${ids}`, name: step.tool, arguments: JSON.stringify(step.input ?? {}) }
      : { type: "message", id: `msg_${ids}`, role: "assistant", content: [{ type: "output_text", text: step.text ?? "", annotations: [] }] };
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send("response.created", { response: { id, object: "response", status: "in_progress", output: [] } });
    send("response.output_item.done", { output_index: 0, item });
    send("response.completed", { response: { id, object: "response", status: "completed", output: [item],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } });
    res.end();
  }
  // gemini answers generateContent: a main-conversation request (one with
  // function declarations) takes the next step.
  function gemini(res, msg, stream) {
    // a side request that wants JSON (Gemini's model router) gets the least
    // object its schema accepts
    const schema = msg.generationConfig?.responseJsonSchema ?? msg.generationConfig?.responseSchema;
    let step = { text: schema ? JSON.stringify(leastOf(schema)) : "ok" };
    const tools = (msg.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    if (tools.length > 0) {
      requests.push(msg);
      const next = steps.shift() ?? { text: "done" };
      step = typeof next === "function" ? next(msg) : next;
    }
    const part = step.tool ? { functionCall: { id: `call_${++ids}`, name: step.tool, args: step.input ?? {} } } : { text: step.text ?? "" };
    const body = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: "scripted" };
    if (!stream) return json(res, body);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify(body)}\n\n`);
  }
  // No WebSocket transport: Codex falls back to HTTP when the upgrade fails.
  server.on("upgrade", (req, socket) => socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"));
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    /** toolResults lists every tool_result block the host sent back, in order. */
    toolResults() {
      const seen = new Map();
      for (const r of requests) for (const c of r.contents ?? []) for (const p of c.parts ?? []) {
        if (p.functionResponse) seen.set(p.functionResponse.id ?? p.functionResponse.name, { tool_use_id: p.functionResponse.id, name: p.functionResponse.name, content: JSON.stringify(p.functionResponse.response) });
      }
      for (const r of requests) for (const item of r.input ?? []) {
        if (item?.type === "function_call_output") seen.set(item.call_id, { tool_use_id: item.call_id, content: item.output });
      }
      for (const r of requests) for (const m of r.messages ?? []) {
        if (!Array.isArray(m.content)) continue;
        for (const b of m.content) if (b.type === "tool_result") seen.set(b.tool_use_id, b);
      }
      return [...seen.values()];
    },
    close: () => new Promise((ok) => { server.closeAllConnections?.(); server.close(ok); }),
  };
}

/** leastOf is the smallest value a (Gemini-style) JSON schema accepts. */
function leastOf(schema) {
  switch (String(schema?.type ?? "").toUpperCase()) {
    case "OBJECT": return Object.fromEntries((schema.required ?? []).map((k) => [k, leastOf(schema.properties?.[k])]));
    case "ARRAY": return [];
    case "INTEGER": case "NUMBER": return schema.enum?.[0] ?? 1;
    case "BOOLEAN": return false;
    default: return schema?.enum?.[0] ?? "x";
  }
}

function message(model, content, stop) {
  return { id: `msg_${++ids}`, type: "message", role: "assistant", model: model ?? "claude-scripted",
    content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
}

function json(res, value, status = 200) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sse(res, model, content, stop) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const m = message(model, [], null);
  send("message_start", { message: { ...m, usage: { input_tokens: 10, output_tokens: 1 } } });
  content.forEach((block, index) => {
    if (block.type === "tool_use") {
      send("content_block_start", { index, content_block: { ...block, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    } else {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  send("message_stop", {});
  res.end();
}
