// The embedded default (issue 22): `npm start` with DATABASE_URL and REDIS_URL unset on a host where
// nothing answers at their default addresses (127.0.0.1:5432 and :6379). The host is a network namespace
// of this test's own (a loopback with nothing on it; this machine's Postgres and Redis are not there), so
// the defaults are really closed. The stack must start an embedded Postgres and the machine's
// redis-server, say so in one line each, become ready, answer reads, log no warning up to ready, and
// leave nothing running once stopped.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";
import { waitFor } from "../helpers/stack.js";

const isRoot = process.getuid?.() === 0; // network namespaces need root
const ns = `agent-embedded-${randomBytes(3).toString("hex")}`;
const lines: string[] = [];
let dir: string;
let start: ChildProcess | undefined;

const inNs = (...command: string[]) => execFileSync("ip", ["netns", "exec", ns, ...command], { encoding: "utf8", timeout: 10_000 });

beforeAll(async () => {
  if (!isRoot) return;
  dir = mkdtempSync(join(tmpdir(), "agent-embedded-"));
  chmodSync(dir, 0o755); // the embedded Postgres runs as the postgres user, under this folder
  execFileSync("ip", ["netns", "add", ns]);
  inNs("ip", "link", "set", "lo", "up");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEVNET_HISTORY_DAYS: "2",
    DEPLOYMENTS_FILE: join(dir, "devnet", "deployments.json"),
    EMBEDDED_DIR: join(dir, "embedded"),
    npm_config_update_notifier: "false",
  };
  for (const name of ["DATABASE_URL", "REDIS_URL", "RPC_URL", "BASE_URL", "PORT"]) delete env[name];
  start = spawn("ip", ["netns", "exec", ns, "npm", "start"], { cwd: repoRoot, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [start.stdout!, start.stderr!]) stream.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  await waitFor("npm start ready", () => lines.some((l) => l.includes("ready: the API at")), 300_000, lines);
}, 330_000);

afterAll(async () => {
  if (!isRoot) return;
  if (start?.pid && start.exitCode === null && start.signalCode === null) {
    const exited = new Promise((resolve) => start!.once("exit", resolve));
    process.kill(-start.pid, "SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  }
  const left = execFileSync("ip", ["netns", "pids", ns], { encoding: "utf8" }).trim();
  if (left) for (const pid of left.split("\n")) process.kill(Number(pid), "SIGKILL");
  execFileSync("ip", ["netns", "del", ns]);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!isRoot)("npm start where nothing answers at the default addresses", () => {
  it("starts an embedded Postgres and the machine's redis-server, each said in one line", () => {
    const said = lines.filter((l) => l.startsWith("start  |"));
    expect(said.filter((l) => l.includes("started an embedded Postgres"))).toHaveLength(1);
    expect(said.filter((l) => /Redis: .*started/.test(l))).toHaveLength(1);
  });

  it("becomes ready on it and answers reads", () => {
    const ready = JSON.parse(inNs("curl", "-s", "http://127.0.0.1:8080/ready")) as { data?: { status?: string } };
    expect(ready.data?.status).toBe("ready");
    const vaults = JSON.parse(inNs("curl", "-s", "http://127.0.0.1:8080/v1/agent/vaults")) as { data: unknown[] };
    expect(vaults.data.length).toBeGreaterThan(0);
    // The index is in the embedded Postgres: its own server version, 18.
    expect(inNs("psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "agent", "-Atc", "show server_version").trim()).toMatch(/^18\./);
  });

  it("logs no warning up to ready", () => {
    const upToReady = lines.slice(
      0,
      lines.findIndex((l) => l.includes("ready: the API at")),
    );
    const warnings = upToReady.filter((l) => /"level":"(warn|error|fatal)"|\bWARN\b|Warning/i.test(l));
    expect(warnings).toEqual([]);
  });

  it("stops everything it started on Ctrl-C", async () => {
    // A terminal's Ctrl-C: SIGINT to the foreground group (`ip` and npm end with it; the supervisor then stops the rest).
    process.kill(-start!.pid!, "SIGINT");
    // 240 s: alone the stack stops in about 6 s, but on a loaded 2-core machine (the other test stream
    // running) it took over 30 s and once over 90 s, with no child needing its SIGKILL: the wait was after
    // them, in the embedded Postgres's or Redis's stop. A process that does not stop still fails below
    // ("did not stop") or here.
    const left = () => execFileSync("ip", ["netns", "pids", ns], { encoding: "utf8" }).trim();
    await waitFor("every process of the namespace gone", () => left() === "", 240_000, lines).catch((error: Error) => {
      // Which processes stayed, so that a slow stop says where it waits.
      const pids = left().split(/\s+/).filter(Boolean).join(",");
      const ps = pids ? execFileSync("ps", ["-o", "pid,ppid,stat,etime,args", "-p", pids], { encoding: "utf8" }) : "";
      throw new Error(`${error.message}\nstill running:\n${ps}`);
    });
    const said = lines.filter((l) => l.startsWith("start  |")).join("\n");
    expect(said).toContain("stopping");
    expect(said).not.toContain("did not stop");
  }, 250_000);
});
