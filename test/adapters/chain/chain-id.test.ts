// The chain id check at start (adapters/services.ts requireChain): the API, the worker, the MCP server and the
// indexer launcher exit with one line naming the RPC (credentials redacted), the id found and 4663 when
// the RPC is on another chain; an RPC that does not answer does not stop the API (it serves reads without).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { API_NODE_FLAGS } from "../../../api/node-flags.js";
import { CHAIN_ID } from "../../../domain/chain.js";
import { readChainId, requireChain } from "../../../adapters/services.js";
import { connectRedis, createTestDatabase, deleteKeys, randomPrefix, type TestDatabase } from "../../api/support.js";
import { freePort } from "../../helpers/stack.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

type FakeRpc = { url: string; authorizations: (string | undefined)[]; close(): Promise<void> };

/** A JSON-RPC server whose eth_chainId answers `answer` (a raw result; undefined answers no result). */
async function fakeRpc(answer: unknown): Promise<FakeRpc> {
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      res.setHeader("content-type", "application/json");
      const reply = method === "eth_chainId" && answer !== undefined ? { result: answer } : { error: { code: -32601, message: "method not found" } };
      res.end(JSON.stringify({ jsonrpc: "2.0", id, ...reply }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, authorizations, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

type Run = { code: number | null; stdout: string; stderr: string };

/** `node --import tsx <file>` with `env`; resolves when it exits, or kills it after `ms`. */
function run(file: string, env: Record<string, string>, ms = 45_000, flags: readonly string[] = []): Promise<Run> & { kill(): void } {
  let kill = () => {};
  const done = new Promise<Run>((resolve) => {
    const child = spawn(process.execPath, [...flags, "--import", "tsx", join(repoRoot, file)], {
      cwd: repoRoot,
      env: { ...process.env, BASE_URL: "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    kill = () => child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return Object.assign(done, { kill: () => kill() });
}

let other: FakeRpc;
let ours: FakeRpc;
let garbled: FakeRpc;
let deadUrl: string;

beforeAll(async () => {
  [other, ours, garbled] = await Promise.all([fakeRpc("0x1"), fakeRpc(`0x${CHAIN_ID.toString(16)}`), fakeRpc(undefined)]);
  deadUrl = `http://127.0.0.1:${await freePort()}/`;
});
afterAll(async () => {
  await Promise.all([other?.close(), ours?.close(), garbled?.close()]);
});

describe("readChainId", () => {
  it("reads the id, or says why it could not", async () => {
    expect(await readChainId(ours.url)).toEqual({ chainId: CHAIN_ID });
    expect(await readChainId(other.url)).toEqual({ chainId: 1 });
    expect(await readChainId(garbled.url)).toMatchObject({ unread: expect.stringContaining("no chain id") });
    expect(await readChainId(deadUrl)).toMatchObject({ unread: "ECONNREFUSED" });
  });

  it("sends a URL's credentials as basic auth (fetch refuses them in the URL)", async () => {
    const withCredentials = other.url.replace("//", "//alice:s3cret@");
    expect(await readChainId(withCredentials)).toEqual({ chainId: 1 });
    expect(other.authorizations.at(-1)).toBe(`Basic ${Buffer.from("alice:s3cret").toString("base64")}`);
  });
});

describe("requireChain", () => {
  it("passes chain 4663, returns the reason for an RPC that does not answer, and exits on another chain", async () => {
    expect(await requireChain(ours.url)).toBeNull();
    expect(await requireChain(deadUrl)).toContain("ECONNREFUSED");
    const exit = vi.spyOn(process, "exit").mockImplementation((() => {
      throw new Error("exit");
    }) as never);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await expect(requireChain(other.url)).rejects.toThrow("exit");
      expect(exit).toHaveBeenCalledWith(1);
      expect(error.mock.calls).toEqual([[`The RPC at ${other.url} is on chain 1, not ${CHAIN_ID} — point RPC_URL at a chain ${CHAIN_ID} node`]]);
    } finally {
      exit.mockRestore();
      error.mockRestore();
    }
  });
});

describe("at start, against an RPC on chain 1", () => {
  it("the API, the worker, the MCP server and the indexer each exit 1 with one line, credentials redacted", async () => {
    const rpc = other.url.replace("//", "//alice:s3cret@");
    const redacted = other.url.replace("//", "//alice:***@");
    const env = { RPC_URL: rpc, LOG_LEVEL: "info" };
    const runs = await Promise.all([
      run("api/main.ts", env, 45_000, API_NODE_FLAGS),
      run("workers/main.ts", env),
      run("scripts/mcp.ts", env),
      run("scripts/indexer.ts", env),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trim().split("\n")).toEqual([`The RPC at ${redacted} is on chain 1, not ${CHAIN_ID} — point RPC_URL at a chain ${CHAIN_ID} node`]);
      expect(r.stdout).toBe("");
      expect(r.stderr + r.stdout).not.toContain("s3cret");
    }
  });
});

describe("at start, against an RPC that does not answer", () => {
  let database: TestDatabase;
  let dir: string;
  const prefix = randomPrefix();
  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), "chain-id-"));
  });
  afterAll(async () => {
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    // The API it started wrote its queues' keys under the prefix.
    const redis = await connectRedis();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it("the API starts anyway (it serves reads without the chain) and says it could not read the chain id", async () => {
    const deployments = join(dir, "deployments.json");
    writeFileSync(deployments, JSON.stringify({ chainId: CHAIN_ID, startBlock: 0, contracts: {}, tokens: [], vaults: [], baskets: [] }));
    const port = await freePort();
    const env = {
      RPC_URL: deadUrl,
      DATABASE_URL: database.url,
      API_SCHEMA: "agent_api",
      REDIS_PREFIX: prefix,
      DEPLOYMENTS_FILE: deployments,
      PORT: String(port),
      READ_CACHE_ENTRIES: "0",
    };
    // It listens; then this test stops it.
    const started = run("api/main.ts", env, 40_000, API_NODE_FLAGS);
    let health = 0;
    for (let i = 0; i < 120 && health === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      health = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.status,
        () => 0,
      );
    }
    started.kill();
    const r = await started;
    expect(health, r.stderr).toBeGreaterThan(0);
    expect(r.stderr).toContain(`the chain id of the RPC at ${deadUrl} could not be read (ECONNREFUSED); starting anyway`);
  }, 60_000);
});
