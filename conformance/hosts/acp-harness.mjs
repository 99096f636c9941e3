// The editor side of the ACP proxy tests: launches `perm-peer acp -- AGENT`
// in a fresh project (own HOME, XDG dirs and DB) exactly as Zed launches an
// agent server, and connects a ClientApp of @agentclientprotocol/sdk to it.
// Every byte the editor sends and receives is kept, line by line, so tests
// can check what perm-peer passed through unchanged.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync, realpathSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";

const here = dirname(fileURLToPath(import.meta.url));
export const scriptedAgent = join(here, "scripted-acp-agent.mjs");

export function peerBinary() {
  const bin = process.env.PERM_PEER_BIN;
  if (!bin) throw new Error("PERM_PEER_BIN is not set: point it at a built perm-peer binary (make build)");
  return bin;
}

/** makeProject creates a temporary project with README.md, .env and src/. */
export function makeProject() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "perm-peer-acp-")));
  const project = join(root, "project");
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(join(project, "README.md"), "hello\n");
  writeFileSync(join(project, ".env"), "API_KEY=secret\n");
  for (const d of ["home", "config", "state"]) mkdirSync(join(root, d));
  return {
    root, project, db: join(root, "audit.db"),
    env: { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "config"), XDG_STATE_HOME: join(root, "state") },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** lines splits collected bytes into complete lines. */
export function lines(chunks) {
  const text = Buffer.concat(chunks).toString("utf8");
  return text.split("\n").filter((l, i, all) => i < all.length - 1 || l !== "");
}

/**
 * startProxy launches perm-peer acp -- agentArgv in w.project and returns the
 * child, its exit promise and byte taps. handlers are ClientApp request
 * handlers by method (the editor's answers).
 */
export function startProxy(w, agentArgv, { handlers = {}, env = {}, args = ["--db", w.db], cwd = w.project } = {}) {
  const child = spawn(peerBinary(), ["acp", ...args, "--", ...agentArgv], {
    cwd, env: { ...process.env, ...w.env, ...env }, stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (b) => { stderr += b.toString(); });
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const received = [];
  const sent = [];
  child.stdout.on("data", (b) => received.push(b));
  const out = new Writable({
    write(chunk, _enc, done) { sent.push(Buffer.from(chunk)); child.stdin.write(chunk, done); },
    final(done) { child.stdin.end(); done(); },
  });
  const updates = [];
  const asked = [];
  let app = client({ name: "editor" }).onNotification("session/update", ({ params }) => { updates.push(params); });
  for (const [method, handler] of Object.entries(handlers)) {
    const h = (ctx) => {
      if (method === "session/request_permission") asked.push(ctx.params);
      return handler(ctx);
    };
    // extension methods need a params parser
    app = method.startsWith("_") ? app.onRequest(method, (p) => p, h) : app.onRequest(method, h);
  }
  const conn = app.connect(ndJsonStream(Writable.toWeb(out), Readable.toWeb(child.stdout)));
  return {
    child, exited, conn, agent: conn.agent, updates, asked,
    stderr: () => stderr,
    received: () => lines(received),
    sent: () => lines(sent),
    /** said returns the scripted agent's step reports so far. */
    said: (sessionId) => updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === "agent_message_chunk")
      .map((u) => JSON.parse(u.update.content.text)),
    kill: () => { if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL"); },
  };
}

/** audit reads the proxy's audit records (perm-peer audit --json --db). */
export function audit(w, sessionId, where = ["--db", w.db]) {
  if (where[0] === "--db" && !existsSync(w.db)) return [];
  const out = execFileSync(peerBinary(), ["audit", "--json", ...where, ...(sessionId ? ["--session", sessionId] : [])],
    { cwd: w.project, env: { ...process.env, ...w.env } }).toString();
  return out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** grants lists the proxy's persistent grants (perm-peer grants list --json --db, one per line). */
export function grants(w) {
  const out = execFileSync(peerBinary(), ["grants", "list", "--json", "--db", w.db], { cwd: w.project, env: { ...process.env, ...w.env } }).toString();
  return out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** verify runs perm-peer audit verify on the proxy's DB and returns its exit status. */
export function verify(w) {
  try {
    execFileSync(peerBinary(), ["audit", "verify", "--db", w.db], { cwd: w.project, env: { ...process.env, ...w.env }, stdio: "pipe" });
    return 0;
  } catch (e) {
    return e.status;
  }
}

/** descendants lists the process ids under pid (children, theirs, ...), from ps. */
export function descendants(pid) {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="]).toString().trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number));
  const out = [];
  const walk = (p) => { for (const [c, pp] of rows) if (pp === p) { out.push(c); walk(c); } };
  walk(pid);
  return out;
}

/** alive reports whether a process id still runs. */
export function alive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

export function readJSON(path) { return JSON.parse(readFileSync(path, "utf8")); }
