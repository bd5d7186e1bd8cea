// Backtests, planners, scans and the strategy finder over HTTP on the indexed devnet (2 days of
// history): each route through real BullMQ workers (the `backtest` and `scan` queues, as
// workers/main.ts runs them), every answer validated against the served OpenAPI document. A fresh
// API schema answers 503 SCAN_PREPARING until the scheduled scans have stored their first results.
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { getAddress, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadSeries } from "../../usecases/backtest-runs/candles.js";
import { BACKTEST_QUEUE, SCAN_QUEUE } from "../../usecases/backtest-runs/jobs.js";
import { chainFees, scheduleScans } from "../../usecases/backtest-runs/schedule.js";
import { createChainClient } from "../../adapters/chain/client.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { backtestGrid } from "../../domain/backtest/grid.js";
import { createJobClient, type JobClient } from "../../adapters/queue/request-reply.js";
import { prepareKindRegistry } from "../../contract/prepare-kinds.js";
import { createChallenge, exchangeChallenge } from "../../usecases/sessions.js";
import { backtestProcessor } from "../../workers/processors/backtest.js";
import { scanProcessor } from "../../workers/processors/scan.js";
import { connectRedis, createTestDatabase, deleteKeys, migratedDb, randomPrefix, REDIS_URL, testApp, type TestDatabase } from "../api/support.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../helpers/openapi-validate.js";
import { testAccount, writeAt } from "../helpers/wallets.js";
import { mergedVaultAbi } from "../../abis/index.js";

const stack = inject("stack");
const NOBODY = "0x000000000000000000000000000000000000dEaD";

/** A run parameter {route, body} is a valid body of its prepare route once `owner` is added. */
function expectPrepareBody(run: { route: string; body: Record<string, unknown> }) {
  const kind = run.route.replace("/v1/agent/prepare/", "") as keyof typeof prepareKindRegistry;
  const parsed = prepareKindRegistry[kind].body.safeParse({ ...run.body, owner: NOBODY });
  expect(parsed.success, `${run.route}: ${JSON.stringify(parsed.error?.issues ?? [])}`).toBe(true);
}
const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"; // any wallet: runs are logged, nothing is sent
const WALLET_KEY = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"); // WALLET's devnet key

let database: TestDatabase;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let d: Deployments;
let jobs: JobClient;
let workers: Worker[] = [];
let scanQueue: Queue;
let app: ReturnType<typeof testApp>["app"];
let validator: ResponseValidator;
let weth: string;
const bullPrefix = `${randomPrefix()}:bull`;

type Answer<T = any> = { status: number; body: T };

async function call<T = any>(method: "get" | "post", path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
  const res = await app.request(
    path,
    method === "post" ? { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) } : undefined,
  );
  const json = (await res.json()) as T;
  expect(validator.errors(method, path.split("?")[0]!, res.status, json), `${method} ${path} ${res.status} against the OpenAPI document`).toEqual([]);
  return { status: res.status, body: json };
}
const get = <T = any>(path: string) => call<T>("get", path);
const post = <T = any>(path: string, body: unknown) => call<T>("post", path, body);

async function data<T = any>(method: "get" | "post", path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
  const { status, body: json } = await call<{ data: T }>(method, path, body, headers);
  expect(status, `${path}: ${JSON.stringify(json).slice(0, 400)}`).toBe(200);
  return json.data;
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
  redis = await connectRedis();
  d = loadDeployments(stack.deploymentsFile);
  weth = d.tokens.find((t) => t.symbol === "WETH")!.address;
  const client = createChainClient(stack.rpcUrl, { timeoutMs: 15_000 });
  jobs = createJobClient({ redisUrl: REDIS_URL, prefix: bullPrefix });
  const payments = { facilitatorUrl: stack.facilitatorUrl, pricePerDayUsdg: 0.01, keyPrefix: `${bullPrefix}:pay` };
  ({ app } = testApp({ db, redis, reads, deployments: d, client, jobs, now: () => new Date(), payments }));
  const t = testApp({ db, redis, reads, deployments: d, client });
  const connection = () => new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  workers = [
    new Worker(BACKTEST_QUEUE, backtestProcessor({ reads, logger: t.deps.logger, viewsSchema: stack.viewsSchema }), {
      connection: connection(),
      prefix: bullPrefix,
      concurrency: 2,
    }),
    new Worker(SCAN_QUEUE, scanProcessor({ db, reads, deployments: d, now: () => new Date(), fees: chainFees(client, d), logger: t.deps.logger }), {
      connection: connection(),
      prefix: bullPrefix,
      lockDuration: 120_000,
    }),
  ];
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  scanQueue = new Queue(SCAN_QUEUE, { connection: connection(), prefix: bullPrefix });
  validator = responseValidator(await fetchOpenApi(app));
});

afterAll(async () => {
  await scanQueue?.obliterate({ force: true }).catch(() => {});
  await scanQueue?.close();
  await Promise.all(workers.map((w) => w.close()));
  await jobs?.close();
  if (redis) await deleteKeys(redis, bullPrefix.split(":")[0]!);
  redis?.disconnect();
  await db?.destroy();
  await reads?.destroy();
  await database?.drop();
});

describe("scans before the first run", () => {
  it("answer 503 SCAN_PREPARING on a fresh start", async () => {
    for (const path of ["/v1/agent/grid/tokens", "/v1/agent/ladder/tokens", "/v1/strategy-finder", `/v1/strategy-finder/${weth}`]) {
      const { status, body } = await get(path);
      expect([path, status, body.code]).toEqual([path, 503, "SCAN_PREPARING"]);
    }
  });
});

describe("backtests and planners (backtest queue)", () => {
  it("replays a grid, the same as the simulation over the indexed candles, and shares the job of an identical request", async () => {
    const now = Math.floor(Date.now() / 1000);
    const series = await loadSeries(reads, weth, now - 2 * 86400, now, "10m");
    const last = series.close[series.length - 1]!;
    const body = { token: weth, buyPrice: (last * 0.995).toFixed(4), sellPrice: (last * 1.005).toFixed(4), amountUsd: 200, repeat: true, days: 2 };
    const r = await data("post", "/v1/agent/backtest/grid", body);
    expect(r.token.address).toBe(getAddress(weth));
    expect(r.feeBps).toBe(30);
    expect(r.trades).toBe(r.buys + r.sells);
    expect(r.roundTrips).toBe(r.sells);
    expect(r.tradeList.length).toBe(Math.min(200, r.trades));
    // The candles the API replayed end at its as-of bucket: replay the same window here.
    const same = await loadSeries(reads, weth, Date.parse(r.from) / 1000, Date.parse(r.to) / 1000 - 600, "10m");
    expect(same.length).toBe(r.candles);
    const mine = backtestGrid(same, { buyPrice: Number(body.buyPrice), sellPrice: Number(body.sellPrice), amountUsd: 200, repeat: true, feeBps: 30 });
    expect([r.buys, r.sells]).toEqual([mine.buys, mine.sells]);
    expect(r.profitUsd).toBeCloseTo(mine.profitUsd, 1);
    const again = await data("post", "/v1/agent/backtest/grid", { ...body, repeat: true });
    expect(again).toEqual(r);
    const keys = await redis.keys(`${bullPrefix}:${BACKTEST_QUEUE}:bt-grid-*`);
    expect(keys.filter((k) => /bt-grid-[0-9a-f]{40}$/.test(k))).toHaveLength(1);
  });

  it("answers 402 with x402 v2's PaymentRequired past 30 days (paying: test/e2e/x402.test.ts), and 422 NO_CANDLES for a token without prices", async () => {
    const paid = await post("/v1/agent/backtest/grid", { token: weth, buyPrice: 1, sellPrice: 2, amountUsd: 100, days: 45 });
    expect(paid.status).toBe(402);
    expect(paid.body).toMatchObject({ code: "PAYMENT_REQUIRED", x402Version: 2 });
    const [offer] = paid.body.accepts;
    expect(offer).toMatchObject({ scheme: "exact", network: "eip155:4663", asset: getAddress(d.contracts.usdg!), amount: "150000" });
    expect(paid.body.resource.url).toContain("/v1/agent/backtest/grid");
    const paidLadder = await post("/v1/agent/backtest/ladder", { token: weth, side: "buy", levels: [{ price: 1, amountUsd: 10 }], days: 31 });
    expect([paidLadder.status, paidLadder.body.accepts[0].amount]).toEqual([402, "10000"]);
    const paidRanges = await get(`/v1/agent/ranges?token=${weth}&days=31`);
    expect([paidRanges.status, paidRanges.body.accepts[0].amount]).toEqual([402, "10000"]);
    const none = await post("/v1/agent/backtest/grid", { token: NOBODY, buyPrice: 1, sellPrice: 2, amountUsd: 100, days: 5 });
    expect([none.status, none.body.code]).toEqual([422, "NO_CANDLES"]);
    const bad = await post("/v1/agent/backtest/grid", { token: weth, buyPrice: 2, sellPrice: 1, amountUsd: 100, days: 5 });
    expect([bad.status, bad.body.code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("replays a ladder: a level under every low never fills, one above the first open fills at once", async () => {
    const now = Math.floor(Date.now() / 1000);
    const series = await loadSeries(reads, weth, now - 86400, now, "10m");
    const r = await data("post", "/v1/agent/backtest/ladder", {
      token: weth,
      side: "buy",
      days: 1,
      levels: [
        { price: series.open[0]! * 2, amountUsd: 50 },
        { price: series.open[0]! / 10, amountUsd: 50 },
      ],
    });
    expect(r.feeBps).toBe(20);
    expect(r.levels.map((l: any) => l.filled)).toEqual([true, false]);
    expect(r.filledLevels).toBe(1);
    expect(r.levels[0].commissionUsd).toBeCloseTo(0.1, 2); // 0.2% of 50 USD
  });

  it("finds ranges for every gap the fee allows", async () => {
    const r = await data("get", `/v1/agent/ranges?token=${weth}&days=2`);
    expect(r.feeBps).toBe(30);
    expect(r.gaps[0].gap).toBe(0.01); // 0.5% does not pay back 2 x 0.3%
    expect(r.bestByRoundTrips?.roundTrips ?? 0).toBeGreaterThanOrEqual(r.bestByProfit?.roundTrips ?? 0);
    const free = await data("get", `/v1/agent/ranges?token=${weth}&days=2&feeBps=0`);
    expect(free.gaps[0].gap).toBe(0.005);
    expect((await get(`/v1/agent/ranges?token=${weth}&feeBps=1001`)).status).toBe(400);
  });

  it("plans a grid walk-forward, and refuses a gap the fee does not allow", async () => {
    const r = await data("get", `/v1/agent/grid/plan?token=${weth}&days=28`);
    expect(["good", "weak", "none"]).toContain(r.verdict);
    expect(r.reasons.length).toBeGreaterThan(0);
    expect(r.windowDays).toBe(1); // 2 days of devnet history: daily windows
    expect(r.minGap).toBeCloseTo(1 / 0.997 ** 2 - 1, 12);
    if (r.today) {
      expect(r.prepare.body).toMatchObject({
        action: "open",
        token: getAddress(weth),
        buyPrice: r.today.buyPrice,
        sellPrice: r.today.sellPrice,
        amountUsdg: "200",
      });
      expectPrepareBody(r.prepare);
      // Each line is itself the grid prepare's body (add owner).
      expect(r.today).toMatchObject({ action: "open", token: getAddress(weth), amountUsdg: "200" });
      expectPrepareBody({ route: "/v1/agent/prepare/grid", body: r.today });
    }
    const tight = await get(`/v1/agent/grid/plan?token=${weth}&gap=0.005`);
    expect([tight.status, tight.body.code]).toEqual([422, "GAP_TOO_TIGHT"]);
    expect((await get(`/v1/agent/grid/plan?token=${weth}&days=27`)).status).toBe(400);
    const none = await get(`/v1/agent/grid/plan?token=${NOBODY}`);
    expect([none.status, none.body.code]).toEqual([422, "NO_CANDLES"]);
  });

  it("plans the dip ladder with its record and the exact ladder-strategy prepare", async () => {
    const r = await data("get", `/v1/agent/ladder/plan?token=${weth}&amountUsd=55`);
    expect(r.today).toHaveLength(5);
    expect(r.record.starts).toBeGreaterThanOrEqual(1);
    expect(r.prepare.route).toBe("/v1/agent/prepare/ladder-strategy");
    expect(r.prepare.body.legs.map((l: any) => l.amount)).toEqual(["11.00", "11.00", "11.00", "11.00", "11.00"]);
    expectPrepareBody(r.prepare);
    const buys = r.today.map((l: any) => Number(l.buyPrice));
    for (let k = 1; k < 5; k++) expect(buys[k] / buys[k - 1]).toBeCloseTo(0.9, 4);
    expect((await get(`/v1/agent/ladder/plan?token=${weth}&amountUsd=54`)).status).toBe(400);
  });
});

describe("scans and the strategy finder (scan queue)", () => {
  it("answers 200 once the scheduled scans have run", async () => {
    await scheduleScans(scanQueue, 3_600_000);
    const deadline = Date.now() + 200_000;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      const statuses = await Promise.all(
        ["/v1/agent/grid/tokens", "/v1/agent/ladder/tokens", "/v1/strategy-finder"].map(async (p) => (await app.request(p)).status),
      );
      ready = statuses.every((s) => s === 200);
      if (!ready) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(ready).toBe(true);
    const charted = d.tokens.filter((t) => t.pool).length;
    const grid = await data("get", "/v1/agent/grid/tokens?limit=10");
    expect(grid.scanned).toBe(charted);
    expect(grid.tokens.length).toBe(Math.min(10, charted));
    const order = { good: 0, weak: 1, none: 2 } as Record<string, number>;
    for (let i = 1; i < grid.tokens.length; i++) expect(order[grid.tokens[i].verdict]).toBeGreaterThanOrEqual(order[grid.tokens[i - 1].verdict]!);
    const good = await data("get", "/v1/agent/grid/tokens?include=good&limit=10");
    expect(good.tokens.every((t: any) => t.verdict === "good")).toBe(true);
    const stocks = await data("get", "/v1/agent/grid/tokens?category=stock&limit=10");
    expect(stocks.tokens.every((t: any) => t.token.category === "stock")).toBe(true);
    const ladder = await data("get", "/v1/agent/ladder/tokens?limit=3");
    expect(ladder.tokens.length).toBe(Math.min(3, charted));
    expect(ladder.tokens[0].today).toHaveLength(5);
  });

  it("ranks the board, at most 2 per token and 6 per style, beside holding", async () => {
    const b = await data("get", "/v1/strategy-finder?period=1d&budget=1000");
    expect(b.period).toBe("1d");
    const perToken = new Map<string, number>();
    const perStyle = new Map<string, number>();
    for (const r of b.results) {
      const key = r.subject.kind === "vault" ? r.subject.vault.address : r.subject.token.address;
      perToken.set(key, (perToken.get(key) ?? 0) + 1);
      perStyle.set(r.style, (perStyle.get(r.style) ?? 0) + 1);
      expect(r.pnlUsd).toBeCloseTo(r.returnPct * 10, 0);
      expect(r.holdPnlUsd).toBeCloseTo(r.holdReturnPct * 10, 0);
      expect(r.run.route).toMatch(/^\/v1\/agent\/prepare\//);
      expectPrepareBody(r.run);
    }
    expect(Math.max(...perToken.values())).toBeLessThanOrEqual(2);
    expect(Math.max(...perStyle.values())).toBeLessThanOrEqual(6);
    for (let i = 1; i < b.results.length; i++) expect(b.results[i].returnPct).toBeLessThanOrEqual(b.results[i - 1].returnPct);
    // 2 days of history: a 30-day window falls back to the longest shorter one.
    const long = await data("get", "/v1/strategy-finder?period=30d");
    expect(long.period).not.toBe("30d");
    expect(long.shorterWindow).toContain("30 days");
    const page = await data("get", `/v1/strategy-finder/${weth}?period=1d`);
    expect(page.styles.map((s: any) => s.style)).toEqual(["grid", "dip-ladder"]);
    expect(page.styles[1].walkForward.length).toBeGreaterThan(0);
    const unknown = await get(`/v1/strategy-finder/${NOBODY}`);
    expect([unknown.status, unknown.body.code]).toEqual([422, "NO_CANDLES"]);
    // Today's picks: the 7-day board's best positive token results (at most 6), followed on paper since.
    const week = await data("get", "/v1/strategy-finder?period=7d");
    const expected = week.results.filter((r: any) => r.subject.kind === "token" && r.returnPct > 0).slice(0, 6);
    const record = await data("get", "/v1/strategy-finder/track-record");
    expect(record.followDays).toBe(7);
    expect(record.picks.map((p: any) => [p.style, p.token.address])).toEqual(expected.map((r: any) => [r.style, r.subject.token.address]));
    for (const p of record.picks) {
      expect(p.day).toBe(week.asOf.slice(0, 10));
      expect(p.paper).not.toBeNull();
      expect(p.done).toBe(false);
    }
  });

  it("recommends only what prepares: every result's run body answers 200 for a funded wallet; a vault paused since the scan is named by none", async () => {
    // Prepares in this process (this file's workers serve backtests and scans only).
    const prepares = testApp({ db, redis, reads, deployments: d, client: createChainClient(stack.rpcUrl, { timeoutMs: 15_000 }) }).app;
    const funded = testAccount(3).address; // a devnet wallet funded with USDG and every listed token
    const board = async () => data("get", "/v1/strategy-finder?period=1d&budget=200");
    const b = await board();
    expect(b.results.length).toBeGreaterThan(0);
    for (const r of b.results) {
      const res = await prepares.request(r.run.route, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...r.run.body, owner: funded }),
      });
      const answer = (await res.json()) as any;
      expect(res.status, `${r.style} ${r.run.route} ${JSON.stringify(answer).slice(0, 400)}`).toBe(200);
      expect(answer.data.issues.balance, r.run.route).toBeNull();
    }
    // Pause a vault the board names (else any open agent vault), after the scan: no result names it.
    const named = b.results.find((r: any) => r.subject.kind === "vault")?.subject.vault.address;
    const vault = d.vaults.find((v) => (named ? v.address.toLowerCase() === named.toLowerCase() : v.agent && v.family === "merged"))!;
    const chain = createChainClient(stack.rpcUrl);
    const status = (v: number, reason: string) =>
      writeAt(stack.rpcUrl, chain, testAccount(10), { address: vault.address as Address, abi: mergedVaultAbi, functionName: "setStatus", args: [v, reason] });
    const before = await chain.readContract({ address: vault.address as Address, abi: mergedVaultAbi, functionName: "status" });
    await status(3, "paused by a test");
    try {
      const names = (x: any) => x.results.some((r: any) => r.subject.kind === "vault" && r.subject.vault.address.toLowerCase() === vault.address.toLowerCase());
      for (let i = 0; i < 120 && names(await board()); i++) await new Promise((r) => setTimeout(r, 250));
      expect(names(await board())).toBe(false);
      expect(names(await data("get", "/v1/strategy-finder?period=1d&budget=200&strategy=vault"))).toBe(false);
    } finally {
      await status(Number(before), "");
    }
  });

  it("runs any token on demand, logs every run, and counts a wallet's attempts made with its owner session", async () => {
    const before = await data("get", `/v1/strategy-finder/attempts?kind=wallet&value=${WALLET}`);
    expect(before.runs).toBe(0);
    // WALLET's report-card session: runs count for a wallet only with it.
    const c = await createChallenge(db, { owner: WALLET, now: new Date(), origin: "http://agent.test" });
    const { token } = await exchangeChallenge(db, {
      owner: WALLET,
      challengeId: c.challengeId,
      signature: await WALLET_KEY.signMessage({ message: c.message }),
      now: new Date(),
    });
    const session = { Authorization: `Bearer ${token}` };
    const walk = await data("post", "/v1/strategy-finder/backtest", { token: weth, strategy: "grid", variant: "wider", days: 21 }, session);
    expect(walk.mode).toBe("walk-forward");
    const fixed = await data("post", "/v1/strategy-finder/backtest", { token: weth, strategy: "dip-ladder", period: "1d", budgetUsd: 100 }, session);
    expect(fixed.mode).toBe("fixed");
    // Naming the wallet without its session: logged, not counted.
    await data("post", "/v1/strategy-finder/backtest", { token: weth, strategy: "dip-ladder", period: "1d", identity: { kind: "wallet", value: WALLET } });
    // Through MCP: the tool takes the session as `sessionToken`, and the run counts for its owner.
    const viaMcp = await app.request("/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "strategy_finder_backtest", arguments: { token: weth, strategy: "dip-ladder", period: "1d", sessionToken: token } },
      }),
    });
    const tool = (await viaMcp.json()) as { result: { isError?: boolean; structuredContent: { data: { mode: string } } } };
    expect([viaMcp.status, tool.result.isError ?? false, tool.result.structuredContent.data.mode]).toEqual([200, false, "fixed"]);
    const after = await data("get", `/v1/strategy-finder/attempts?kind=wallet&value=${WALLET.toLowerCase()}`);
    expect(after.runs).toBe(3);
    const logged = await db.selectFrom("strategy_run").select("id").execute();
    expect(logged).toHaveLength(4);
    const both = await post("/v1/strategy-finder/backtest", { token: weth, strategy: "grid", variant: "wider", settings: { buyPrice: 1, sellPrice: 2 } });
    expect(both.status).toBe(400);
    const days = await post("/v1/strategy-finder/backtest", { token: weth, strategy: "grid", days: 20 });
    expect(days.status).toBe(400);
  });
});
