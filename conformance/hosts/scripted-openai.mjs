// A scripted OpenAI Responses API on 127.0.0.1 that plays the model for
// codex-acp (Codex behind ACP). It answers POST /v1/responses with the SSE
// events Codex reads: response.created, response.output_item.done,
// response.completed. A script is a list of steps, one per request whose
// last input item is the user's message or a tool's output:
// {tool: NAME, input: {...}} asks for a function call, {text: "..."} ends
// the turn. When the script is used up, every further request says "done".
import http from "node:http";

let ids = 0;

/** startOpenAI serves script on a loopback port. */
export async function startOpenAI(script = []) {
  const steps = [...script];
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (!(req.url || "").split("?")[0].endsWith("/responses")) {
        res.writeHead(404, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: req.url } }));
      }
      let msg = {};
      try { msg = JSON.parse(body); } catch { /* a side request */ }
      requests.push(msg);
      const last = (msg.input ?? []).at(-1);
      const main = last && (last.type === "function_call_output" || last.role === "user");
      const step = main ? (steps.shift() ?? { text: "done" }) : { text: "ok" };
      const id = ++ids;
      const item = step.tool
        ? { type: "function_call", name: step.tool, arguments: JSON.stringify(step.input ?? {}), call_id: `call_${id}` }
        : { type: "message", role: "assistant", id: `msg_${id}`, content: [{ type: "output_text", text: step.text ?? "" }] };
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      send("response.created", { response: { id: `resp_${id}` } });
      send("response.output_item.done", { output_index: 0, item });
      send("response.completed", { response: { id: `resp_${id}`, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } });
      res.end();
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    /** toolOutputs lists the function_call_output items Codex sent back. */
    toolOutputs: () => requests.flatMap((r) => (r.input ?? []).filter((i) => i.type === "function_call_output")),
    close: () => new Promise((ok) => { server.closeAllConnections?.(); server.close(ok); }),
  };
}
