// Issue 32: the chain id is checked when the RPC first answers, not only at start. An API or worker that
// started with its RPC down learns the id from the first answer and, on any chain but 4663, stops serving
// prepares (503 UNAVAILABLE) with one clear log line.
import { createServer, type Server } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { ChainGuard } from "../../../adapters/chain/chain-guard.js";
import { WRONG_CHAIN } from "../../../domain/chain.js";
import { capturingLogger, createTestDatabase, json, migratedDb, connectRedis, testApp } from "../../api/support.js";
import { freePort } from "../../helpers/stack.js";

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** A JSON-RPC server on `port` answering eth_chainId with `chainId`. */
async function rpcOn(port: number, chainId: number): Promise<void> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const { id } = JSON.parse(body) as { id: number };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result: `0x${chainId.toString(16)}` }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
}

describe("ChainGuard", () => {
  it("an RPC down at start that then answers chain 1: prepares stop, with one log line naming both ids", async () => {
    const port = await freePort();
    const log = capturingLogger();
    const guard = new ChainGuard({ url: `http://user:secret@127.0.0.1:${port}/`, logger: log.logger, knownAtStart: false, retryMs: 50, timeoutMs: 500 });
    // Down: unknown, prepares still served (they fail at the chain on their own).
    expect(await guard.servesPrepares()).toBe(true);
    expect(guard.state).toEqual({ state: "unknown" });
    await rpcOn(port, 1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await guard.servesPrepares()).toBe(false);
    expect(guard.state).toEqual({ state: "wrong", chainId: 1 });
    const errors = log.lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(log.text()).toContain("is on chain 1, not 4663");
    expect(log.text()).not.toContain("secret");
    // Known now: never asked again, the same answer.
    expect(await guard.servesPrepares()).toBe(false);
  });

  it("an RPC that first answers 4663 keeps prepares served; the background check finds it without a request", async () => {
    const port = await freePort();
    await rpcOn(port, 4663);
    const guard = new ChainGuard({ url: `http://127.0.0.1:${port}/`, logger: capturingLogger().logger, knownAtStart: false, retryMs: 50 }).start();
    await new Promise((r) => setTimeout(r, 300));
    expect(guard.state).toEqual({ state: "right" });
    expect(await guard.servesPrepares()).toBe(true);
    guard.stop();
  });

  it("the API answers prepares 503 UNAVAILABLE on a wrong chain, and reads as before", async () => {
    const database = await createTestDatabase();
    const db = await migratedDb(database);
    const redis = await connectRedis();
    try {
      const { app } = testApp({ db, redis, chain: { servesPrepares: async () => false } });
      const answer = await app.request("/v1/agent/prepare/vault-deposit", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", vault: "0x0000000000000000000000000000000000000001", amount: "1" }),
      });
      expect(answer.status).toBe(503);
      expect(await json(answer)).toEqual({ error: WRONG_CHAIN, code: "UNAVAILABLE" });
      expect((await app.request("/health")).status).toBe(200);
    } finally {
      await db.destroy();
      await redis.quit();
      await database.drop();
    }
  });
});
