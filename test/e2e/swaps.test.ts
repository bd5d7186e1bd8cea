// Swaps on the running stack (devnet + indexer), test wallet 1: GET /v1/agent/swap/quote, then
// POST /v1/agent/prepare/swap signed and sent with viem (the owner receives at least minimumOut, the
// router keeps exactly 0.1% of the output), every 422/409/503 code of both routes provoked by a real
// case, and the aggregator route budget: a BullMQ limiter set low turns a burst of quotes into 429 BUSY,
// never a 5xx. Every answer is validated against the served OpenAPI document.
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { decodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { swapRouterAbi } from "../../abis/index.js";
import { directAggregator } from "../../adapters/chain/aggregator-direct.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { createJobClient, type JobClient } from "../../adapters/queue/request-reply.js";
import { AGGREGATOR_QUEUE, queuedAggregator } from "../../usecases/prepare/aggregator-queue.js";
import { PREPARE_QUEUE } from "../../usecases/prepare/job.js";
import { aggregatorProcessor, aggregatorWorkerOptions } from "../../workers/processors/aggregator.js";
import { prepareProcessor } from "../../workers/processors/prepare.js";
import { deleteKeys, randomPrefix, REDIS_URL, testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { expectCode, postChecked, type Answer } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { balanceAt, sendStepsAt, testAccount, tokenIn, walletAt } from "../helpers/wallets.js";

const stack = inject("stack");
const account = testAccount(1);
const admin = testAccount(10);
const owner = account.address;
/** The budget of the test's aggregator worker: 2 calls a second. */
const BUDGET = 2;

let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let d: Deployments;
let chain: PublicClient;
let local: ReturnType<typeof testApp>;
let queued: ReturnType<typeof testApp>;
let jobs: JobClient;
let workers: Worker[] = [];
let validator: ResponseValidator;
const bullPrefix = `${randomPrefix()}:bull`;

const walletOf = (acc: typeof account) => walletAt(stack.rpcUrl, acc);
const tokenBy = (symbol: string) => tokenIn(d, symbol).address;
const balanceOf = (token: Address, who: Address) => balanceAt(chain, token, who);

beforeAll(async () => {
  opened = await openStackApp(stack);
  ({ db, reads, redis, d, chain, app: local, validator } = opened);
  const client = local.deps.client!;
  const base = { db, redis, reads, deployments: d, client };
  jobs = createJobClient({ redisUrl: REDIS_URL, prefix: bullPrefix });
  queued = testApp({ ...base, jobs });
  const connection = () => new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const aggregator = directAggregator(client, d)!;
  workers = [
    new Worker(AGGREGATOR_QUEUE, aggregatorProcessor(aggregator), { connection: connection(), prefix: bullPrefix, ...aggregatorWorkerOptions(BUDGET) }),
    new Worker(
      PREPARE_QUEUE,
      prepareProcessor({
        db,
        reads,
        viewsSchema: stack.viewsSchema,
        deployments: d,
        client,
        now: queued.deps.now,
        baseUrl: queued.deps.baseUrl!,
        logger: queued.deps.logger,
        aggregator: queuedAggregator(jobs, aggregator.address, 5000),
      }),
      { connection: connection(), prefix: bullPrefix },
    ),
  ];
  await Promise.all(workers.map((w) => w.waitUntilReady()));
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await jobs?.close();
  if (redis) await deleteKeys(redis, bullPrefix.split(":")[0]!);
  await opened?.close();
});

async function quote(query: Record<string, string>, on = local): Promise<Answer> {
  const res = await on.app.request(`/v1/agent/swap/quote?${new URLSearchParams(query)}`);
  const body = await res.json();
  expect(validator.errors("get", "/v1/agent/swap/quote", res.status, body), `quote ${res.status} against the OpenAPI document`).toEqual([]);
  return { status: res.status, body };
}

const prepare = (kind: string, body: Record<string, unknown>, on = local) => postChecked(on.app, validator, `/v1/agent/prepare/${kind}`, { owner, ...body });

const sendAll = (result: { steps: { to: Address; data: Hex; value: string }[] }) => sendStepsAt(stack.rpcUrl, chain, account, result.steps);

async function asAdmin(address: Address, functionName: "setPaused" | "setAggregator", args: readonly [boolean] | readonly [Address]) {
  const hash = await walletOf(admin).writeContract({ address, abi: swapRouterAbi, functionName, args } as never);
  expect((await chain.waitForTransactionReceipt({ hash })).status).toBe("success");
}

describe("swap quote", () => {
  it("USDG to WETH: the spec's fields, expectedOut after the 0.1% fee, minimumOut at slippageBps; nothing stored", async () => {
    const before = await db.selectFrom("sign_request").select(db.fn.countAll().as("n")).executeTakeFirstOrThrow();
    const { status, body } = await quote({ tokenIn: "USDG", tokenOut: "WETH", amount: "250.5", slippageBps: "50" });
    expect(status, JSON.stringify(body)).toBe(200);
    const q = body.data;
    expect(q.tokenIn).toEqual({ address: d.contracts.usdg, symbol: "USDG", decimals: 6, listed: true });
    expect(q.tokenOut).toMatchObject({ address: tokenBy("WETH"), symbol: "WETH", decimals: 18, listed: true });
    expect(q).toMatchObject({ amountIn: "250.5", amountInUnits: "250500000", slippageBps: 50, feeBps: 10, route: ["USDG", "WETH"] });
    const gross = await directAggregator(chain, d)!.quote({ tokenIn: d.contracts.usdg!, tokenOut: tokenBy("WETH"), amountIn: 250_500_000n });
    // The live market moves between the two quotes: the fee's 0.1% shows against the aggregator's own quote.
    const afterFee = gross.amountOut - (gross.amountOut * 10n) / 10_000n;
    expect(Math.abs(Number(q.expectedOutUnits) / Number(afterFee) - 1)).toBeLessThan(0.0005);
    const expected = BigInt(q.expectedOutUnits);
    expect(BigInt(q.minimumOutUnits)).toBe((expected * 9950n) / 10_000n);
    expect(typeof q.priceImpactBps).toBe("number");
    const after = await db.selectFrom("sign_request").select(db.fn.countAll().as("n")).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it("an unlisted token by address: symbol null, listed false, a warning; by symbol it is unknown", async () => {
    const scam = tokenBy("SCAM");
    const { status, body } = await quote({ tokenIn: "USDG", tokenOut: scam, amount: "10" });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.tokenOut).toEqual({ address: scam, symbol: null, decimals: 18, listed: false });
    expect(body.data.warnings.join(" ")).toContain(scam);
    expectCode(await quote({ tokenIn: "USDG", tokenOut: "SCAM", amount: "10" }), 422, "UNKNOWN_TOKEN");
  });

  it("refusals: UNKNOWN_TOKEN, NOT_A_TOKEN, SAME_TOKEN, NATIVE_ETH_IN, SWAP_NO_ROUTE, INVALID_REQUEST", async () => {
    expectCode(await quote({ tokenIn: "NOPE", tokenOut: "WETH", amount: "1" }), 422, "UNKNOWN_TOKEN");
    // A contract that is no ERC-20 (the swap router), and a wallet.
    expectCode(await quote({ tokenIn: "USDG", tokenOut: d.contracts.swapRouter!, amount: "1" }), 422, "NOT_A_TOKEN");
    expectCode(await quote({ tokenIn: "USDG", tokenOut: owner, amount: "1" }), 422, "NOT_A_TOKEN");
    expectCode(await quote({ tokenIn: "WETH", tokenOut: tokenBy("WETH"), amount: "1" }), 422, "SAME_TOKEN");
    expectCode(await quote({ tokenIn: "WETH", tokenOut: "ETH", amount: "1" }), 422, "SAME_TOKEN");
    expectCode(await quote({ tokenIn: "ETH", tokenOut: "USDG", amount: "1" }), 422, "NATIVE_ETH_IN");
    // A basket token is an ERC-20 with no market: the aggregator has no route.
    expectCode(await quote({ tokenIn: "USDG", tokenOut: d.baskets[0]!.address, amount: "1" }), 422, "SWAP_NO_ROUTE");
    expectCode(await quote({ tokenIn: "USDG", tokenOut: "WETH", amount: "1", slippageBps: "0" }), 400, "INVALID_REQUEST");
    expectCode(await quote({ tokenIn: "USDG", tokenOut: "WETH", amount: "1.0000001" }), 400, "INVALID_REQUEST");
  });
});

describe("prepare swap", () => {
  it("quote, prepare, sign and send: the owner receives at least minimumOut and the router keeps exactly 0.1% of the output", async () => {
    const [usdg, link, router] = [d.contracts.usdg!, tokenBy("LINK"), d.contracts.swapRouter!];
    const q = await quote({ tokenIn: "USDG", tokenOut: "LINK", amount: "300" });
    expect(q.status).toBe(200);
    const { status, body } = await prepare("swap", { tokenIn: "USDG", tokenOut: "LINK", amount: "300", agentTag: "e2e.swaps" });
    expect(status, JSON.stringify(body)).toBe(200);
    const result = body.data;
    expect(result.kind).toBe("swap");
    expect(result.steps).toHaveLength(2);
    // Exact approval of the amount to the router; the swap's recipient is the owner.
    const approve = decodeFunctionData({ abi: erc20Abi, data: result.steps[0].data });
    expect(result.steps[0].to).toBe(usdg);
    expect(approve.args).toEqual([router, 300_000_000n]);
    const swap = decodeFunctionData({ abi: swapRouterAbi, data: result.steps[1].data });
    const req = (swap.args as any)[0];
    expect(req).toMatchObject({ tokenIn: usdg, tokenOut: link, amountIn: 300_000_000n, recipient: owner, aggregator: d.contracts.aggregator });
    const minimumOut = BigInt(result.params.quote.minimumOutUnits);
    expect(req.minAmountOut).toBe(minimumOut);
    // The prepared minimum is the quote's (the market barely moved between them).
    expect(Math.abs(Number(minimumOut) / Number(q.body.data.minimumOutUnits) - 1)).toBeLessThan(0.01);

    const [ownerBefore, routerBefore] = await Promise.all([balanceOf(link, owner), balanceOf(link, router)]);
    const receipts = await sendAll(result);
    const [ownerAfter, routerAfter] = await Promise.all([balanceOf(link, owner), balanceOf(link, router)]);
    const received = ownerAfter - ownerBefore;
    const kept = routerAfter - routerBefore;
    expect(received).toBeGreaterThanOrEqual(minimumOut);
    const [event] = parseEventLogs({ abi: swapRouterAbi, eventName: "Swapped", logs: receipts[1]!.logs });
    expect(event!.args).toMatchObject({ recipient: owner, amountOut: received, fee: kept });
    expect(kept).toBe(((received + kept) * 10n) / 10_000n);
    expect(kept).toBeGreaterThan(0n);
  });

  it("USDG to native ETH: the router unwraps WETH and pays ETH; the owner's ETH grows by at least minimumOut plus gas", async () => {
    const { status, body } = await prepare("swap", { tokenIn: "USDG", tokenOut: "ETH", amount: "100" });
    expect(status, JSON.stringify(body)).toBe(200);
    const result = body.data;
    expect(result.params.quote.tokenOut).toEqual({ address: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE", symbol: "ETH", decimals: 18, listed: true });
    const req = (decodeFunctionData({ abi: swapRouterAbi, data: result.steps[1].data }).args as any)[0];
    expect(req).toMatchObject({ tokenOut: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE", recipient: owner });
    const before = await chain.getBalance({ address: owner });
    const receipts = await sendAll(result);
    const gas = receipts.reduce((sum, r) => sum + r.gasUsed * r.effectiveGasPrice, 0n);
    const received = (await chain.getBalance({ address: owner })) - before + gas;
    expect(received).toBeGreaterThanOrEqual(BigInt(result.params.quote.minimumOutUnits));
  });

  it("through the worker and the route budget: the same bundle kind, and the filing is made", async () => {
    const { status, body } = await prepare("swap", { tokenIn: "WETH", tokenOut: "USDG", amount: "0.05" }, queued);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.kind).toBe("swap");
    const filing = await db.selectFrom("filing").selectAll().where("sign_request_id", "=", body.data.id).executeTakeFirstOrThrow();
    expect(filing.kind).toBe("swap");
    await sendAll(body.data);
  });

  it("refusals of the quote hold for the prepare; SWAP_PAUSED, SWAP_CONTRACTS_CHANGED and SWAP_UNAVAILABLE", async () => {
    expectCode(await prepare("swap", { tokenIn: "ETH", tokenOut: "USDG", amount: "1" }), 422, "NATIVE_ETH_IN");
    expectCode(await prepare("swap", { tokenIn: "USDG", tokenOut: "NOPE", amount: "1" }), 422, "UNKNOWN_TOKEN");
    expectCode(await prepare("swap", { tokenIn: "USDG", tokenOut: d.contracts.markets!, amount: "1" }), 422, "NOT_A_TOKEN");
    expectCode(await prepare("swap", { tokenIn: "LINK", tokenOut: "link", amount: "1" }), 422, "SAME_TOKEN");
    expectCode(await prepare("swap", { tokenIn: "USDG", tokenOut: d.baskets[1]!.address, amount: "1" }), 422, "SWAP_NO_ROUTE");
    expectCode(await prepare("swap", { tokenIn: "USDG", tokenOut: "WETH", amount: "1", recipient: admin.address }), 422, "RECEIVER_NOT_OWNER");

    const router = d.contracts.swapRouter!;
    await asAdmin(router, "setPaused", [true]);
    try {
      expectCode(await prepare("swap", { tokenIn: "USDG", tokenOut: "WETH", amount: "1" }), 422, "SWAP_PAUSED");
    } finally {
      await asAdmin(router, "setPaused", [false]);
    }
    // The router moved to another aggregator: the service's routes are for the old one.
    await asAdmin(router, "setAggregator", [admin.address]);
    try {
      expectCode(await prepare("swap", { tokenIn: "USDG", tokenOut: "WETH", amount: "1" }), 409, "SWAP_CONTRACTS_CHANGED");
    } finally {
      await asAdmin(router, "setAggregator", [d.contracts.aggregator!]);
    }
    expect((await prepare("swap", { tokenIn: "USDG", tokenOut: "WETH", amount: "1" })).status).toBe(200);
    // A chain whose deployments have no swap router.
    const { swapRouter: _gone, ...contracts } = d.contracts;
    const noRouter = testApp({ db, redis, reads, deployments: { ...d, contracts }, client: local.deps.client });
    expectCode(await prepare("swap", { tokenIn: "USDG", tokenOut: "WETH", amount: "1" }, noRouter), 503, "SWAP_UNAVAILABLE");
  });
});

describe("the aggregator route budget", () => {
  it(`a burst of 30 quotes over a budget of ${BUDGET}/s: some answered, the rest 429 BUSY with Retry-After, never a 5xx`, async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await queued.app.request(`/v1/agent/swap/quote?tokenIn=USDG&tokenOut=WETH&amount=${10 + i}`);
        const body = (await res.json()) as { code?: string };
        expect(validator.errors("get", "/v1/agent/swap/quote", res.status, body)).toEqual([]);
        return { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after") };
      }),
    );
    const elapsed = Date.now() - started;
    const ok = answers.filter((a) => a.status === 200).length;
    const busy = answers.filter((a) => a.status === 429);
    expect(
      answers.every((a) => a.status < 500),
      JSON.stringify(answers),
    ).toBe(true);
    expect(ok).toBeGreaterThan(0);
    // The wait is 3 s (AGGREGATOR_WAIT_MS): at 2/s at most ~8 fit in it.
    expect(ok).toBeLessThanOrEqual(BUDGET * Math.ceil(elapsed / 1000) + BUDGET);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.every((b) => b.code === "BUSY" && b.retryAfter === "1")).toBe(true);
    expect(ok + busy.length).toBe(30);
    // The queue drains: the stale jobs are dropped without aggregator calls, then quotes are answered again.
    await new Promise((r) => setTimeout(r, 15_000));
    const again = await queued.app.request("/v1/agent/swap/quote?tokenIn=USDG&tokenOut=WETH&amount=5");
    expect(again.status).toBe(200);
  }, 90_000);
});
