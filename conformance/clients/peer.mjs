// Shared helpers: launch the perm-peer binary named by PERM_PEER_BIN in a
// fresh project with its own HOME and XDG directories, as an editor would.
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function peerBinary() {
  const bin = process.env.PERM_PEER_BIN;
  if (!bin) {
    throw new Error("PERM_PEER_BIN is not set: point it at a built perm-peer binary (make build)");
  }
  return bin;
}

// startPeer spawns `perm-peer serve` in a temporary project holding
// README.md. The caller owns the returned child; cleanup() removes the dirs.
export function startPeer(args = []) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "perm-peer-client-")));
  const project = join(root, "project");
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(join(project, "README.md"), "hello\n");
  const child = spawn(peerBinary(), ["serve", ...args], {
    cwd: project,
    env: {
      ...process.env,
      HOME: join(root, "home"),
      XDG_CONFIG_HOME: join(root, "config"),
      XDG_STATE_HOME: join(root, "state"),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (b) => { stderr += b.toString(); });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    project,
    exited,
    stderr: () => stderr,
    cleanup: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      rmSync(root, { recursive: true, force: true });
    },
  };
}
