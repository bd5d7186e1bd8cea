// Refusals an agent can act on, on the running stack (devnet + indexer): each ladder-strategy part refusal
// names the part, an amount's exact minimum as {minimum, unit} and a price bound as {priceUsd, limitUsd};
// CAPACITY says the room left under the vault's cap in its message; every refusal's details are checked
// against the spec's fields and units (test/helpers/http.ts); basket-buy's NOT_FOUND is reachable; the reads document BUSY on their 429; and a
// stock-only basket's look-back is priced by the market. Nothing is sent: refusals need no funds. Every
// answer is validated against the served OpenAPI document.
import { formatUnits, parseUnits, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ladderStrategyAbi, marketRegistryAbi, mergedVaultAbi, upDepositQueueAbi } from "../../abis/index.js";
import type { DeployedVault, Deployments } from "../../adapters/chain/deployments.js";
import type { testApp } from "../api/support.js";
import type { fetchOpenApi, ResponseValidator } from "../helpers/openapi-validate.js";
import { postChecked } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { tokenIn } from "../helpers/wallets.js";

const stack = inject("stack");
const owner = privateKeyToAccount(generatePrivateKey()).address;

let opened: StackApp;
let d: Deployments;
let chain: PublicClient;
let local: ReturnType<typeof testApp>;
let doc: Awaited<ReturnType<typeof fetchOpenApi>>;
let validator: ResponseValidator;

beforeAll(async () => {
  opened = await openStackApp(stack);
  ({ d, chain, app: local, doc, validator } = opened);
});

afterAll(() => opened?.close());

const post = (path: string, body: Record<string, unknown>, client = "10.9.0.1") => postChecked(local.app, validator, path, body, { "X-Forwarded-For": client });
const prepare = (kind: string, body: Record<string, unknown>) => post(`/v1/agent/prepare/${kind}`, { owner, ...body });

const tokenBy = (symbol: string) => tokenIn(d, symbol);
const vaultOf = (family: string, symbol: string): DeployedVault =>
  d.vaults.find((v) => v.family === family && v.token.toLowerCase() === tokenBy(symbol).address.toLowerCase())!;
const ladder = () => d.contracts.ladderStrategy!;
const readLadder = <T>(functionName: string) => chain.readContract({ address: ladder(), abi: ladderStrategyAbi, functionName } as never) as Promise<T>;
const spotX18 = (symbol: string) =>
  chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [tokenBy(symbol).address] });
/** A priceX18 as the body's decimal price. */
const price = (x18: bigint) => formatUnits(x18, 18);
/** The price now times `factor`, as priceX18. */
const at = (spot: bigint, factor: number) => (spot * BigInt(Math.round(factor * 10_000))) / 10_000n;
/** Within `pct` percent of each other (the devnet market moves every second). */
const near = (a: bigint, b: bigint, pct: number) => expect(Number(a > b ? a - b : b - a) / Number(b)).toBeLessThan(pct / 100);

describe("ladder-strategy part refusals: an amount as {part, minimum, unit}, a price bound as {part, priceUsd, limitUsd}", () => {
  it("WRONG_SIDE names the part, the price now (priceUsd) and the line it crossed (limitUsd), USDG per whole token", async () => {
    const spot = await spotX18("WETH");
    const spotUsd = Number(formatUnits(spot, 18));
    const below = { buyPrice: price(at(spot, 0.9)), sellPrice: price(at(spot, 0.99)), amount: "20" };
    const buyAbove = { buyPrice: price(at(spot, 1.1)), sellPrice: price(at(spot, 1.2)), amount: "20" };
    const buy = await prepare("ladder-strategy", { action: "open", token: "WETH", legs: [below, buyAbove] });
    expect([buy.status, buy.body.code]).toEqual([422, "WRONG_SIDE"]);
    const b = buy.body.details;
    expect(Object.keys(b).sort()).toEqual(["limitUsd", "part", "priceUsd"]);
    expect(b.part).toBe(2);
    expect(b.limitUsd).toBeCloseTo(Number(buyAbove.buyPrice), 6);
    expect(Math.abs(b.priceUsd / spotUsd - 1)).toBeLessThan(0.02); // the devnet market moves every second
    expect(b.priceUsd).toBeLessThan(b.limitUsd);
    expect(buy.body.error).toMatch(/^part 2: .*at most priceX18 \d+/);

    const sellBelow = { buyPrice: price(at(spot, 0.8)), sellPrice: price(at(spot, 0.9)), amount: "0.01" };
    const sell = await prepare("ladder-strategy", { action: "open", token: "WETH", sellFirst: true, legs: [sellBelow] });
    expect([sell.status, sell.body.code]).toEqual([422, "WRONG_SIDE"]);
    const s = sell.body.details;
    expect(Object.keys(s).sort()).toEqual(["limitUsd", "part", "priceUsd"]);
    expect(s.limitUsd).toBeCloseTo(Number(sellBelow.sellPrice), 6);
    expect(s.priceUsd).toBeGreaterThan(s.limitUsd);
    expect(sell.body.error).toMatch(/^part 1: .*at least priceX18 \d+/);
  });

  it("FIRST_TOO_SMALL, FOLLOW_UP_TOO_SMALL and NO_TRIP_HEADROOM give the exact minimum in the part's unit", async () => {
    const [spot, minFirst, minFollowUp, feeBps] = await Promise.all([
      spotX18("WETH"),
      readLadder<bigint>("minFirstLegUsdg"),
      readLadder<bigint>("minFollowUpUsdg"),
      readLadder<number>("feeBps"),
    ]);
    const buyX18 = at(spot, 0.9);
    const sellX18 = at(spot, 0.99);
    const first = { buyPrice: price(buyX18), sellPrice: price(sellX18), amount: "20" };

    const followUp = await prepare("ladder-strategy", { action: "open", token: "WETH", legs: [first, { ...first, amount: formatUnits(minFollowUp - 1n, 6) }] });
    expect(followUp.body).toMatchObject({ code: "FOLLOW_UP_TOO_SMALL", details: { part: 2, minimum: minFollowUp.toString(), unit: "USDG" } });

    // Sell-first: the token worth the minimum at the part's sell line, rounded up.
    const sellLine = at(spot, 1.2);
    const tokenMinimum = (minFirst * 10n ** 12n * 10n ** 18n + sellLine - 1n) / sellLine;
    const sellFirst = await prepare("ladder-strategy", {
      action: "open",
      token: "WETH",
      sellFirst: true,
      legs: [{ buyPrice: price(at(spot, 1.05)), sellPrice: price(sellLine), amount: formatUnits(tokenMinimum - 1n, 18) }],
    });
    expect(sellFirst.body).toMatchObject({ code: "FIRST_TOO_SMALL", details: { part: 1, minimum: tokenMinimum.toString(), unit: "token" } });

    // The sell line must clear twice the fee over the buy line: the lowest that passes, USDG per whole token
    // (and as priceX18 in the message).
    const minimumSell = (buyX18 * (10_000n + 2n * BigInt(feeBps))) / 10_000n + 1n;
    const tight = await prepare("ladder-strategy", { action: "open", token: "WETH", legs: [{ ...first, sellPrice: price(buyX18 + 1n) }] });
    expect(tight.body).toMatchObject({ code: "NO_TRIP_HEADROOM", details: { part: 1 } });
    expect(tight.body.details.minimum).toBeUndefined();
    expect(tight.body.details.limitUsd).toBeCloseTo(Number(formatUnits(minimumSell, 18)), 9);
    expect(tight.body.details.priceUsd).toBeCloseTo(Number(formatUnits(buyX18 + 1n, 18)), 9);
    expect(tight.body.error).toContain(`priceX18 ${minimumSell}`);
  });
});

describe("CAPACITY says how much room is left", () => {
  async function roomOf(v: DeployedVault): Promise<bigint> {
    const read = (functionName: "depositCap" | "totalAssets" | "queuedAssets") => chain.readContract({ address: v.address, abi: mergedVaultAbi, functionName });
    const queued =
      v.family === "up" ? chain.readContract({ address: v.depositQueue!, abi: upDepositQueueAbi, functionName: "queuedAssets" }) : read("queuedAssets");
    const [cap, total, q] = await Promise.all([read("depositCap"), read("totalAssets"), queued]);
    return cap - total - q;
  }

  for (const [family, symbol] of [
    ["merged", "WBTC"],
    ["up", "LINK"],
  ] as const) {
    it(`${family}: a deposit over the cap says the room left in its message (whole and base units), and no detail outside the spec`, async () => {
      const v = vaultOf(family, symbol);
      const room = await roomOf(v);
      const amount = room + parseUnits("1000", 6);
      const { status, body } = await prepare("vault-deposit", { vault: v.address, amount: formatUnits(amount, 6) });
      expect([status, body.code], JSON.stringify(body)).toEqual([422, "CAPACITY"]);
      expect(body.details).toBeUndefined();
      const [, whole, base] = /: ([\d.]+) USDG left \((\d+) base units\)/.exec(body.error) ?? [];
      const left = BigInt(base!);
      expect(formatUnits(left, 6)).toBe(whole);
      expect(left).toBeLessThan(amount);
      near(left, room, 1); // a pair vault's assets move with its token's price
    });
  }
});

describe("basket-buy's 404s", () => {
  it("an address with no contract is NOT_FOUND; a contract that is no basket, or an unknown symbol, UNKNOWN_BASKET", async () => {
    const nothing = await prepare("basket-buy", { basket: "0x000000000000000000000000000000000000dEaD", amount: "10" });
    expect([nothing.status, nothing.body.code]).toEqual([404, "NOT_FOUND"]);
    expect(nothing.body.error).toContain("Nothing is deployed at");
    const token = await prepare("basket-buy", { basket: tokenBy("WETH").address, amount: "10" });
    expect([token.status, token.body.code]).toEqual([404, "UNKNOWN_BASKET"]);
    const symbol = await prepare("basket-buy", { basket: "NOPE", amount: "10" });
    expect([symbol.status, symbol.body.code]).toEqual([404, "UNKNOWN_BASKET"]);
    // Both are documented on the route.
    const notFound = (doc.paths["/v1/agent/prepare/basket-buy"] as any).post.responses["404"].description as string;
    expect(notFound).toContain("`NOT_FOUND`");
    expect(notFound).toContain("`UNKNOWN_BASKET`");
  });
});

describe("the reads' 429", () => {
  it("every read route documents RATE_LIMITED and BUSY, with Retry-After", () => {
    const reads = Object.entries(doc.paths as Record<string, Record<string, any>>).filter(([path, item]) => item.get && path.startsWith("/v1/"));
    expect(reads.length).toBeGreaterThan(20);
    for (const [path, item] of reads) {
      const refused = item.get.responses["429"];
      expect(refused, path).toBeDefined();
      expect(refused.description, path).toContain("`RATE_LIMITED`");
      expect(refused.description, path).toContain("`BUSY`");
      expect(refused.headers["Retry-After"], path).toBeDefined();
    }
  });
});

describe("the basket look-back's prices", () => {
  it("a stock-only basket is simulated over market prices with its growth; any other over chain prices, no growth", async () => {
    const stocks = await post("/v1/agent/baskets/plan", { tokens: [{ token: "tsAAPL" }, { token: "tsSPY" }, { token: "USDG" }] }, "10.9.0.2");
    expect(stocks.status, JSON.stringify(stocks.body)).toBe(200);
    const s = stocks.body.data.lookback;
    expect(s).toMatchObject({ state: "ok", prices: "market" });
    expect(typeof s.growthPct).toBe("number");
    // The growth is the simulated basket's own change at those prices: 1,000 USD became tvlUsd.
    expect(s.growthPct).toBeCloseTo((s.tvlUsd - 1000) / 10, 1);

    const mixed = await post("/v1/agent/baskets/plan", { tokens: [{ token: "tsAAPL" }, { token: "WETH" }, { token: "USDG" }] }, "10.9.0.3");
    expect(mixed.status).toBe(200);
    expect(mixed.body.data.lookback).toMatchObject({ state: "ok", prices: "chain", growthPct: null });
  });
});
