// Shared by the hook hosts' tests: a git project with private HOME/XDG
// directories, a host process run to its end, and the project's audit log
// as `perm-peer audit --json` prints it.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const bin = process.env.PERM_PEER_BIN;
if (!bin) throw new Error("PERM_PEER_BIN must name the perm-peer binary (make hosts sets it)");

// Every world's folder is removed when the test process ends, passed or not.
const worlds = [];
process.on("exit", () => { for (const root of worlds) fs.rmSync(root, { recursive: true, force: true }); });

/** hookWorld makes the project (with files), and home, config and state dirs. */
export function hookWorld(prefix, files = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  worlds.push(root);
  const w = { root, home: path.join(root, "home"), project: path.join(root, "project"),
    config: path.join(root, "config"), state: path.join(root, "state") };
  for (const d of [w.home, w.project, w.config, w.state]) fs.mkdirSync(d, { recursive: true });
  execFileSync("git", ["init", "-q", w.project]);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(w.project, name), text);
  w.env = { ...process.env, HOME: w.home, XDG_CONFIG_HOME: w.config, XDG_STATE_HOME: w.state };
  return w;
}

/** breakPolicy writes a malformed user policy: perm-peer cannot start. */
export function breakPolicy(w) {
  fs.mkdirSync(path.join(w.config, "perm-peer"), { recursive: true });
  fs.writeFileSync(path.join(w.config, "perm-peer", "policy.json"), '{"rules": [');
}

/** runHost runs a host to its end (stdin closed) and collects its output. */
export function runHost(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** audit is the project's audit log, oldest first. */
export function audit(w) {
  const out = execFileSync(bin, ["audit", "--json", "--project", w.project], { env: w.env }).toString();
  return out.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}
