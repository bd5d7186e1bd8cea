// The read cache over the running system: the API in process over the live indexer's views, with the
// projection version tracker listening to Ponder's own change notifications. Test wallet 20 (no other
// test uses it; the admin gives it ETH and USDG) reads its account and polls its activity: repeated
// reads are served from memory without a statement; a deposit indexed after the entries were filled
// is seen by the very next read once its block's commit is visible; a poll with nothing new answers the
// cursor it was given; and with the tracker cut off (its listen backend terminated; its poll blocked)
// reads bypass the cache, answer what the database holds, and the cache comes back.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import postgres from "postgres";
import { Registry } from "prom-client";
import { parseEther, parseUnits, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { jsonRpc } from "../helpers/json-rpc.js";
import { mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import { readCacheCounter } from "../../api/middleware/metrics.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import { createReadCache } from "../../usecases/read-cache.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createDb, migrateToLatest } from "../../adapters/db/connect.js";
import { ProjectionVersion } from "../../adapters/db/projection-version.js";
import { createProjectionsDb, type Projections } from "../../adapters/db/projections.js";
import { connectRedis, createTestDatabase, deleteKeys, randomPrefix, testApp, type TestDatabase } from "../api/support.js";
import { publicClientAt, sendEthAt, testAccount, walletAt, writeAt } from "../helpers/wallets.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../helpers/openapi-validate.js";
import { startStack, type StartedStack } from "../helpers/stack.js";

const stack = inject("stack");
const agent = testAccount(20);
const admin = testAccount(10);
const publicClient = publicClientAt(stack.rpcUrl, { pollingInterval: 20 });
const AMOUNT = parseUnits("75", 6);
const APP_NAME = `agent-test-rc-${process.pid}`;

let database: TestDatabase;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let direct: postgres.Sql;
let redis: Redis;
let deployments: Deployments;
let tracker: ProjectionVersion;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;
let statements = 0;
let apiSql: postgres.Sql;
const registry = new Registry();
const prefix = randomPrefix();

type ActivityData = { cursor: string; since: string; changes: { id: string; kind: string; txHash: string }[]; more: boolean; reorged: boolean };
type AccountData = {
  owner: string;
  asOf: string;
  closedSince: string;
  depositRequests: { vault: string; id: string; state: string; owner: string; receiver: string; updatedAt: string }[];
};

async function get<T>(path: string): Promise<{ data: T; text: string }> {
  const response = await t.app.request(path);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const body = JSON.parse(text) as { data: T };
  expect(validator.errors("get", path.split("?")[0]!, 200, body)).toEqual([]);
  return { data: body.data, text };
}
const account = () => get<AccountData>(`/v1/agent/accounts/${agent.address}`);
/** The app's clock runs this far ahead of the machine's (an ended entry aging out of `closedDays`). */
let clockAheadMs = 0;
const activity = (cursor?: string) => get<ActivityData>(`/v1/agent/accounts/${agent.address}/activity${cursor ? `?cursor=${cursor}` : ""}`);

async function cacheCount(route: string, result: string): Promise<number> {
  const metric = await registry.getSingleMetric("api_read_cache_total")!.get();
  return metric.values.find((v) => v.labels.route === route && v.labels.result === result)?.value ?? 0;
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends one contract call from `from` and waits for a successful receipt. */
const send = (from: typeof agent, request: Parameters<typeof writeAt>[3]) => writeAt(stack.rpcUrl, publicClient, from, request);

/**
 * True once `read` twice in a row is answered the second time without a statement. The shared devnet
 * mines a block about every second (its simulator), and a block that writes any table rightly drops
 * account answers (and activity answers when it writes activity): a pair may straddle one, so try a few.
 */
async function servedFromMemory(read: () => Promise<{ text: string }>): Promise<boolean> {
  for (let attempt = 0; attempt < 20; attempt++) {
    await read();
    const n = statements;
    await read();
    if (statements === n) return true;
  }
  return false;
}

/** Waits until the indexer's projection (read directly, not through the API) holds the row of `txHash`. */
const indexed = (txHash: string) =>
  until(
    `activity of ${txHash} indexed`,
    async () => (await direct`select 1 from ${direct(stack.viewsSchema)}.activity where tx_hash = ${txHash}`).length > 0,
    30_000,
  );

beforeAll(async () => {
  database = await createTestDatabase();
  // Every statement of the API's two pools is counted: a cache hit must send none.
  const debug = () => void statements++;
  apiSql = postgres(database.url, { max: 4, onnotice: () => {}, debug });
  db = createDb({ url: database.url, sql: apiSql, schema: "agent_api" });
  await migrateToLatest(db, "agent_api");
  const numeric = { to: 1700, from: [1700], serialize: (v: bigint | string | number) => v.toString(), parse: (v: string) => BigInt(v) };
  reads = createProjectionsDb({ sql: postgres(stack.databaseUrl, { max: 4, onnotice: () => {}, debug, types: { numeric } }), viewsSchema: stack.viewsSchema });
  direct = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
  redis = await connectRedis();
  deployments = loadDeployments(stack.deploymentsFile);
  tracker = new ProjectionVersion({ url: stack.databaseUrl, viewsSchema: stack.viewsSchema, applicationName: APP_NAME }).start();
  const readCache = createReadCache({ version: tracker, entries: 10_000, maxBytes: 16 << 20, counter: readCacheCounter(registry) });
  t = testApp({
    db,
    redis,
    reads,
    deployments,
    readCache,
    metricsRegistry: registry,
    now: () => new Date(Date.now() + clockAheadMs),
    rateLimit: { keyPrefix: `${prefix}:rl` },
  });
  validator = responseValidator(await fetchOpenApi(t.app));
  // Wallet 20 is beyond the devnet's funded accounts: the admin gives it gas and USDG.
  const adminWallet = walletAt(stack.rpcUrl, admin);
  await publicClient.waitForTransactionReceipt({ hash: await adminWallet.sendTransaction({ to: agent.address, value: parseEther("10") }) });
  await send(admin, { address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "mint", args: [agent.address, parseUnits("10000", 6)] });
  await until("tracker usable", () => tracker.usable);
});

afterAll(async () => {
  await tracker?.close();
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy().then(() => apiSql?.end()), reads?.destroy(), direct?.end(), redis?.quit()]);
  await database?.drop();
});

describe("read cache on the devnet", () => {
  it("repeated account reads and polls are answered from memory; a no-change poll answers its own cursor", async () => {
    const hits = await cacheCount("accounts", "hit");
    expect(await servedFromMemory(account)).toBe(true);
    expect(await cacheCount("accounts", "hit")).toBeGreaterThan(hits);

    const baseline = await activity();
    const poll = await activity(baseline.data.cursor);
    expect(poll.data.changes).toEqual([]);
    expect(poll.data.cursor).toBe(baseline.data.cursor); // nothing new: the same cursor
    const activityHits = await cacheCount("activity", "hit");
    expect(await servedFromMemory(() => activity(baseline.data.cursor))).toBe(true);
    expect(await cacheCount("activity", "hit")).toBeGreaterThan(activityHits);
    const repeated = await activity(baseline.data.cursor);
    expect(repeated.data).toEqual({ ...poll.data, now: expect.any(String) });
  });

  it("a deposit indexed after the entries were filled is in the very next read once its commit is visible", async () => {
    const vault = deployments.vaults.find((v) => v.family === "merged" && v.agent)!;
    const approval = await send(agent, { address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "approve", args: [vault.address, AMOUNT] });
    // The approval may or may not be a change of the feed; wait until the indexer is past its block.
    await until("approval's block indexed", async () => {
      const [row] = await direct`select latest_checkpoint from ${direct(stack.viewsSchema)}."_ponder_checkpoint"`;
      return BigInt(String(row!.latest_checkpoint).slice(26, 42)) >= approval.blockNumber;
    });
    let cursor = (await activity()).data.cursor;
    const before = await account();
    // Both answers are in memory before the deposit.
    expect((await activity(cursor)).data.cursor).toBe(cursor);
    expect(await servedFromMemory(() => activity(cursor))).toBe(true);
    expect(await servedFromMemory(account)).toBe(true);

    const receipt = await send(agent, { address: vault.address, abi: mergedVaultAbi, functionName: "requestDeposit", args: [AMOUNT, agent.address, 0n] });
    await indexed(receipt.transactionHash);
    const poll = await activity(cursor);
    expect(poll.data.changes.map((c) => c.txHash)).toContain(receipt.transactionHash);
    expect(poll.data.cursor).not.toBe(cursor);
    const after = await account();
    expect(after.data.depositRequests.length).toBe(before.data.depositRequests.length + 1);
    expect(
      after.data.depositRequests.some((d) => d.vault.toLowerCase() === vault.address.toLowerCase() && (d.state === "pending" || d.state === "settled")),
    ).toBe(true);
    cursor = poll.data.cursor;
    // Polled with the new cursor, nothing new: that same cursor again.
    expect((await activity(cursor)).data.cursor).toBe(cursor);
  });

  it("an account is kept per owner: a deposit naming another receiver reaches the receiver's cached answer, which drops the entry once it ends and ages out", async () => {
    const receiver = testAccount(21).address;
    const receiverAccount = () => get<AccountData>(`/v1/agent/accounts/${receiver}?closedDays=1`);
    const vault = deployments.vaults.find((v) => v.family === "merged" && v.agent)!;
    expect(await servedFromMemory(receiverAccount)).toBe(true);
    const before = (await receiverAccount()).data.depositRequests.length;

    await send(agent, { address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "approve", args: [vault.address, AMOUNT] });
    const requested = await send(agent, { address: vault.address, abi: mergedVaultAbi, functionName: "requestDeposit", args: [AMOUNT, receiver, 0n] });
    await indexed(requested.transactionHash);
    // The receiver's own feed has the request (the payer's row alone would not tell the cache whose answer changed).
    const [row] =
      await direct`select count(*)::int as n from ${direct(stack.viewsSchema)}.activity where tx_hash = ${requested.transactionHash} and owner = ${receiver.toLowerCase()}`;
    expect(row!.n).toBe(1);
    const seen = (await receiverAccount()).data.depositRequests;
    expect(seen.length).toBe(before + 1);
    const entry = seen.find((d) => d.owner.toLowerCase() === agent.address.toLowerCase())!;
    expect(entry.receiver).toBe(receiver);

    // End it (cancelled, unless the vault settled it first), and wait for the receiver's answer to show it ended.
    if (entry.state === "pending") {
      try {
        await send(agent, { address: vault.address, abi: mergedVaultAbi, functionName: "cancelDeposit", args: [BigInt(entry.id)] });
      } catch {
        // settled meanwhile: ended all the same
      }
    }
    let ended: AccountData["depositRequests"][number] | undefined;
    await until("the entry ended in the receiver's answer", async () => {
      ended = (await receiverAccount()).data.depositRequests.find((d) => d.id === entry.id && d.state !== "pending");
      return ended !== undefined;
    });
    // An ended entry is listed for closedDays (1) after its last update: just before that, from memory;
    // just after, a read of the database without it (and closedSince moves with the clock either way).
    const updatedAtMs = Date.parse(ended!.updatedAt);
    clockAheadMs = updatedAtMs + 86_400_000 - 2_000 - Date.now();
    try {
      expect(await servedFromMemory(receiverAccount)).toBe(true);
      const last = await receiverAccount();
      expect(last.data.depositRequests.some((d) => d.id === entry.id)).toBe(true);
      expect(Date.parse(last.data.closedSince)).toBeLessThanOrEqual(updatedAtMs);
      clockAheadMs = updatedAtMs + 86_400_000 + 1_000 - Date.now();
      const n = statements;
      const later = await receiverAccount();
      expect(statements).toBeGreaterThan(n);
      expect(later.data.depositRequests.some((d) => d.id === entry.id)).toBe(false);
      expect(Date.parse(later.data.closedSince)).toBeGreaterThan(updatedAtMs);
    } finally {
      clockAheadMs = 0;
    }
  });

  it("with its listen backend terminated, the tracker vouches for nothing read before, and comes back", async () => {
    const cursor = (await activity()).data.cursor;
    expect(await servedFromMemory(() => activity(cursor))).toBe(true);
    const listens = tracker.stats().listens;
    const killed = await direct`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${`${APP_NAME}-listen`}`;
    expect(killed.length).toBe(1);
    await until("listening again", () => tracker.stats().listens >= listens + 2);
    const hits = await cacheCount("activity", "hit");
    const n = statements;
    await activity(cursor); // read again from the database: the re-LISTEN bumped every version
    expect(statements).toBeGreaterThan(n);
    expect(await cacheCount("activity", "hit")).toBe(hits);
    await until("usable", () => tracker.usable);
    expect(await servedFromMemory(() => activity(cursor))).toBe(true);
  });

  it("with its poll blocked (no heartbeat), reads bypass the cache and answer the database; then it recovers", async () => {
    const cursor = (await activity()).data.cursor;
    expect(await servedFromMemory(() => activity(cursor))).toBe(true);
    expect(await servedFromMemory(account)).toBe(true);
    // Hold the checkpoint table's lock: the tracker's poll (and its heartbeat) waits behind it, and so
    // does the indexer's next block (the projections stand still meanwhile).
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const holding = direct.begin(async (tx) => {
      await tx`lock table ${tx(stack.schema)}."_ponder_checkpoint" in access exclusive mode`;
      await released;
    });
    try {
      await until("tracker unusable", () => !tracker.usable, 5_000);
      const bypasses = await cacheCount("activity", "bypass");
      const accountBypasses = await cacheCount("accounts", "bypass");
      const n = statements;
      const poll = await activity(cursor);
      const acct = await account();
      expect(statements).toBeGreaterThan(n);
      expect(await cacheCount("activity", "bypass")).toBe(bypasses + 1);
      expect(await cacheCount("accounts", "bypass")).toBe(accountBypasses + 1);
      // What the database answers: an app without a cache says the same (nothing commits meanwhile).
      const plain = testApp({ db, redis, reads, deployments, now: () => new Date(), rateLimit: { keyPrefix: `${prefix}:plain` } });
      const truth = async (path: string) => JSON.parse(await (await plain.app.request(path)).text()).data;
      expect(poll.data).toEqual({ ...(await truth(`/v1/agent/accounts/${agent.address}/activity?cursor=${cursor}`)), now: expect.any(String) });
      expect({ ...acct.data, asOf: "", closedSince: "" }).toEqual({ ...(await truth(`/v1/agent/accounts/${agent.address}`)), asOf: "", closedSince: "" });
    } finally {
      release();
      await holding;
    }
    await until("usable again", () => tracker.usable, 10_000);
    expect(await servedFromMemory(() => activity(cursor))).toBe(true);
  });
});

describe("read cache through a reorg (a still devnet of its own)", () => {
  let own: StartedStack;
  let ownReads: Kysely<Projections>;
  let ownDirect: postgres.Sql;
  let ownTracker: ProjectionVersion;
  let app: ReturnType<typeof testApp>;
  let ownDeployments: Deployments;

  beforeAll(async () => {
    own = await startStack({ historyDays: 1, simIntervalMs: 3_600_000 });
    const numeric = { to: 1700, from: [1700], serialize: (v: bigint | string | number) => v.toString(), parse: (v: string) => BigInt(v) };
    ownReads = createProjectionsDb({
      sql: postgres(own.databaseUrl, { max: 4, onnotice: () => {}, debug: () => void statements++, types: { numeric } }),
      viewsSchema: own.viewsSchema,
    });
    ownDirect = postgres(own.databaseUrl, { max: 2, onnotice: () => {} });
    ownDeployments = loadDeployments(own.deploymentsFile);
    ownTracker = new ProjectionVersion({ url: own.databaseUrl, viewsSchema: own.viewsSchema, applicationName: `${APP_NAME}-reorg` }).start();
    const readCache = createReadCache({ version: ownTracker, entries: 1_000, maxBytes: 1 << 20 });
    app = testApp({ db, redis, reads: ownReads, deployments: ownDeployments, readCache, now: () => new Date(), rateLimit: { keyPrefix: `${prefix}:reorg` } });
    await until("tracker usable", () => ownTracker.usable);
  }, 300_000);

  afterAll(async () => {
    await ownTracker?.close();
    await Promise.allSettled([ownReads?.destroy(), ownDirect?.end()]);
    await own?.stop();
  }, 60_000);

  it("a poll whose cached answer a reorg made wrong answers reorged: true at once after the new branch is indexed", async () => {
    const client = publicClientAt(own.rpcUrl, { pollingInterval: 20 });
    const rpc = <T>(method: string, params: unknown[] = []) => jsonRpc<T>(own.rpcUrl, method, params);
    const write = async (from: typeof agent, request: Parameters<typeof writeAt>[3]) => (await writeAt(own.rpcUrl, client, from, request)).transactionHash;
    const vault = ownDeployments.vaults.find((v) => v.family === "merged" && v.agent)!.address;
    await sendEthAt(own.rpcUrl, client, agent.address, parseEther("10"));
    await write(admin, {
      address: ownDeployments.contracts.usdg!,
      abi: testTokenAbi,
      functionName: "mint",
      args: [agent.address, parseUnits("1000", 6)],
    });
    await write(agent, { address: ownDeployments.contracts.usdg!, abi: testTokenAbi, functionName: "approve", args: [vault, parseUnits("1000", 6)] });
    const deposit = (usdg: string) =>
      write(agent, { address: vault, abi: mergedVaultAbi, functionName: "requestDeposit", args: [parseUnits(usdg, 6), agent.address, 0n] });
    const held = async (txHash: string) => (await ownDirect`select 1 from ${ownDirect(own.viewsSchema)}.activity where tx_hash = ${txHash}`).length > 0;
    const poll = async (cursor?: string) => {
      const response = await app.app.request(`/v1/agent/accounts/${agent.address}/activity${cursor ? `?cursor=${cursor}` : ""}`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: ActivityData & { after: string } }).data;
    };

    const baseline = await poll();
    const snapshot = await rpc<Hex>("evm_snapshot");
    const onA = await deposit("20");
    await rpc("hardhat_mine", ["0x2"]);
    await until("branch A indexed", () => held(onA), 30_000);
    const given = await poll(baseline.cursor);
    expect(given.changes.map((c) => c.txHash)).toContain(onA);
    // Up to date: the same cursor, answered from memory on the next poll (the chain is still).
    expect((await poll(given.cursor)).cursor).toBe(given.cursor);
    const n = statements;
    expect((await poll(given.cursor)).changes).toEqual([]);
    expect(statements).toBe(n);

    // Branch B from the same parent, taller.
    await rpc("evm_revert", [snapshot]);
    const onB = await deposit("30");
    await rpc("hardhat_mine", ["0x5"]);
    await until("branch B indexed, A gone", async () => (await held(onB)) && !(await held(onA)), 60_000);
    const after = await poll(given.cursor);
    expect(after.reorged).toBe(true);
    expect(BigInt(after.after)).toBeLessThan(BigInt(given.changes.find((c) => c.txHash === onA)!.id));
    expect(after.changes.map((c) => c.txHash)).toContain(onB);
  }, 180_000);
});
