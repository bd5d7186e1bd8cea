// `npm run mcp` (tsx scripts/mcp.ts) spawned with the stack's environment, spoken to by hand over its
// pipes: it answers `initialize` within seconds of the spawn (it loads the app after the handshake),
// and a client that goes away never crashes it: with stdout broken, the answer to a ping fails with
// EPIPE and the server exits 0; with stdin closed, it exits 0 as well.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import { randomPrefix } from "../api/support.js";

const stack = inject("stack");
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
/** A generous bound for CI's load; the figure is printed (on an idle machine it is about two seconds). */
const READY_WITHIN_MS = 15_000;
// The servers' own API schema and Redis prefix: their start (after the handshake) migrates and counts there.
const apiSchema = `agent_api_mcp_start_${randomBytes(4).toString("hex")}`;
const prefix = randomPrefix();

afterAll(async () => {
  const admin = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop schema if exists "${apiSchema}" cascade`).catch(() => {});
  await admin.end();
});

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "start-test", version: "1.0.0" } },
};

function spawnServer(): { child: ChildProcessWithoutNullStreams; stderr: () => string; exited: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(`${repoRoot}node_modules/.bin/tsx`, ["scripts/mcp.ts"], {
    cwd: repoRoot,
    env: { ...(process.env as Record<string, string>), ...stack.env, RPC_URL: "", API_SCHEMA: apiSchema, REDIS_PREFIX: prefix, LOG_LEVEL: "info" },
  });
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => err, exited };
}

/** Sends initialize; resolves with its answer and the milliseconds since `spawnedAt`. */
function initialize(child: ChildProcessWithoutNullStreams, spawnedAt: number): Promise<{ answer: any; ms: number }> {
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.includes('"id":1'));
      if (!line) return;
      child.stdout.off("data", onData);
      resolve({ answer: JSON.parse(line), ms: performance.now() - spawnedAt });
    };
    child.stdout.on("data", onData);
    child.on("exit", (code) => reject(new Error(`exited ${code} before answering initialize`)));
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);

describe("npm run mcp: the stdio server's start and a client that goes away", () => {
  it("answers initialize within seconds; with its stdout broken (EPIPE) it exits 0", async () => {
    const spawnedAt = performance.now();
    const { child, stderr, exited } = spawnServer();
    const { answer, ms } = await within(initialize(child, spawnedAt), 60_000, "initialize");
    console.log(`stdio MCP server: initialize answered ${Math.round(ms)} ms after spawn`);
    expect(answer.result.serverInfo.name).toBe("agent-interface");
    expect(answer.result.capabilities.tools).toBeDefined();
    expect(answer.result.instructions).toContain("tool error (isError)");
    expect(ms).toBeLessThan(READY_WITHIN_MS);

    // The client goes away without a word: its end of stdout is gone, then a ping's answer has nowhere to go.
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdout.destroy();
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`);
    const exit = await within(exited, 30_000, "exit after EPIPE");
    expect(stderr()).not.toMatch(/EPIPE|Unhandled|uncaught/i);
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it("exits 0 when the client closes stdin during the start", async () => {
    const { child, stderr, exited } = spawnServer();
    await within(initialize(child, performance.now()), 60_000, "initialize");
    child.stdin.destroy();
    const exit = await within(exited, 30_000, "exit after stdin closed");
    expect(stderr()).not.toMatch(/EPIPE|Unhandled|uncaught/i);
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
