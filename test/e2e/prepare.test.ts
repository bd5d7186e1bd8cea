// POST /v1/agent/prepare/{kind} against the running stack (devnet + indexer): for each kind without an
// aggregator leg, prepare → sign and send every step from test wallet 3 → every receipt succeeds → the
// effect shows in the projections. Then the refusals (the exact codes), the stored SignRequest and its
// expiry, and the same pipeline through a real BullMQ worker and job client.
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { formatUnits, type Address, type Hex, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { marketRegistryAbi, mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import type { DeployedVault, Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { createJobClient, type JobClient } from "../../adapters/queue/request-reply.js";
import { PREPARE_QUEUE } from "../../usecases/prepare/job.js";
import { prepareProcessor } from "../../workers/processors/prepare.js";
import { DEAD_REDIS_URL, deleteKeys, randomPrefix, REDIS_URL, testApp } from "../api/support.js";
import { postChecked, until as waitUntil } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { sendStepsAt, testAccount, tokenIn, walletAt } from "../helpers/wallets.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";

const stack = inject("stack");
const account = testAccount(3);
const admin = testAccount(10);
const OTHER = testAccount(4).address;
const owner = account.address;

let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let d: Deployments;
let chain: PublicClient;
let local: ReturnType<typeof testApp>;
let queued: ReturnType<typeof testApp>;
let jobs: JobClient;
let worker: Worker;
let validator: ResponseValidator;
const bullPrefix = `${randomPrefix()}:bull`;

const walletOf = (acc: typeof account) => walletAt(stack.rpcUrl, acc);

beforeAll(async () => {
  opened = await openStackApp(stack);
  ({ db, reads, redis, d, chain, app: local, validator } = opened);
  const base = { db, redis, reads, deployments: d, client: local.deps.client };
  jobs = createJobClient({ redisUrl: REDIS_URL, prefix: bullPrefix });
  queued = testApp({ ...base, jobs });
  const q = queued.deps;
  worker = new Worker(
    PREPARE_QUEUE,
    prepareProcessor({ db, reads, deployments: d, client: q.client!, now: q.now, baseUrl: q.baseUrl!, logger: q.logger, viewsSchema: stack.viewsSchema }),
    {
      connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: bullPrefix,
    },
  );
  await worker.waitUntilReady();
});

afterAll(async () => {
  await worker?.close();
  await jobs?.close();
  if (redis) await deleteKeys(redis, bullPrefix.split(":")[0]!);
  await opened?.close();
});

const prepare = (kind: string, body: Record<string, unknown>, on = local) => postChecked(on.app, validator, `/v1/agent/prepare/${kind}`, { owner, ...body });

async function prepared(kind: string, body: Record<string, unknown>, on = local) {
  const { status, body: answer } = await prepare(kind, body, on);
  expect(status, `${kind}: ${JSON.stringify(answer).slice(0, 600)}`).toBe(200);
  return answer.data as {
    id: string;
    kind: string;
    steps: { to: Address; data: Hex; value: string }[];
    params: any;
    signUrl: string;
    expiresAt: string;
    walletSendCalls: any;
    simulation: { method: string };
  };
}

/** Signs and sends every step in order, waiting for each receipt. */
const sendAll = (result: { steps: { to: Address; data: Hex; value: string }[] }, from = account) => sendStepsAt(stack.rpcUrl, chain, from, result.steps);

const until = <T>(what: string, read: () => Promise<T | undefined | null | false>) => waitUntil(what, read, 30_000, 200);

const lower = (a: string) => a.toLowerCase() as `0x${string}`;
const tokenBy = (symbol: string) => tokenIn(d, symbol);
const vaultOf = (family: string, symbol: string): DeployedVault =>
  d.vaults.find((v) => v.family === family && v.token.toLowerCase() === tokenBy(symbol).address.toLowerCase())!;
async function price(symbol: string, factor: number): Promise<string> {
  const p = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [tokenBy(symbol).address] });
  return formatUnits((p * BigInt(Math.round(factor * 10_000))) / 10_000n, 18);
}
/** The vault's keeper: moved away, queued requests stay pending (the devnet's keeper settles them within seconds). */
async function setKeeper(vault: Address, keeper: Address) {
  const hash = await walletOf(admin).writeContract({ address: vault, abi: mergedVaultAbi, functionName: "setKeeper", args: [keeper] });
  expect((await chain.waitForTransactionReceipt({ hash })).status).toBe("success");
}
const shareBalance = (vault: Address) => chain.readContract({ address: vault, abi: testTokenAbi, functionName: "balanceOf", args: [owner] });

async function pendingDeposit(queue: Address, after: bigint) {
  return until("the deposit request", () =>
    reads
      .selectFrom("depositRequest")
      .selectAll()
      .where("queue", "=", lower(queue))
      .where("owner", "=", lower(owner))
      .where("id", ">", after)
      .where("state", "=", "pending")
      .executeTakeFirst(),
  );
}
async function lastId(table: "depositRequest" | "withdrawalRequest", queue: Address): Promise<bigint> {
  const row = await reads.selectFrom(table).select("id").where("queue", "=", lower(queue)).orderBy("id", "desc").limit(1).executeTakeFirst();
  return row?.id ?? 0n;
}

describe("vault kinds", () => {
  const merged = () => vaultOf("merged", "WBTC");

  it("vault-deposit (merged): approve + requestDeposit, settled into shares; stored and filed", async () => {
    const v = merged();
    const before = await shareBalance(v.address);
    const after = await lastId("depositRequest", v.address);
    const result = await prepared("vault-deposit", { vault: v.address, amount: "100", agentTag: "e2e.prepare" });
    expect(result.kind).toBe("vault-deposit");
    expect(result.steps).toHaveLength(2);
    expect(result.signUrl).toBe(`http://agent.test/sign/${result.id}`);
    expect(result.walletSendCalls).toMatchObject({ version: "2.0.0", chainId: "0x1237", from: owner, atomicRequired: true });
    expect(["eth_simulateV1", "eth_call+stateOverride"]).toContain(result.simulation.method);
    expect(new Date(result.expiresAt).getTime() - local.clock.now().getTime()).toBe(600_000);
    const filing = await db.selectFrom("filing").selectAll().where("sign_request_id", "=", result.id).executeTakeFirstOrThrow();
    expect(filing).toMatchObject({ owner: owner.toLowerCase(), agent_tag: "e2e.prepare", kind: "vault-deposit" });
    expect(BigInt(filing.chain_price!)).toBeGreaterThan(0n);
    await sendAll(result);
    const request = await pendingDeposit(v.address, after).catch(() => undefined);
    if (request) expect(request.assets).toBe(100_000_000n);
    await until("shares after settlement", async () => (await shareBalance(v.address)) > before);
  });

  it("vault-cancel-deposit, vault-withdraw (queue, in-kind) and vault-cancel-withdraw (merged)", async () => {
    const v = merged();
    await setKeeper(v.address, OTHER);
    try {
      const after = await lastId("depositRequest", v.address);
      await sendAll(await prepared("vault-deposit", { vault: v.address, amount: "50" }));
      const request = await pendingDeposit(v.address, after);
      const cancel = await prepared("vault-cancel-deposit", { vault: v.address, id: request.id.toString() });
      expect(cancel.kind).toBe("vault-cancel-deposit");
      await sendAll(cancel);
      await until(
        "the cancelled deposit",
        async () =>
          (await reads.selectFrom("depositRequest").select("state").where("queue", "=", lower(v.address)).where("id", "=", request.id).executeTakeFirst())
            ?.state === "cancelled",
      );

      const shares = await shareBalance(v.address);
      const third = formatUnits(shares / 3n, 12);
      const wAfter = await lastId("withdrawalRequest", v.redeemQueue!);
      const queue = await prepared("vault-withdraw", { vault: v.address, shares: third, mode: "queue" });
      expect(queue.kind).toBe("vault-withdraw");
      await sendAll(queue);
      const wr = await until("the withdrawal request", () =>
        reads
          .selectFrom("withdrawalRequest")
          .selectAll()
          .where("queue", "=", lower(v.redeemQueue!))
          .where("owner", "=", lower(owner))
          .where("id", ">", wAfter)
          .where("state", "=", "pending")
          .executeTakeFirst(),
      );
      const cancelW = await prepared("vault-cancel-withdraw", { vault: v.address, id: wr.id.toString() });
      await sendAll(cancelW);
      await until(
        "the cancelled withdrawal",
        async () =>
          (await reads.selectFrom("withdrawalRequest").select("state").where("queue", "=", lower(v.redeemQueue!)).where("id", "=", wr.id).executeTakeFirst())
            ?.state === "cancelled",
      );

      const held = await shareBalance(v.address);
      const inKind = await prepared("vault-withdraw", { vault: v.address, shares: third, mode: "in-kind" });
      expect(inKind.steps).toHaveLength(1);
      await sendAll(inKind);
      expect(await shareBalance(v.address)).toBe(held - shares / 3n);
      await until("the position in the projection", async () => {
        const p = await reads
          .selectFrom("vaultPosition")
          .select("shares")
          .where("vault", "=", lower(v.address))
          .where("owner", "=", lower(owner))
          .executeTakeFirst();
        return p?.shares === held - shares / 3n;
      });
    } finally {
      await setKeeper(v.address, d.contracts.marketMaker!);
    }
  });

  it("up vault through the worker: up-vault-deposit, then up-vault-cancel", async () => {
    const v = vaultOf("up", "LINK");
    await setKeeper(v.address, OTHER);
    try {
      const after = await lastId("depositRequest", v.depositQueue!);
      const deposit = await prepared("vault-deposit", { vault: v.address, amount: "100" }, queued);
      expect(deposit.kind).toBe("up-vault-deposit");
      expect(deposit.steps[1]!.to).toBe(v.depositQueue);
      await sendAll(deposit);
      const request = await pendingDeposit(v.depositQueue!, after);
      const cancel = await prepared("vault-cancel-deposit", { vault: v.address, id: request.id.toString() }, queued);
      expect(cancel.kind).toBe("up-vault-cancel");
      await sendAll(cancel);
      await until(
        "the cancelled up deposit",
        async () =>
          (await reads.selectFrom("depositRequest").select("state").where("queue", "=", lower(v.depositQueue!)).where("id", "=", request.id).executeTakeFirst())
            ?.state === "cancelled",
      );
    } finally {
      await setKeeper(v.address, d.contracts.marketMaker!);
    }
  });
});

describe("order and strategy kinds", () => {
  const lastOrder = async () => (await reads.selectFrom("limitOrder").select("id").orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;

  it("limit-order, then order-action cancel and claimBoth", async () => {
    const after = await lastOrder();
    const result = await prepared("limit-order", { token: "WETH", side: "buy", amount: "25", price: await price("WETH", 0.8) });
    expect(result.kind).toBe("limit-order");
    await sendAll(result);
    const order = await until("the order", () =>
      reads.selectFrom("limitOrder").select(["id", "state", "amountIn"]).where("owner", "=", lower(owner)).where("id", ">", after).executeTakeFirst(),
    );
    expect(order.amountIn).toBe(25_000_000n);
    await sendAll(await prepared("order-action", { id: order.id.toString(), action: "cancel" }));
    await until(
      "the cancelled order",
      async () => (await reads.selectFrom("limitOrder").select("state").where("id", "=", order.id).executeTakeFirst())?.state === "claimable",
    );
    const again = await prepare("order-action", { id: order.id.toString(), action: "cancel" });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("ORDER_CLOSED");
    await sendAll(await prepared("order-action", { id: order.id.toString(), action: "claimBoth" }));
    await until(
      "the closed order",
      async () => (await reads.selectFrom("limitOrder").select("state").where("id", "=", order.id).executeTakeFirst())?.state === "closed",
    );
  });

  it("ladder: one approval, then one create per order", async () => {
    const after = await lastOrder();
    const orders = [
      { amount: "0.01", price: await price("WETH", 1.5) },
      { amount: "0.01", price: await price("WETH", 1.6) },
    ];
    const result = await prepared("ladder", { token: "WETH", side: "sell", orders });
    expect(result.steps).toHaveLength(3);
    await sendAll(result);
    await until(
      "both orders",
      async () => (await reads.selectFrom("limitOrder").select("id").where("owner", "=", lower(owner)).where("id", ">", after).execute()).length === 2,
    );
  });

  it("grid open, then close", async () => {
    const after = (await reads.selectFrom("grid").select("id").orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;
    const result = await prepared("grid", {
      action: "open",
      token: "WETH",
      buyPrice: await price("WETH", 0.7),
      sellPrice: await price("WETH", 1.4),
      amount: "20",
    });
    await sendAll(result);
    const grid = await until("the grid", () =>
      reads.selectFrom("grid").select(["id", "state"]).where("owner", "=", lower(owner)).where("id", ">", after).executeTakeFirst(),
    );
    expect(grid.state).toBe("open");
    await sendAll(await prepared("grid", { action: "close", id: grid.id.toString() }));
    await until(
      "the closed grid",
      async () => (await reads.selectFrom("grid").select("state").where("id", "=", grid.id).executeTakeFirst())?.state === "closed",
    );
    expect((await prepare("grid", { action: "close", id: grid.id.toString() })).body.code).toBe("GRID_CLOSED");
  });

  it("ladder-strategy open, then close; refusals name the part", async () => {
    const after = (await reads.selectFrom("ladder").select("id").orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;
    const legs = [
      { buyPrice: await price("WETH", 0.9), sellPrice: await price("WETH", 0.99), amount: "20" },
      { buyPrice: await price("WETH", 0.85), sellPrice: await price("WETH", 0.95), amount: "10" },
    ];
    const result = await prepared("ladder-strategy", { action: "open", token: "WETH", legs });
    expect(result.kind).toBe("ladder-strategy");
    await sendAll(result);
    const ladder = await until("the ladder", () =>
      reads.selectFrom("ladder").select(["id", "state"]).where("owner", "=", lower(owner)).where("id", ">", after).executeTakeFirst(),
    );
    await sendAll(await prepared("ladder-strategy", { action: "close", id: ladder.id.toString(), mask: 3 }));
    await until(
      "the closed ladder",
      async () => (await reads.selectFrom("ladder").select("state").where("id", "=", ladder.id).executeTakeFirst())?.state === "closed",
    );

    const small = await prepare("ladder-strategy", { action: "open", token: "WETH", legs: [{ ...legs[0], amount: "1" }] });
    expect(small.status).toBe(422);
    expect(small.body).toMatchObject({ code: "FIRST_TOO_SMALL", details: { part: 1, minimum: "10000000", unit: "USDG" } });
    expect((await prepare("ladder-strategy", { action: "open", token: "SCAM", legs })).body.code).toBe("NOT_LISTED");
    expect((await prepare("ladder-strategy", { action: "open", token: "tsSPY", legs })).body.code).toBe("MARKET_NOT_OPEN");
  });
});

describe("refusals", () => {
  it("deposits into the Full, Closed and Paused vaults answer their codes with the vault's reason", async () => {
    const cases = [
      [vaultOf("merged", "SOLX"), "VAULT_FULL", "Deposit cap reached"],
      [vaultOf("stock-token", "tsNVDA"), "DEPOSITS_CLOSED", "Closed to new deposits"],
      [vaultOf("up", "GAS"), "DEPOSITS_PAUSED", "re-centred"],
    ] as const;
    for (const [v, code, reason] of cases) {
      const { status, body } = await prepare("vault-deposit", { vault: v.address, amount: "100" });
      expect([status, body.code]).toEqual([422, code]);
      expect(body.error).toContain(reason);
    }
    // The same code back through the worker.
    const viaWorker = await prepare("vault-deposit", { vault: vaultOf("merged", "SOLX").address, amount: "100" }, queued);
    expect([viaWorker.status, viaWorker.body.code]).toEqual([422, "VAULT_FULL"]);
  });

  it("a vault agents may not use, or no vault at all, is 404 NOT_AGENT_VAULT", async () => {
    for (const vault of [vaultOf("up", "ORCL").address, "0x000000000000000000000000000000000000dEaD"]) {
      const { status, body } = await prepare("vault-deposit", { vault, amount: "100" });
      expect([status, body.code]).toEqual([404, "NOT_AGENT_VAULT"]);
    }
  });

  it("a body naming another receiver is 422 RECEIVER_NOT_OWNER; the owner itself is fine", async () => {
    const vault = vaultOf("merged", "WETH").address;
    const other = await prepare("vault-deposit", { vault, amount: "20", receiver: OTHER });
    expect([other.status, other.body.code]).toEqual([422, "RECEIVER_NOT_OWNER"]);
    const nested = await prepare("limit-order", { token: "WETH", side: "buy", amount: "20", price: "1", recipient: OTHER });
    expect(nested.body.code).toBe("RECEIVER_NOT_OWNER");
    expect((await prepare("vault-deposit", { vault, amount: "20", receiver: owner })).status).toBe(200);
  });

  it("bad bodies are 400 INVALID_REQUEST; an order too small is AMOUNT_TOO_SMALL", async () => {
    expect((await prepare("vault-deposit", { vault: vaultOf("merged", "WETH").address, amount: "1", slippageBps: 900 })).status).toBe(400);
    expect((await prepare("vault-deposit", { vault: vaultOf("merged", "WETH").address, amount: "1.1234567" })).status).toBe(400);
    const small = await prepare("limit-order", { token: "WETH", side: "buy", amount: "1", price: "1" });
    expect(small.body).toMatchObject({ code: "AMOUNT_TOO_SMALL", details: { minimum: "10000000", unit: "USDG" } });
    expect((await prepare("order-action", { id: "999999999", action: "cancel" })).status).toBe(404);
  });
});

describe("the job queue", () => {
  it("a saturated queue is 429 BUSY; an unreachable Redis is 503 UNAVAILABLE", async () => {
    const vault = vaultOf("merged", "WETH").address;
    const saturated = createJobClient({ redisUrl: REDIS_URL, prefix: bullPrefix, maxWaiting: 0 });
    const dead = createJobClient({ redisUrl: DEAD_REDIS_URL, prefix: bullPrefix });
    try {
      const busy = await prepare("vault-deposit", { vault, amount: "20" }, testApp({ db, redis, reads, deployments: d, jobs: saturated }));
      expect([busy.status, busy.body.code]).toEqual([429, "BUSY"]);
      const down = await prepare("vault-deposit", { vault, amount: "20" }, testApp({ db, redis, reads, deployments: d, jobs: dead }));
      expect([down.status, down.body.code]).toEqual([503, "UNAVAILABLE"]);
    } finally {
      await Promise.allSettled([saturated.close(), dead.close()]);
    }
  });
});

describe("the stored sign request", () => {
  it("GET /v1/agent/sign-requests/{id} answers the PrepareResult until 10 minutes pass, then 404", async () => {
    const result = await prepared("vault-deposit", { vault: vaultOf("merged", "WETH").address, amount: "20" });
    const res = await local.app.request(`/v1/agent/sign-requests/${result.id}`);
    expect(res.status).toBe(200);
    const stored = ((await res.json()) as any).data;
    expect(stored).toMatchObject({ ...result, owner });
    local.clock.advance(10 * 60 * 1000);
    expect((await local.app.request(`/v1/agent/sign-requests/${result.id}`)).status).toBe(404);
    local.clock.advance(-10 * 60 * 1000);
  });
});
