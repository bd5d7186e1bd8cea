// Long-poll activity over the running system: the API served on a real port over the live indexer's
// projections; 200 agents (test wallet 16 and 199 other wallets) each hold a waiting request; wallet
// 16 sends a vault deposit on the devnet, and exactly its request answers, with the deposit's change,
// within a second or so of the block, while the others keep waiting. bench/long-poll.ts measures the
// same with 1,000 waiters.
import { serve, type ServerType } from "@hono/node-server";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import { ActivityWaker } from "../../usecases/activity/waker.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { connectRedis, createTestDatabase, deleteKeys, migratedDb, randomPrefix, testApp, type TestDatabase } from "../api/support.js";
import { publicClientAt, testAccount, writeAt } from "../helpers/wallets.js";
import { freePort } from "../helpers/stack.js";

const stack = inject("stack");
const agent = testAccount(16);
const admin = testAccount(10);
const publicClient = publicClientAt(stack.rpcUrl, { pollingInterval: 20 });
const WAITERS = 200;
const AMOUNT = parseUnits("125", 6);

let database: TestDatabase;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let deployments: Deployments;
let waker: ActivityWaker;
let server: ServerType;
let base: string;
const prefix = randomPrefix();

/** Sends one contract call from `from` and waits for a successful receipt. */
const send = (from: typeof agent, request: Parameters<typeof writeAt>[3]) => writeAt(stack.rpcUrl, publicClient, from, request);

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
  redis = await connectRedis();
  deployments = loadDeployments(stack.deploymentsFile);
  waker = new ActivityWaker({ reads });
  const t = testApp({ db, redis, reads, deployments, activityWaker: waker, rateLimit: { keyPrefix: `${prefix}:rl` } });
  t.clock.set(new Date());
  const port = await freePort();
  server = serve({ fetch: t.app.fetch, port, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${port}`;
  // Wallet 16 is not one of the devnet's funded test wallets: the admin mints it USDG (it has ETH).
  await send(admin, { address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "mint", args: [agent.address, parseUnits("10000", 6)] });
});

afterAll(async () => {
  waker?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), reads?.destroy(), redis?.quit()]);
  await database?.drop();
});

type Activity = { cursor: string; changes: { kind: string; txHash: string }[]; more: boolean; reorged: boolean };

async function activity(owner: string, query = "", signal?: AbortSignal): Promise<Activity> {
  const response = await fetch(`${base}/v1/agent/accounts/${owner}/activity${query}`, { signal });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: Activity }).data;
}

describe("long-poll activity on the devnet", () => {
  it(`${WAITERS} waiting agents: a deposit wakes exactly its owner's request, soon after its block`, async () => {
    const vault = deployments.vaults.find((v) => v.family === "merged" && v.agent)!;
    // The approval first, and its change (if any) consumed, so the wait is for the deposit alone.
    await send(agent, { address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "approve", args: [vault.address, AMOUNT] });
    await new Promise((r) => setTimeout(r, 1_000));

    const others = Array.from({ length: WAITERS - 1 }, (_, i) => `0x${"ab".repeat(10)}${(i + 1).toString(16).padStart(20, "0")}`);
    const owners = [agent.address as string, ...others];
    const cursors = await Promise.all(owners.map((o) => activity(o).then((a) => a.cursor)));
    const abort = new AbortController();
    const answered = new Map<string, number>();
    const waits = owners.map((o, i) =>
      activity(o, `?cursor=${cursors[i]}&waitMs=25000`, abort.signal).then(
        (a) => (answered.set(o, performance.now()), a),
        (error: Error) => (error.name === "AbortError" ? undefined : Promise.reject(error)),
      ),
    );
    const deadline = Date.now() + 20_000;
    while (waker.stats().waiters < WAITERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(waker.stats().waiters).toBe(WAITERS);
    expect(answered.size).toBe(0);

    const receipt = await send(agent, { address: vault.address, abi: mergedVaultAbi, functionName: "requestDeposit", args: [AMOUNT, agent.address, 0n] });
    const mined = performance.now();
    const mine = (await waits[0])!;
    const wakeMs = answered.get(agent.address)! - mined;
    expect(mine.changes.map((c) => c.txHash)).toContain(receipt.transactionHash);
    expect(mine.changes.find((c) => c.txHash === receipt.transactionHash)!.kind).toBe("vault.deposit.requested");
    // Ponder's 100 ms polling plus the waker's 100 ms tick; the bound leaves room for a loaded machine.
    expect(wakeMs).toBeLessThan(3_000);

    // Nobody else woke: after another second every other request still waits.
    await new Promise((r) => setTimeout(r, 1_000));
    expect([...answered.keys()]).toEqual([agent.address]);
    expect(waker.stats().waiters).toBe(WAITERS - 1);

    // Agents that hang up leave the waker at once (the request's signal aborts the wait).
    abort.abort();
    await Promise.all(waits);
    const gone = Date.now() + 5_000;
    while (waker.stats().waiters > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(waker.stats().waiters).toBe(0);
  });
});
