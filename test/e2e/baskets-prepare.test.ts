// Baskets and the aggregator-leg vault kinds on the running stack (devnet + indexer), test wallet 1:
// basket-buy, basket-sell (amount and all: true) and basket-make, each signed and sent with viem, the
// basket tokens at the owner; a stock-token vault deposit and usdg-mode withdrawals (stock-token and
// merged); POST /v1/agent/baskets/plan; and every 422/503 code of these routes provoked by a real case.
// Where the case is the external aggregator's own behaviour (a wide minimum, an oversized route, no
// route, an overstated quote) it is an Aggregator adapter around the devnet's, as the brief allows.
// Every answer is validated against the served OpenAPI document.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { createPublicClient, decodeFunctionData, formatUnits, http, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { basketMakerAbi, basketPoolAbi, basketZapAbi, mergedVaultAbi, stockVaultRouterAbi, testTokenAbi } from "../../abis/index.js";
import { NoRouteError, type Aggregator } from "../../adapters/chain/aggregator.js";
import { directAggregator } from "../../adapters/chain/aggregator-direct.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { ApiError } from "../../domain/errors.js";
import { prepareContext, runPrepare } from "../../usecases/prepare/pipeline.js";
import type { PrepareBodies, PrepareContext } from "../../usecases/prepare/types.js";
import { noProjections, randomPrefix, testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { expectCode, postChecked, type Answer } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { balanceAt, basketIn, devnetAt, sendStepsAt, testAccount, tokenIn, walletAt } from "../helpers/wallets.js";

const stack = inject("stack");
const account = testAccount(1);
const admin = testAccount(10);
const owner = account.address;
const ONE = 10n ** 18n;

let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let d: Deployments;
let chain: PublicClient;
let local: ReturnType<typeof testApp>;
let validator: ResponseValidator;

const walletOf = (acc: typeof account) => walletAt(stack.rpcUrl, acc);
const tokenBy = (symbol: string) => tokenIn(d, symbol).address;
const basketBy = (symbol: string) => basketIn(d, symbol);
const balanceOf = (token: Address, who: Address = owner) => balanceAt(chain, token, who);
const tag = Date.now().toString(36).slice(-5).toUpperCase();

beforeAll(async () => {
  opened = await openStackApp(stack);
  ({ db, reads, redis, d, chain, app: local, validator } = opened);
});

afterAll(() => opened?.close());

const prepare = (kind: string, body: Record<string, unknown>, on = local) => postChecked(on.app, validator, `/v1/agent/prepare/${kind}`, { owner, ...body });

async function prepared(kind: string, body: Record<string, unknown>) {
  const a = await prepare(kind, body);
  expect(a.status, `${kind}: ${JSON.stringify(a.body).slice(0, 800)}`).toBe(200);
  return a.body.data as { kind: string; steps: { to: Address; data: Hex; value: string }[]; params: any };
}

async function plan(body: Record<string, unknown>, client = "10.0.0.1", on = local): Promise<Answer> {
  const res = await on.app.request("/v1/agent/baskets/plan", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": client },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  expect(validator.errors("post", "/v1/agent/baskets/plan", res.status, answer), `plan ${res.status} against the OpenAPI document`).toEqual([]);
  return { status: res.status, body: answer };
}

const sendAll = (result: { steps: { to: Address; data: Hex; value: string }[] }) => sendStepsAt(stack.rpcUrl, chain, account, result.steps);

async function asAdmin(address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]) {
  const hash = await walletOf(admin).writeContract({ address, abi, functionName, args } as never);
  expect((await chain.waitForTransactionReceipt({ hash })).status).toBe("success");
}

/** The deadline the zap gets: at most 10 minutes after the chain's time now. */
async function expectDeadline(deadline: number) {
  const block = await chain.getBlock();
  expect(deadline).toBeGreaterThan(Number(block.timestamp));
  expect(deadline - Number(block.timestamp)).toBeLessThanOrEqual(600);
}

/** runPrepare with an aggregator adapter (the external aggregator's behaviour), on the same stack. */
async function withAggregator<K extends "basket-buy" | "basket-sell" | "basket-make">(
  aggregator: Aggregator,
  kind: K,
  body: Omit<PrepareBodies[K], "owner">,
): Promise<string> {
  const deps = local.deps;
  const ctx: PrepareContext = prepareContext({
    db,
    reads,
    deployments: d,
    client: deps.client!,
    now: deps.now,
    baseUrl: deps.baseUrl!,
    logger: deps.logger,
    aggregator,
  });
  try {
    await runPrepare(ctx, kind, { owner, ...body } as PrepareBodies[K]);
    return "ok";
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

const dev = () => directAggregator(local.deps.client!, d)!;
/** An aggregator whose routes carry its own wider minimum (5% under the quote). */
const wideMinimum = (): Aggregator => ({
  ...dev(),
  address: dev().address,
  quote: (r) => dev().quote(r),
  route: (r) => dev().route({ ...r, slippageBps: 500 }),
});
/** An aggregator whose route calldata is padded past the zap's 32,000 bytes. */
const oversized = (): Aggregator => ({
  address: dev().address,
  quote: (r) => dev().quote(r),
  route: async (r) => {
    const route = await dev().route(r);
    return { ...route, data: `${route.data}${"00".repeat(33_000)}` as Hex };
  },
});
/** An aggregator that has no route to `token`. */
const noRouteTo = (token: Address): Aggregator => ({
  address: dev().address,
  quote: (r) => dev().quote(r),
  route: async (r) => {
    if (r.tokenOut.toLowerCase() === token.toLowerCase() || r.tokenIn.toLowerCase() === token.toLowerCase()) throw new NoRouteError(r.tokenIn, r.tokenOut);
    return dev().route(r);
  },
});
/** An aggregator that overstates: its route demands 1% more than the pools pay, so the trade reverts. */
const overstated = (): Aggregator => ({ address: dev().address, quote: (r) => dev().quote(r), route: (r) => dev().route({ ...r, slippageBps: -100 }) });

describe("basket-buy, basket-sell, basket-make: signed and sent", () => {
  it("basket-buy BLUE with 500 USDG: exact approval to the zap, recipient owner, 10-minute deadline; basket tokens at the owner", async () => {
    const blue = basketBy("BLUE");
    const zap = d.contracts.basketZap!;
    const before = await balanceOf(blue);
    const result = await prepared("basket-buy", { basket: "BLUE", amount: "500", agentTag: "e2e.baskets" });
    expect(result.kind).toBe("basket-buy");
    const p = result.params;
    expect(p).toMatchObject({ side: "buy", pool: blue, zap, token: d.contracts.usdg, amount: "500000000", recipient: owner, slippageBps: 100 });
    expect(p.approvals).toEqual([{ token: d.contracts.usdg, spender: zap, amount: "500000000" }]);
    expect(p.legs).toHaveLength(3);
    expect(Object.keys(p.quote).sort()).toEqual(["block", "costUsd", "priceImpactPct", "valueUsd"]);
    expect(p.quote.valueUsd).toBeCloseTo(500, 3);
    await expectDeadline(p.deadline);
    const call = decodeFunctionData({ abi: basketZapAbi, data: result.steps[1]!.data });
    expect(call.functionName).toBe("buy");
    expect(call.args[5]).toBe(owner);
    await sendAll(result);
    const got = (await balanceOf(blue)) - before;
    expect(got).toBeGreaterThanOrEqual(BigInt(p.minOut));
    expect(BigInt(p.minOut)).toBeGreaterThan(0n);
  });

  it("basket-buy paying with one of the basket's tokens (WETH) and by pool address", async () => {
    const blue = basketBy("BLUE");
    const before = await balanceOf(blue);
    const result = await prepared("basket-buy", { basket: blue, amount: "0.1", payWith: "WETH" });
    expect(result.params.token).toBe(tokenBy("WETH"));
    await sendAll(result);
    expect((await balanceOf(blue)) - before).toBeGreaterThanOrEqual(BigInt(result.params.minOut));
  });

  it("basket-sell an amount, then all: true; the proportional exits are in params", async () => {
    const blue = basketBy("BLUE");
    const held = await balanceOf(blue);
    expect(held).toBeGreaterThan(ONE / 100n);
    const part = formatUnits(held / 3n, 18);
    const usdgBefore = await balanceOf(d.contracts.usdg!);
    const sell = await prepared("basket-sell", { basket: "BLUE", amount: part });
    expect(sell.kind).toBe("basket-sell");
    expect(sell.params).toMatchObject({ side: "sell", pool: blue, token: d.contracts.usdg, amount: (held / 3n).toString(), recipient: owner });
    expect(sell.params.approvals).toEqual([{ token: blue, spender: d.contracts.basketZap, amount: (held / 3n).toString() }]);
    expect(sell.params.exits).toHaveLength(3);
    await expectDeadline(sell.params.deadline);
    await sendAll(sell);
    expect((await balanceOf(d.contracts.usdg!)) - usdgBefore).toBeGreaterThanOrEqual(BigInt(sell.params.minOut));
    expect(await balanceOf(blue)).toBe(held - held / 3n);
    // Selling more than it holds is refused (a sell spends holdings; only buys are prepared before funding).
    const short = await prepare("basket-sell", { basket: "BLUE", amount: formatUnits(held, 18) });
    expectCode(short, 422, "TOKEN_SHORTFALL");
    expect(short.body.details.token.toLowerCase()).toBe(blue.toLowerCase());

    const all = await prepared("basket-sell", { basket: blue, all: true, receive: "WETH" });
    expect(all.params.amount).toBe((held - held / 3n).toString());
    const wethBefore = await balanceOf(tokenBy("WETH"));
    await sendAll(all);
    expect(await balanceOf(blue)).toBe(0n);
    expect((await balanceOf(tokenBy("WETH"))) - wethBefore).toBeGreaterThanOrEqual(BigInt(all.params.minOut));
    // Now the owner holds none.
    expectCode(await prepare("basket-sell", { basket: blue, all: true }), 422, "NOTHING_TO_SELL");
  });

  it("basket-make for a wallet that holds nothing answers 200 with issues.balance on the paid token, as every kind does", async () => {
    const unfunded = privateKeyToAccount(generatePrivateKey()).address;
    const make = {
      owner: unfunded,
      name: `Unfunded ${tag}`,
      symbol: `UNF${tag}`,
      tokens: [
        { token: "USDG", weightPct: 50 },
        { token: "LINK", weightPct: 50 },
      ],
      amount: "30",
    };
    const a = await prepare("basket-make", make);
    expect(a.status, JSON.stringify(a.body).slice(0, 600)).toBe(200);
    expect(a.body.data.issues.balance).toEqual({ token: d.contracts.usdg, actual: "0", expected: "30000000" });
    // Paid in WETH: the balance issue names WETH.
    const inWeth = await prepare("basket-make", { ...make, payWith: "WETH", amount: "0.02" });
    expect(inWeth.status, JSON.stringify(inWeth.body).slice(0, 600)).toBe(200);
    expect(inWeth.body.data.issues.balance).toMatchObject({ token: tokenBy("WETH"), actual: "0" });
  });

  it("basket-make: a new basket at its predicted address, the first 100 basket tokens at the owner", async () => {
    const symbol = `E2E${tag}`;
    const result = await prepared("basket-make", {
      name: `E2E Mix ${tag}`,
      symbol,
      tokens: [
        { token: "LINK", weightPct: 25 },
        { token: "USDG", weightPct: 50 },
        { token: "SOLX", weightPct: 25 },
      ],
      swapFeePct: 0.3,
      amount: "100",
    });
    expect(result.kind).toBe("basket-make");
    const p = result.params;
    expect(p).toMatchObject({
      maker: d.contracts.basketMaker,
      decimals: 18,
      token: d.contracts.usdg,
      amount: "100000000",
      recipient: owner,
      expectedOut: (100n * ONE).toString(),
      minOut: (100n * ONE).toString(),
    });
    expect(p.basket.swapFeePercentage).toBe((3n * 10n ** 15n).toString());
    const sorted = [...p.basket.tokens].sort((a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : 1));
    expect(p.basket.tokens).toEqual(sorted);
    expect(p.approvals).toEqual([{ token: d.contracts.usdg, spender: d.contracts.basketMaker, amount: "100000000" }]);
    await expectDeadline(p.deadline);
    const call = decodeFunctionData({ abi: basketMakerAbi, data: result.steps[1]!.data });
    expect(call.args[5]).toBe(owner);
    await sendAll(result);
    expect(await balanceOf(p.pool)).toBe(100n * ONE);
    expect(await chain.readContract({ address: p.pool, abi: basketPoolAbi, functionName: "symbol" })).toBe(symbol);
    // The symbol is now taken.
    const again = await prepare("basket-make", {
      name: "Another",
      symbol: symbol.toLowerCase(),
      tokens: [
        { token: "USDG", weightPct: 50 },
        { token: "LINK", weightPct: 50 },
      ],
      amount: "30",
    });
    expectCode(again, 422, "SYMBOL_TAKEN");
  });
});

describe("vault kinds with an aggregator leg", () => {
  const stockVault = () => d.vaults.find((v) => v.family === "stock-token" && v.token.toLowerCase() === tokenBy("tsAAPL").toLowerCase())!;

  it("vault-deposit into a stock-token vault (stock-vault-deposit), then vault-withdraw mode usdg (stock-vault-withdraw)", async () => {
    const v = stockVault();
    const sharesBefore = await balanceOf(v.address);
    const deposit = await prepared("vault-deposit", { vault: v.address, amount: "500" });
    expect(deposit.kind).toBe("stock-vault-deposit");
    expect(deposit.params.approvals).toEqual([{ token: d.contracts.usdg, spender: v.router, amount: "500000000" }]);
    expect(BigInt(deposit.params.expectedShares)).toBeGreaterThan(0n);
    await sendAll(deposit);
    const shares = (await balanceOf(v.address)) - sharesBefore;
    expect(shares).toBeGreaterThanOrEqual(BigInt(deposit.params.minShares));

    const usdgBefore = await balanceOf(d.contracts.usdg!);
    const withdraw = await prepared("vault-withdraw", { vault: v.address, shares: formatUnits(shares / 2n, 18), mode: "usdg" });
    expect(withdraw.kind).toBe("stock-vault-withdraw");
    expect(withdraw.params).toMatchObject({ mode: "usdg", receiver: owner, router: v.router, aggregator: d.contracts.aggregator });
    expect(withdraw.params.approvals).toEqual([{ token: v.address, spender: v.router, amount: (shares / 2n).toString() }]);
    await sendAll(withdraw);
    expect((await balanceOf(d.contracts.usdg!)) - usdgBefore).toBeGreaterThanOrEqual(BigInt(withdraw.params.minUsdgOut));
    expect(await balanceOf(v.address)).toBe(sharesBefore + shares - shares / 2n);
  });

  it("a closed stock-token vault refuses with its reason before any route; up vaults have no usdg mode", async () => {
    const closed = d.vaults.find((v) => v.family === "stock-token" && v.token.toLowerCase() === tokenBy("tsNVDA").toLowerCase())!;
    expectCode(await prepare("vault-deposit", { vault: closed.address, amount: "100" }), 422, "DEPOSITS_CLOSED");
    const up = d.vaults.find((v) => v.family === "up" && v.agent)!;
    expectCode(await prepare("vault-withdraw", { vault: up.address, shares: "1", mode: "usdg" }), 400, "INVALID_REQUEST");
    // The stock vault router moved to another aggregator: the service's routes are for the old one.
    const open = stockVault();
    await asAdmin(open.router!, stockVaultRouterAbi, "setAggregator", [admin.address]);
    try {
      expectCode(await prepare("vault-deposit", { vault: open.address, amount: "100" }), 503, "AGGREGATOR_CHANGED");
      expectCode(await prepare("vault-withdraw", { vault: open.address, shares: "0.001", mode: "usdg" }), 503, "AGGREGATOR_CHANGED");
    } finally {
      await asAdmin(open.router!, stockVaultRouterAbi, "setAggregator", [d.contracts.aggregator!]);
    }
    expect((await prepare("vault-deposit", { vault: open.address, amount: "100" })).status).toBe(200);
  });

  it("vault-withdraw mode usdg from a merged vault: redeem with a route, recipient the vault", async () => {
    const v = d.vaults.find((x) => x.family === "merged" && x.agent && x.token.toLowerCase() === tokenBy("WETH").toLowerCase())!;
    const before = await balanceOf(v.address);
    await sendAll(await prepared("vault-deposit", { vault: v.address, amount: "200" }));
    // The devnet's keeper settles the request within seconds.
    const deadline = Date.now() + 60_000;
    while ((await balanceOf(v.address)) <= before) {
      if (Date.now() > deadline) throw new Error("the deposit was not settled within 60 s");
      await new Promise((r) => setTimeout(r, 500));
    }
    const shares = (await balanceOf(v.address)) - before;
    const usdgBefore = await balanceOf(d.contracts.usdg!);
    const withdraw = await prepared("vault-withdraw", { vault: v.address, shares: formatUnits(shares, 12), mode: "usdg" });
    expect(withdraw.kind).toBe("vault-withdraw");
    const call = decodeFunctionData({ abi: mergedVaultAbi, data: withdraw.steps[0]!.data });
    expect(call.functionName).toBe("redeem");
    expect(call.args[1]).toBe(owner);
    await sendAll(withdraw);
    expect((await balanceOf(d.contracts.usdg!)) - usdgBefore).toBeGreaterThanOrEqual(BigInt(withdraw.params.minUsdgOut));
  });
});

describe("basket refusals, each by a real case", () => {
  // An owner short of the paid token is no refusal (200 with issues.balance: test/e2e/prepare-issues.test.ts).
  it("basket-buy: UNKNOWN_BASKET, BASKET_SELL_ONLY, BASKET_PAUSED, BAD_TOKEN, NATIVE_ETH_IN, AMOUNT_TOO_SMALL, PRICE_IMPACT_TOO_HIGH", async () => {
    expectCode(await prepare("basket-buy", { basket: "NOPE", amount: "10" }), 404, "UNKNOWN_BASKET");
    expectCode(await prepare("basket-buy", { basket: tokenBy("WETH"), amount: "10" }), 404, "UNKNOWN_BASKET");
    // OLDALT is unlisted: by symbol it is unknown, by address it is sell-only.
    expectCode(await prepare("basket-buy", { basket: basketBy("OLDALT"), amount: "10" }), 422, "BASKET_SELL_ONLY");
    expectCode(await prepare("basket-buy", { basket: "UTIL", amount: "10" }), 422, "BASKET_PAUSED");
    expectCode(await prepare("basket-buy", { basket: "BLUE", amount: "10", payWith: "LINK" }), 422, "BAD_TOKEN");
    expectCode(await prepare("basket-buy", { basket: "BLUE", amount: "10", payWith: "ETH" }), 422, "NATIVE_ETH_IN");
    expectCode(await prepare("basket-buy", { basket: "BLUE", amount: "0.000001" }), 422, "AMOUNT_TOO_SMALL");
    // MEMES holds WIF2 (400k USDG a side) at 40%: 100,000 USDG moves it by far more than 3%.
    const impact = await prepare("basket-buy", { basket: "MEMES", amount: "100000" });
    expectCode(impact, 422, "PRICE_IMPACT_TOO_HIGH");
    expect(impact.body.details.limitUsd).toBeLessThan(impact.body.details.priceUsd);
    expectCode(await prepare("basket-buy", { basket: "BLUE", amount: "10", slippageBps: 0 }), 400, "INVALID_REQUEST");
  });

  it("TOKEN_FROZEN: the owner frozen on the paid token", async () => {
    const wif = tokenBy("WIF2");
    await asAdmin(wif, testTokenAbi, "setFrozen", [owner, true]);
    try {
      const frozen = await prepare("basket-buy", { basket: "MEMES", amount: "10", payWith: "WIF2" });
      expectCode(frozen, 422, "TOKEN_FROZEN");
      expect(frozen.body.details.token).toBe(wif);
    } finally {
      await asAdmin(wif, testTokenAbi, "setFrozen", [owner, false]);
    }
  });

  it("TOKEN_PAUSED: a paused basket token refuses basket-buy (paid in USDG or in it) and basket-make", async () => {
    // DOGE2: in MEMES, on the trade list, no vault or seeded strategy on it, no other test pauses it.
    // While paused every transfer reverts, the market simulator's step too: keep the window short
    // (the three prepares run together) and unpause in finally.
    const doge = tokenBy("DOGE2");
    const make = {
      name: `Paused ${tag}`,
      symbol: `PZ${tag}`,
      tokens: [
        { token: "USDG", weightPct: 50 },
        { token: "DOGE2", weightPct: 50 },
      ],
      amount: "30",
    };
    await asAdmin(doge, testTokenAbi, "setPaused", [true]);
    let answers: Answer[];
    let transfer: unknown;
    try {
      expect(await chain.readContract({ address: doge, abi: testTokenAbi, functionName: "paused" })).toBe(true);
      [transfer, ...answers] = await Promise.all([
        // The token itself refuses every transfer while paused. No retries: the devnet answers a revert
        // with -32603, which viem would retry for ~1 s, keeping the token paused that much longer.
        createPublicClient({ chain: devnetAt(stack.rpcUrl), transport: http(stack.rpcUrl, { retryCount: 0 }) })
          .simulateContract({ address: doge, abi: testTokenAbi, functionName: "transfer", args: [admin.address, 0n], account: owner })
          .catch((e: Error) => e),
        prepare("basket-buy", { basket: "MEMES", amount: "10" }),
        prepare("basket-buy", { basket: "MEMES", amount: "10", payWith: "DOGE2" }),
        prepare("basket-make", make),
      ]);
    } finally {
      await asAdmin(doge, testTokenAbi, "setPaused", [false]);
    }
    expect(String(transfer)).toMatch(/TOKEN_PAUSED/);
    for (const a of answers) {
      expectCode(a, 422, "TOKEN_PAUSED");
      expect(a.body.details.token).toBe(doge);
    }
    // Unpaused, the same requests prepare: the refusal was the pause.
    expect((await prepare("basket-buy", { basket: "MEMES", amount: "10" })).status).toBe(200);
    expect((await prepare("basket-make", make)).status).toBe(200);
  });

  it("AGGREGATOR_CHANGED (503) while the zap uses another aggregator; NOT_DEPLOYED and ZAP_UNAVAILABLE without the contracts", async () => {
    const zap = d.contracts.basketZap!;
    await asAdmin(zap, basketZapAbi, "setAggregator", [admin.address]);
    try {
      expectCode(await prepare("basket-buy", { basket: "BLUE", amount: "10" }), 503, "AGGREGATOR_CHANGED");
    } finally {
      await asAdmin(zap, basketZapAbi, "setAggregator", [d.contracts.aggregator!]);
    }
    const { basketZap: _z, ...noZap } = d.contracts;
    const withoutZap = testApp({ db, redis, reads, deployments: { ...d, contracts: noZap }, client: local.deps.client });
    expectCode(await prepare("basket-buy", { basket: "BLUE", amount: "10" }, withoutZap), 503, "NOT_DEPLOYED");
    const { aggregator: _a, ...noAggregator } = d.contracts;
    const withoutAggregator = testApp({ db, redis, reads, deployments: { ...d, contracts: noAggregator }, client: local.deps.client });
    expectCode(await prepare("basket-buy", { basket: "BLUE", amount: "10" }, withoutAggregator), 503, "ZAP_UNAVAILABLE");
  });

  it("the external aggregator's own behaviour: LEG_MINIMUM_TOO_LOW, ROUTE_TOO_LARGE, BASKET_NO_ROUTE, SELL_REFUSED, MAKE_REFUSED", async () => {
    expect(await withAggregator(dev(), "basket-buy", { basket: "BLUE", amount: "20" })).toBe("ok");
    expect(await withAggregator(wideMinimum(), "basket-buy", { basket: "BLUE", amount: "20" })).toBe("LEG_MINIMUM_TOO_LOW");
    // slippageBps 500 allows the aggregator's 5%.
    expect(await withAggregator(wideMinimum(), "basket-buy", { basket: "BLUE", amount: "20", slippageBps: 500 })).toBe("ok");
    expect(await withAggregator(oversized(), "basket-buy", { basket: "BLUE", amount: "20" })).toBe("ROUTE_TOO_LARGE");
    expect(await withAggregator(noRouteTo(tokenBy("WBTC")), "basket-buy", { basket: "BLUE", amount: "20" })).toBe("BASKET_NO_ROUTE");
    // The seeded early buyer is wallet 3; wallet 1 buys a little BLUE to sell.
    await sendAll(await prepared("basket-buy", { basket: "BLUE", amount: "50" }));
    expect(await withAggregator(overstated(), "basket-sell", { basket: "BLUE", all: true })).toBe("SELL_REFUSED");
    expect(await withAggregator(wideMinimum(), "basket-sell", { basket: "BLUE", all: true })).toBe("LEG_MINIMUM_TOO_LOW");
    const make = {
      name: `Refused ${tag}`,
      symbol: `RF${tag}`,
      tokens: [
        { token: "USDG", weightPct: 50 },
        { token: "LINK", weightPct: 50 },
      ],
      amount: "40",
    };
    expect(await withAggregator(overstated(), "basket-make", make)).toBe("MAKE_REFUSED");
    expect(await withAggregator(oversized(), "basket-make", make)).toBe("ROUTE_TOO_LARGE");
    expect(await withAggregator(noRouteTo(tokenBy("LINK")), "basket-make", make)).toBe("BASKET_NO_ROUTE");
    expect(await withAggregator(wideMinimum(), "basket-make", make)).toBe("LEG_MINIMUM_TOO_LOW");
  });

  it("basket-make: the shape, name, symbol and deposit rules", async () => {
    const good = {
      name: `Good ${tag}`,
      symbol: `GD${tag}`,
      tokens: [
        { token: "USDG", weightPct: 50 },
        { token: "LINK", weightPct: 50 },
      ],
      amount: "30",
    };
    const cases: [Record<string, unknown>, number, string][] = [
      [
        {
          tokens: [
            { token: "ETH", weightPct: 50 },
            { token: "USDG", weightPct: 50 },
          ],
        },
        422,
        "NATIVE_ETH_TOKEN",
      ],
      [
        {
          tokens: [
            { token: "NOPE", weightPct: 50 },
            { token: "USDG", weightPct: 50 },
          ],
        },
        422,
        "UNKNOWN_TOKEN",
      ],
      [
        {
          tokens: [
            { token: tokenBy("SCAM"), weightPct: 50 },
            { token: "USDG", weightPct: 50 },
          ],
        },
        422,
        "NOT_ON_TRADE_LIST",
      ],
      [
        {
          tokens: [
            { token: "LINK", weightPct: 50 },
            { token: tokenBy("LINK"), weightPct: 50 },
          ],
        },
        422,
        "DUPLICATE_TOKEN",
      ],
      [{ tokens: [{ token: "USDG", weightPct: 100 }] }, 422, "TOKEN_COUNT"],
      [
        {
          tokens: [
            { token: "LINK", weightPct: 50 },
            { token: "SOLX", weightPct: 50 },
          ],
        },
        422,
        "NO_ANCHOR",
      ],
      [
        {
          tokens: [
            { token: "USDG", weightPct: 99.5 },
            { token: "LINK", weightPct: 0.5 },
          ],
        },
        422,
        "WEIGHT_TOO_SMALL",
      ],
      [
        {
          tokens: [
            { token: "USDG", weightPct: 50 },
            { token: "LINK", weightPct: 40 },
          ],
        },
        422,
        "WEIGHTS_SUM",
      ],
      [{ swapFeePct: 0.5 }, 422, "MAKE_FEE"],
      [{ name: "" }, 422, "BAD_NAME"],
      [{ name: "Official Blue" }, 422, "NAME_NOT_ALLOWED"],
      [{ name: "Chainlink Token" }, 422, "NAME_IS_TOKEN"],
      [{ symbol: "B MIX" }, 422, "BAD_SYMBOL"],
      [{ symbol: "tsMIX" }, 422, "RESERVED_SYMBOL"],
      [{ symbol: "USD" }, 422, "SYMBOL_NOT_ALLOWED"],
      [{ symbol: "link" }, 422, "SYMBOL_IS_TOKEN"],
      [{ symbol: "blue" }, 422, "SYMBOL_TAKEN"],
      [{ amount: "10" }, 422, "DEPOSIT_TOO_SMALL"],
      [{ payWith: "LINK" }, 422, "BAD_DEPOSIT_TOKEN"],
      [{ payWith: "ETH" }, 422, "NATIVE_ETH_IN"],
      // THIN (20k USDG a side) at 90%: a 5,000 USDG first deposit moves it by far more than 3%.
      [
        {
          tokens: [
            { token: "USDG", weightPct: 10 },
            { token: "THIN", weightPct: 90 },
          ],
          amount: "5000",
        },
        422,
        "PRICE_IMPACT_TOO_HIGH",
      ],
    ];
    for (const [change, status, code] of cases) {
      const a = await prepare("basket-make", { ...good, ...change });
      expect({ change, status: a.status, code: a.body.code }, JSON.stringify(a.body)).toEqual({ change, status, code });
    }
    const tooSmall = await prepare("basket-make", { ...good, amount: "10" });
    expect(tooSmall.body.details).toEqual({ minimum: "25000000", unit: "USDG" });
    // 503s: no maker deployed; the trade list not loaded yet (the indexer has not charted a token).
    const { basketMaker: _m, ...noMaker } = d.contracts;
    expectCode(
      await prepare("basket-make", good, testApp({ db, redis, reads, deployments: { ...d, contracts: noMaker }, client: local.deps.client })),
      503,
      "MAKER_NOT_DEPLOYED",
    );
    expectCode(
      await prepare("basket-make", good, testApp({ db, redis, reads: noProjections(), deployments: d, client: local.deps.client })),
      503,
      "TRADE_LIST_LOADING",
    );
    // The good one is prepared (not sent).
    expect((await prepare("basket-make", good)).status).toBe(200);
  });
});

describe("POST /v1/agent/baskets/plan", () => {
  it("a plan: anchor added, even weights, kinds, trade list, liquidity classes, look-back, name, same tokens, maker, ready", async () => {
    const { status, body } = await plan({
      tokens: [{ token: "WETH" }, { token: "WBTC" }],
      anchor: "USDG",
      swapFeePct: 0.3,
      name: "Blue Again",
      symbol: `BA${tag}`,
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const p = body.data;
    // WETH is an anchor already: nothing is added, WETH gets 10%.
    expect(p.tokens.map((t: any) => [t.symbol, t.weightPct, t.anchor, t.added])).toEqual([
      ["WETH", 10, true, false],
      ["WBTC", 90, false, false],
    ]);
    expect(p.tokens.every((t: any) => t.onTradeList && t.kind === "crypto" && t.liquidity === "deep")).toBe(true);
    expect(p).toMatchObject({ anchor: "USDG", swapFeePct: 0.3, maker: "ready", ready: true });
    expect(p.name).toMatchObject({ name: "Blue Again", symbol: `BA${tag}`, problem: null });
    expect(p.lookback.state).toBe("ok");
    expect(p.lookback).toMatchObject({ prices: "chain", growthPct: null });
    expect(p.lookback.days).toBeGreaterThan(0.5);
    expect(p.lookback.windows.length).toBeGreaterThan(0);
    expect(p.lookback.trades).toBeGreaterThan(0);
    expect(p.lookback.feesPer1kUsd).toBeGreaterThan(0);

    const same = await plan(
      {
        tokens: [
          { token: "USDG", weightPct: 20 },
          { token: "WETH", weightPct: 40 },
          { token: "WBTC", weightPct: 40 },
        ],
      },
      "10.0.0.2",
    );
    expect(same.status).toBe(200);
    expect(same.body.data.sameTokens.map((b: any) => b.symbol)).toEqual(["BLUE"]);

    const thin = await plan({ tokens: [{ token: "THIN" }, { token: "tsAAPL" }], symbol: "tsTHIN" }, "10.0.0.3");
    expect(thin.status).toBe(200);
    const t = thin.body.data;
    expect(t.tokens.map((x: any) => [x.symbol, x.weightPct, x.added])).toEqual([
      ["THIN", 45, false],
      ["tsAAPL", 45, false],
      ["USDG", 10, true],
    ]);
    expect(t.tokens[0].liquidity).toBe("thin");
    expect(t.tokens[0].liquidityCostPct).toBeGreaterThanOrEqual(2);
    expect(t.tokens[1].kind).toBe("stock");
    expect(t.name.problem.code).toBe("RESERVED_SYMBOL");
    expect(t.ready).toBe(false);

    const stocks = await plan({ tokens: [{ token: "tsAAPL" }, { token: "tsSPY" }, { token: "USDG" }], days: 1 }, "10.0.0.4");
    expect(stocks.status).toBe(200);
    expect(typeof stocks.body.data.lookback.growthPct).toBe("number");

    const unlisted = await plan({ tokens: [{ token: tokenBy("SCAM") }, { token: "USDG" }] }, "10.0.0.5");
    expect(unlisted.status).toBe(200);
    expect(unlisted.body.data.tokens[0]).toMatchObject({ symbol: null, onTradeList: false, kind: "unclassified" });
    expect(unlisted.body.data.ready).toBe(false);
  });

  it("the plan's 422 codes", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tokens: [{ token: "NOPE" }] }, "UNKNOWN_TOKEN"],
      [{ tokens: [{ token: "ETH" }] }, "NATIVE_ETH_TOKEN"],
      [{ tokens: [{ token: "LINK" }, { token: "link" }] }, "DUPLICATE_TOKEN"],
      [{ tokens: [] }, "TOKEN_COUNT"],
      [{ tokens: ["WETH", "WBTC", "SOLX", "LINK", "GAS", "ORCL", "DOGE2", "WIF2", "PEPE2"].map((token) => ({ token })) }, "TOKEN_COUNT"],
      [{ tokens: [{ token: "LINK", weightPct: 50 }, { token: "USDG" }] }, "WEIGHTS_PARTIAL"],
      [
        {
          tokens: [
            { token: "LINK", weightPct: 50 },
            { token: "USDG", weightPct: 40 },
          ],
        },
        "WEIGHTS_SUM",
      ],
      [
        {
          tokens: [
            { token: "LINK", weightPct: 99.5 },
            { token: "USDG", weightPct: 0.5 },
          ],
        },
        "WEIGHT_TOO_SMALL",
      ],
      [{ tokens: [{ token: "LINK" }], swapFeePct: 2 }, "MAKE_FEE"],
    ];
    let n = 10;
    for (const [body, code] of cases) {
      const a = await plan(body, `10.0.1.${n++}`);
      expect({ code: a.body.code, status: a.status }, JSON.stringify(a.body)).toEqual({ code, status: 422 });
    }
  });

  it("6 a minute per client: the 7th is 429 RATE_LIMITED", async () => {
    const app = testApp({ db, redis, reads, deployments: d, client: local.deps.client, rateLimit: { keyPrefix: `${randomPrefix()}:rl` } });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await plan({ tokens: [{ token: "LINK" }] }, "10.0.2.1", app)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    // Another client is not limited by it.
    expect((await plan({ tokens: [{ token: "LINK" }] }, "10.0.2.2", app)).status).toBe(200);
  });

  it("one at a time per client: a second plan while the first runs is 429 RATE_LIMITED", async () => {
    const app = testApp({ db, redis, reads, deployments: d, client: local.deps.client, rateLimit: { keyPrefix: `${randomPrefix()}:rl` } });
    const body = { tokens: ["WETH", "WBTC", "SOLX", "LINK", "GAS", "ORCL", "DOGE2"].map((token) => ({ token })), days: 2 };
    const [a, b] = await Promise.all([plan(body, "10.0.3.1", app), plan(body, "10.0.3.1", app)]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    expect([a.body.code, b.body.code]).toContain("RATE_LIMITED");
  });
});
