// Issue 21, items 3 and 4 on the running stack. A token born later: the admin (10) deploys a token the
// deployments file never heard of and opens its USDG market; a limit order, a ladder, a grid, a ladder
// strategy and a swap on it are prepared by address, signed and sent, indexed, and shown in activity and
// accounts. The refusals of addresses without a market or a token, and of an unverified symbol. An
// address the index has not reached resolves from the chain. And a grid-tokens line, posted as the grid
// prepare's body with `owner`, opens that grid (`amountUsdg`, with `amount` kept as its alias).
// The owner is a fresh key funded here by the admin, so no other file's wallet is disturbed.
import type { Kysely } from "kysely";
import { formatUnits, getAddress, parseEther, parseUnits, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ladderStrategyAbi, marketRegistryAbi, poolAbi, testTokenAbi } from "../../abis/index.js";
import { compileContracts } from "../../devnet/compile.js";
import { runGridScan } from "../../usecases/backtest-runs/scans.js";
import { chainFees } from "../../usecases/backtest-runs/schedule.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { marketTokenOf } from "../../usecases/prepare/resolve/tokens.js";
import type { PrepareContext } from "../../usecases/prepare/types.js";
import { randomPrefix, type testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { getData, postChecked, type Answer, until } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { mintAt, sendEthAt, sendStepsAt, testAccount, walletAt, writeAt } from "../helpers/wallets.js";

const stack = inject("stack");
const admin = testAccount(10);
const human = privateKeyToAccount(generatePrivateKey());
type Signer = typeof admin | typeof human;

let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let d: Deployments;
let chain: PublicClient;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;
const prefix = randomPrefix();

const walletOf = (acc: Signer) => walletAt(stack.rpcUrl, acc);
const lower = (a: string) => a.toLowerCase() as `0x${string}`;
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const usdg = () => d.contracts.usdg!;

const write = (from: Signer, call: Parameters<typeof writeAt>[3]) => writeAt(stack.rpcUrl, chain, from, call);

/** A TestToken the deployments file does not list (18 decimals), deployed by the admin. */
async function deployToken(symbol: string): Promise<Address> {
  const artifact = compileContracts().TestToken!;
  const hash = await walletOf(admin).deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [`Late ${symbol}`, symbol, 18, admin.address] });
  const receipt = await chain.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return getAddress(receipt.contractAddress!);
}

/** Opens the token's USDG market as the admin does, with `tokens` against `usdgUnits` of liquidity. */
async function openMarket(token: Address, tokens: bigint, usdgUnits: bigint): Promise<Address> {
  await write(admin, { address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "createPool", args: [token] });
  const pool = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "poolOf", args: [token] });
  await mintAt(stack.rpcUrl, chain, token, admin.address, tokens);
  await mintAt(stack.rpcUrl, chain, usdg(), admin.address, usdgUnits);
  await write(admin, { address: token, abi: testTokenAbi, functionName: "approve", args: [pool, tokens] });
  await write(admin, { address: usdg(), abi: testTokenAbi, functionName: "approve", args: [pool, usdgUnits] });
  await write(admin, { address: pool, abi: poolAbi, functionName: "addLiquidity", args: [tokens, usdgUnits] });
  return pool;
}

type Prepared = { id: string; kind: string; owner: Address; steps: { to: Address; data: Hex; value: string }[]; params: any };

const prepare = (kind: string, body: Record<string, unknown>): Promise<Answer> =>
  postChecked(t.app, validator, `/v1/agent/prepare/${kind}`, { owner: human.address, ...body });

async function prepared(kind: string, body: Record<string, unknown>): Promise<Prepared> {
  const { status, body: answer } = await prepare(kind, body);
  expect(status, `${kind}: ${JSON.stringify(answer).slice(0, 600)}`).toBe(200);
  return answer.data as Prepared;
}

const sendAll = (result: Prepared) => sendStepsAt(stack.rpcUrl, chain, human, result.steps, result.kind);

const getJson = (path: string) => getData(t.app, validator, path);

/** The registry's price now times `factor`, as the API's decimal USDG-per-token string. */
async function price(token: Address, factor: number): Promise<string> {
  const spot = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [token] });
  return formatUnits((spot * BigInt(Math.round(factor * 10_000))) / 10_000n, 18);
}

beforeAll(async () => {
  opened = await openStackApp(stack, { prefix, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ db, reads, d, chain, app: t, validator } = opened);
  t.clock.set(new Date()); // activity cursors are checked against this clock
  await sendEthAt(stack.rpcUrl, chain, human.address, parseEther("10"));
  await mintAt(stack.rpcUrl, chain, usdg(), human.address, parseUnits("10000", 6));
}, 120_000);

afterAll(() => opened?.close());

describe("a token born later, by address", () => {
  it("limit order, ladder, grid, ladder strategy and swap on a market opened after the deployments file", async () => {
    const symbol = `LATE${Math.floor(Math.random() * 1e6)}`;
    const token = await deployToken(symbol);
    expect(d.tokens.some((x) => same(x.address, token))).toBe(false);
    // 100,000 tokens against 200,000 USDG: 2 USDG a token.
    await openMarket(token, parseUnits("100000", 18), parseUnits("200000", 6));
    await until("the new market in the index", () =>
      reads.selectFrom("token").select("pool").where("address", "=", lower(token)).where("reserveUsdg", ">", 0n).executeTakeFirst(),
    );
    const listed = (await getJson(`/v1/tokens?q=${token}`)) as any[];
    expect(listed.map((x) => [x.address, x.verified, x.markets.limitOrders, x.markets.grids])).toEqual([[token, false, true, true]]);
    await write(admin, { address: d.contracts.ladderStrategy!, abi: ladderStrategyAbi, functionName: "listMarket", args: [token, false] });

    let cursor = (await getJson(`/v1/agent/accounts/${human.address}/activity`)).cursor as string;
    // By address, in any case: a limit order (lower case), a ladder, a grid, a ladder strategy, a swap.
    const order = await prepared("limit-order", { token: lower(token), side: "buy", amount: "30", price: await price(token, 0.8) });
    expect(order.kind).toBe("limit-order");
    await sendAll(order);
    const ladder = await prepared("ladder", {
      token,
      side: "buy",
      orders: [
        { amount: "20", price: await price(token, 0.7) },
        { amount: "20", price: await price(token, 0.6) },
      ],
    });
    await sendAll(ladder);
    const grid = await prepared("grid", { action: "open", token, buyPrice: await price(token, 0.9), sellPrice: await price(token, 1.2), amountUsdg: "40" });
    expect(grid.params).toMatchObject({ amountUsdg: "40" });
    await sendAll(grid);
    const strategy = await prepared("ladder-strategy", {
      action: "open",
      token,
      legs: [{ buyPrice: await price(token, 0.85), sellPrice: await price(token, 1.3), amount: "25" }],
    });
    await sendAll(strategy);
    const swap = await prepared("swap", { tokenIn: usdg(), tokenOut: token, amount: "15" });
    expect(swap.params.quote.warnings.join(" ")).toContain(token);
    const before = await chain.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [human.address] });
    await sendAll(swap);
    expect(await chain.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [human.address] })).toBeGreaterThan(before);

    // Indexed, and in accounts (with the token by address and its own symbol) and in activity.
    const account = await until("the orders, grid and ladder in accounts", async () => {
      const a = await getJson(`/v1/agent/accounts/${human.address}`);
      const onToken = (xs: any[]) => xs.filter((x) => x.token.address === token);
      return onToken(a.limitOrders).length === 3 && onToken(a.grids).length === 1 && onToken(a.ladderStrategies).length === 1 ? a : undefined;
    });
    expect(account.limitOrders.every((o: any) => o.token.symbol === symbol && o.side === "buy" && o.state === "open")).toBe(true);
    expect(account.grids[0]).toMatchObject({ token: { address: token, symbol } });
    const kinds = new Set<string>();
    await until("order.placed, grid.opened, ladder.opened and swap.executed in activity", async () => {
      const page = await getJson(`/v1/agent/accounts/${human.address}/activity?cursor=${encodeURIComponent(cursor)}`);
      cursor = page.cursor;
      for (const c of page.changes) kinds.add(c.kind);
      return ["order.placed", "grid.opened", "ladder.opened", "swap.executed"].every((k) => kinds.has(k));
    });
    const orders = await reads.selectFrom("limitOrder").select("id").where("owner", "=", lower(human.address)).where("token", "=", lower(token)).execute();
    expect(orders).toHaveLength(3);

    // An unverified token's symbol is its own: by symbol it is refused, with the address asked for.
    const bySymbol = await prepare("limit-order", { token: symbol, side: "buy", amount: "30", price: "1" });
    expect([bySymbol.status, bySymbol.body.code]).toEqual([422, "UNKNOWN_TOKEN"]);
    expect(bySymbol.body.error).toContain("address");
  });

  it("refuses a token without a market (MARKET_NOT_OPEN) and an address that is no token (UNKNOWN_TOKEN)", async () => {
    const bare = await deployToken(`BARE${Math.floor(Math.random() * 1e6)}`);
    const body = { side: "buy", amount: "30", price: "1" };
    for (const [kind, extra] of [
      ["limit-order", body],
      [
        "ladder",
        {
          side: "buy",
          orders: [
            { amount: "20", price: "1" },
            { amount: "20", price: "0.9" },
          ],
        },
      ],
      ["grid", { action: "open", buyPrice: "1", sellPrice: "2", amountUsdg: "20" }],
    ] as const) {
      const noMarket = await prepare(kind, { ...extra, token: bare });
      expect([kind, noMarket.status, noMarket.body.code]).toEqual([kind, 422, "MARKET_NOT_OPEN"]);
      const notToken = await prepare(kind, { ...extra, token: human.address });
      expect([kind, notToken.status, notToken.body.code]).toEqual([kind, 422, "UNKNOWN_TOKEN"]);
    }
    const quote = await prepare("grid", { action: "open", token: usdg(), buyPrice: "1", sellPrice: "2", amountUsdg: "20" });
    expect([quote.status, quote.body.code]).toEqual([422, "UNKNOWN_TOKEN"]);
  });

  it("resolves an address from the chain while the index cannot be read", async () => {
    const token = await deployToken(`RAW${Math.floor(Math.random() * 1e6)}`);
    await openMarket(token, parseUnits("1000", 18), parseUnits("1000", 6));
    const blind = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl, max: 1 }), viewsSchema: "no_such_views" });
    try {
      const ctx = { deployments: d, client: t.deps.client, reads: blind } as unknown as PrepareContext;
      expect(await marketTokenOf(ctx, lower(token))).toEqual({ address: token, symbol: expect.stringMatching(/^RAW/), decimals: 18 });
      await expect(marketTokenOf(ctx, "RAW1")).rejects.toMatchObject({ code: "UNKNOWN_TOKEN" });
    } finally {
      await blind.destroy();
    }
  });
});

describe("grid inputs named as the spec names them", () => {
  it("a grid-tokens line, posted with owner, prepares a grid that signs, sends and is indexed", async () => {
    const client = t.deps.client!;
    await runGridScan({ db, reads, deployments: d, now: () => new Date(), fees: chainFees(client, d), logger: t.deps.logger });
    const scan = await getJson("/v1/agent/grid/tokens?limit=10");
    const entry = (scan.tokens as any[]).find((e) => e.today !== null);
    expect(entry, "a scanned token with today's lines").toBeDefined();
    const line = entry.today;
    expect(line).toMatchObject({ action: "open", token: entry.token.address, amountUsdg: String(scan.amountUsd) });
    expect(entry.prepare.body).toMatchObject({
      action: "open",
      token: entry.token.address,
      buyPrice: line.buyPrice,
      sellPrice: line.sellPrice,
      amountUsdg: line.amountUsdg,
    });

    const result = await prepared("grid", { ...line });
    expect(result.params).toMatchObject({ amountUsdg: line.amountUsdg, buyPrice: line.buyPrice, sellPrice: line.sellPrice });
    await sendAll(result);
    // The x18 columns are not camel-cased by name (buy_price_x_18): pick the line's grid here.
    const row = await until("the line's grid in the index", async () =>
      (await reads.selectFrom("grid").selectAll().where("owner", "=", lower(human.address)).where("token", "=", lower(entry.token.address)).execute()).find(
        (g) => g.buyPriceX18 === parseUnits(line.buyPrice, 18),
      ),
    );
    expect(row.amountUsdg).toBe(parseUnits(line.amountUsdg, 6));
    expect(row.buyPriceX18).toBe(parseUnits(line.buyPrice, 18));
    expect(row.sellPriceX18).toBe(parseUnits(line.sellPrice, 18));
  });

  it("takes amount as amountUsdg's alias; both must agree; neither is INVALID_REQUEST naming amountUsdg", async () => {
    const weth = d.tokens.find((x) => x.symbol === "WETH")!.address;
    const lines = { action: "open", token: weth, buyPrice: await price(weth, 0.7), sellPrice: await price(weth, 1.4) };
    const alias = await prepared("grid", { ...lines, amount: "20" });
    expect(alias.params).toMatchObject({ amountUsdg: "20", amount: "20" });
    expect((await prepared("grid", { ...lines, amount: "20.0", amountUsdg: "20" })).params.amountUsdg).toBe("20");
    const differ = await prepare("grid", { ...lines, amount: "20", amountUsdg: "21" });
    expect([differ.status, differ.body.code, differ.body.details?.field]).toEqual([400, "INVALID_REQUEST", "amountUsdg"]);
    const neither = await prepare("grid", lines);
    expect([neither.status, neither.body.code, neither.body.details?.field]).toEqual([400, "INVALID_REQUEST", "amountUsdg"]);
  });
});
