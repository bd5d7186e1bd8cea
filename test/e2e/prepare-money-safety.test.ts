// Money safety of the bundles the API builds (not only the pure builders): a fast-check property drives
// POST /v1/agent/prepare/{kind} in-process against the running stack (its projections and its chain) with
// random valid requests of every kind served here, decodes every step of every answer with the ABIs in
// abis/, and checks, on its own reading as well as with the service's checker: every receiver, recipient
// and owner argument (an account call's inner call too) is the owner, the one approval (if any) is exactly
// the amount the request asked to use, every value is 0, walletSendCalls is for chain 0x1237 from the
// owner. Simulation refusals are allowed answers but must stay a minority. A second property adds a
// receiver or recipient that is not the owner to random requests: always 422 RECEIVER_NOT_OWNER.
//
// Wallet 13 trades for itself and, as the agent key, through wallet 12's agent account. The state the
// id-taking kinds need (vault shares, pending requests, orders, grids, ladders) is made in beforeAll.
import fc from "fast-check";
import type { Kysely } from "kysely";
import {
  decodeFunctionData,
  formatUnits,
  getAddress,
  parseEther,
  parseUnits,
  zeroAddress,
  type AbiParameter,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  agentAccountAbi,
  agentAccountFactoryAbi,
  ladderStrategyAbi,
  limitOrderHookAbi,
  marketRegistryAbi,
  mergedVaultAbi,
  stockVaultAbi,
  testTokenAbi,
  upWithdrawalQueueAbi,
  weth9Abi,
} from "../../abis/index.js";
import type { DeployedVault, Deployments } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import { allowListOf, decodeStepAll, moneySafetyViolations, walletSendCallsViolations } from "../../domain/bundles/index.js";
import { randomPrefix, type testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { postChecked, type Answer, until } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { balanceAt, mintAt, sendEthAt, sendStepsAt, testAccount, tokenIn, writeAt } from "../helpers/wallets.js";

const stack = inject("stack");
const admin = testAccount(10);
const human = testAccount(12);
const trader = testAccount(13);
const nobody = privateKeyToAccount(generatePrivateKey()).address;
const owner = trader.address;
type Signer = typeof trader;

/** The market tokens the requests use (each 18 decimals, listed, with an open ladder market). */
const TOKENS = ["WETH", "LINK", "WIF2", "DOGE2"] as const;
type Symbol = (typeof TOKENS)[number];

let opened: StackApp;
let reads: Kysely<Projections>;
let d: Deployments;
let chain: PublicClient;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;
const prefix = randomPrefix();

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const lower = (a: string) => a.toLowerCase() as `0x${string}`;
const tokenBy = (symbol: string) => tokenIn(d, symbol);
const vaultOf = (family: string, symbol: string): DeployedVault => d.vaults.find((v) => v.family === family && same(v.token, tokenBy(symbol).address))!;
const usdg = () => d.contracts.usdg!;
const balanceOf = (token: Address, who: Address) => balanceAt(chain, token, who);

const write = (from: Signer, call: Parameters<typeof writeAt>[3]) => writeAt(stack.rpcUrl, chain, from, call);

type Step = { to: Address; data: Hex; value: string };
const prepare = (kind: string, body: Record<string, unknown>): Promise<Answer> => postChecked(t.app, validator, `/v1/agent/prepare/${kind}`, body);

async function sendPrepared(kind: string, body: Record<string, unknown>, from: Signer = trader) {
  const { status, body: answer } = await prepare(kind, { owner: from.address, ...body });
  expect(status, `${kind}: ${JSON.stringify(answer).slice(0, 400)}`).toBe(200);
  await sendStepsAt(stack.rpcUrl, chain, from, answer.data.steps as Step[], kind);
}

// ---------------------------------------------------------------- the state the requests choose from

type State = {
  spot: Record<Symbol, number>;
  /** Shares wallet 13 holds, per vault address. */
  shares: Map<Address, bigint>;
  upMinimum: bigint;
  pendingDeposits: { vault: Address; id: bigint }[];
  pendingWithdrawals: { vault: Address; id: bigint }[];
  openOrders: bigint[];
  /** Claimable market orders and the claim that pays their owed side. */
  claimable: { id: bigint; action: "claim0" | "claim1" }[];
  grids: bigint[];
  ladders: bigint[];
  /** Closed with mask 0: its USDG waits to be collected. */
  closedLadder: bigint;
  account: Address;
  accountLadders: bigint[];
  accountClosedLadder: bigint;
};
let state: State;

const mergedVault = () => vaultOf("merged", "WETH");
const upVault = () => vaultOf("up", "LINK");
const stockVault = () => vaultOf("stock-token", "tsAAPL");
const lastId = async (table: "limitOrder" | "grid" | "ladder") =>
  (await reads.selectFrom(table).select("id").orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;
const lastRequest = async (table: "depositRequest" | "withdrawalRequest", queue: Address) =>
  (await reads.selectFrom(table).select("id").where("queue", "=", lower(queue)).orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;
async function setKeeper(vault: Address, keeper: Address) {
  await write(admin, { address: vault, abi: mergedVaultAbi, functionName: "setKeeper", args: [keeper] });
}

beforeAll(async () => {
  opened = await openStackApp(stack, { prefix, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ reads, d, chain, app: t, validator } = opened);

  // Funds: gas, USDG, every token the requests sell, WETH wrapped, and a stock token for the stock vault.
  for (const w of [human, trader]) {
    await sendEthAt(stack.rpcUrl, chain, w.address, parseEther("40"));
    await mintAt(stack.rpcUrl, chain, usdg(), w.address, parseUnits("200000", 6));
  }
  for (const symbol of ["LINK", "WIF2", "DOGE2"]) await mintAt(stack.rpcUrl, chain, tokenBy(symbol).address, owner, parseUnits("1000000", 18));
  await mintAt(stack.rpcUrl, chain, tokenBy("tsAAPL").address, owner, parseUnits("20", 18));
  await write(trader, { address: d.contracts.weth!, abi: weth9Abi, functionName: "deposit", value: parseEther("20") });

  const spot = {} as Record<Symbol, number>;
  for (const s of TOKENS)
    spot[s] =
      Number(await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [tokenBy(s).address] })) / 1e18;

  // Vault shares: settled deposits into the merged and up vaults, and the stock vault's own deposit.
  const merged = mergedVault();
  const up = upVault();
  const stock = stockVault();
  const before = await Promise.all([balanceOf(merged.address, owner), balanceOf(up.address, owner)]);
  await sendPrepared("vault-deposit", { vault: merged.address, amount: "3000" });
  await sendPrepared("vault-deposit", { vault: up.address, amount: "3000" });
  await write(trader, { address: tokenBy("tsAAPL").address, abi: testTokenAbi, functionName: "approve", args: [stock.address, parseUnits("10", 18)] });
  await write(trader, { address: stock.address, abi: stockVaultAbi, functionName: "deposit", args: [parseUnits("10", 18), owner] });
  await until(
    "the settled vault shares",
    async () => (await balanceOf(merged.address, owner)) > before[0]! && (await balanceOf(up.address, owner)) > before[1]!,
  );
  const upMinimum = await chain.readContract({ address: up.withdrawalQueue!, abi: upWithdrawalQueueAbi, functionName: "minimumShares" });

  // Pending requests: the vaults' keepers moved away (put back in afterAll) so that nothing settles them.
  await setKeeper(merged.address, nobody);
  await setKeeper(up.address, nobody);
  const pendingDeposits: State["pendingDeposits"] = [];
  const pendingWithdrawals: State["pendingWithdrawals"] = [];
  for (const [vault, queue] of [
    [merged.address, merged.address],
    [up.address, up.depositQueue!],
  ] as const) {
    const after = await lastRequest("depositRequest", queue);
    await sendPrepared("vault-deposit", { vault, amount: "25" });
    await sendPrepared("vault-deposit", { vault, amount: "30" });
    const rows = await until("the pending deposits", async () => {
      const r = await reads
        .selectFrom("depositRequest")
        .select("id")
        .where("queue", "=", lower(queue))
        .where("owner", "=", lower(owner))
        .where("id", ">", after)
        .where("state", "=", "pending")
        .execute();
      return r.length === 2 ? r : undefined;
    });
    pendingDeposits.push(...rows.map((r) => ({ vault, id: r.id })));
  }
  for (const [vault, queue, shares] of [
    [merged.address, merged.redeemQueue!, "1"],
    [up.address, up.withdrawalQueue!, formatUnits(upMinimum, 12)],
  ] as const) {
    const after = await lastRequest("withdrawalRequest", queue);
    await sendPrepared("vault-withdraw", { vault, shares, mode: "queue" });
    const row = await until("the pending withdrawal", () =>
      reads
        .selectFrom("withdrawalRequest")
        .select("id")
        .where("queue", "=", lower(queue))
        .where("owner", "=", lower(owner))
        .where("id", ">", after)
        .where("state", "=", "pending")
        .executeTakeFirst(),
    );
    pendingWithdrawals.push({ vault, id: row.id });
  }
  const shares = new Map<Address, bigint>();
  for (const v of [merged, up, stock]) shares.set(v.address, await balanceOf(v.address, owner));

  // Orders: three resting buys far under the price, and a market buy and sell (claimable on one side each).
  const hook = d.contracts.limitOrderHook!;
  let after = await lastId("limitOrder");
  for (const amount of ["20", "30", "40"]) await sendPrepared("limit-order", { token: "WIF2", side: "buy", amount, price: String(spot.WIF2 * 0.5) });
  await sendPrepared("limit-order", { token: "WIF2", side: "buy", amount: "25", type: "market" });
  await sendPrepared("limit-order", { token: "LINK", side: "sell", amount: "2", type: "market" });
  const orders = await until("the orders", async () => {
    const r = await reads.selectFrom("limitOrder").select(["id", "market"]).where("owner", "=", lower(owner)).where("id", ">", after).orderBy("id").execute();
    return r.length === 5 ? r : undefined;
  });
  const claimable: State["claimable"] = [];
  for (const o of orders.filter((x) => x.market)) {
    const onChain = await chain.readContract({ address: hook, abi: limitOrderHookAbi, functionName: "orders", args: [o.id] });
    claimable.push({ id: o.id, action: onChain.owed0 > 0n ? "claim0" : "claim1" });
  }

  // Grids and ladders of the wallet, one ladder closed with its funds left to collect.
  after = await lastId("grid");
  for (const amount of ["20", "25"])
    await sendPrepared("grid", { action: "open", token: "WIF2", buyPrice: String(spot.WIF2 * 0.5), sellPrice: String(spot.WIF2 * 1.8), amount });
  const grids = (
    await until("the grids", async () => {
      const r = await reads.selectFrom("grid").select("id").where("owner", "=", lower(owner)).where("id", ">", after).execute();
      return r.length === 2 ? r : undefined;
    })
  ).map((r) => r.id);
  const ladderLegs = [{ buyPrice: String(spot.WIF2 * 0.6), sellPrice: String(spot.WIF2 * 0.7), amount: "12" }];
  after = await lastId("ladder");
  for (let i = 0; i < 3; i++) await sendPrepared("ladder-strategy", { action: "open", token: "WIF2", legs: ladderLegs, repeat: true });
  const ladderIds = (
    await until("the ladders", async () => {
      const r = await reads.selectFrom("ladder").select("id").where("owner", "=", lower(owner)).where("id", ">", after).orderBy("id").execute();
      return r.length === 3 ? r : undefined;
    })
  ).map((r) => r.id);
  const closedLadder = ladderIds[2]!;
  await sendPrepared("ladder-strategy", { action: "close", id: closedLadder.toString(), mask: 0 });

  // Wallet 12's agent account, traded by wallet 13 (the same one prepare-families.test.ts uses), funded,
  // with two ladders of its own (one closed with mask 0).
  const account = await ensureAgentAccount(spot.WIF2);
  await write(human, { address: usdg(), abi: testTokenAbi, functionName: "transfer", args: [account, 500_000_000n] });
  after = await lastId("ladder");
  for (let i = 0; i < 2; i++) await sendPrepared("ladder-strategy", { action: "open", token: "WIF2", legs: ladderLegs, repeat: true, via: "account" });
  const accountLadderIds = (
    await until("the account's ladders", async () => {
      const r = await reads.selectFrom("ladder").select("id").where("owner", "=", lower(account)).where("id", ">", after).orderBy("id").execute();
      return r.length === 2 ? r : undefined;
    })
  ).map((r) => r.id);
  await sendPrepared("ladder-strategy", { action: "close", id: accountLadderIds[1]!.toString(), mask: 0, via: "account" });
  // The two opens used 24 USDG of the budget: give the random opens their room again.
  await ensureAgentAccount(spot.WIF2);
  // The closes are seen by the projection before the requests choose from it.
  await until("the closed ladders", async () =>
    (await reads.selectFrom("ladder").select("state").where("id", "in", [closedLadder, accountLadderIds[1]!]).execute()).every((r) => r.state === "closed"),
  );

  state = {
    spot,
    shares,
    upMinimum,
    pendingDeposits,
    pendingWithdrawals,
    openOrders: orders.filter((o) => !o.market).map((o) => o.id),
    claimable,
    grids,
    ladders: ladderIds.slice(0, 2),
    closedLadder,
    account,
    accountLadders: [accountLadderIds[0]!],
    accountClosedLadder: accountLadderIds[1]!,
  };
}, 240_000);

afterAll(async () => {
  // One after the other: both are the admin's transactions (nonces).
  if (d) for (const v of [mergedVault(), upVault()]) await setKeeper(v.address, d.contracts.marketMaker!).catch(() => undefined);
  await opened?.close();
});

/** Wallet 12's agent account traded by wallet 13 (made when missing), with 1,000 USDG of budget left. */
async function ensureAgentAccount(spotWif2: number): Promise<Address> {
  const factory = d.contracts.agentAccountFactory!;
  const spotX18 = parseUnits(spotWif2.toFixed(18), 18);
  let account = await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accountOf", args: [human.address] });
  const committed = account === zeroAddress ? 0n : await chain.readContract({ address: account, abi: agentAccountAbi, functionName: "committedUsdg" });
  const limits = { floorX18: spotX18 / 2n, ceilingX18: spotX18 * 2n, budgetUsdg: committed + 1_000_000_000n, feeCapBps: 100, minSpreadBps: 500 };
  if (account === zeroAddress) {
    await write(human, { address: factory, abi: agentAccountFactoryAbi, functionName: "create", args: [trader.address, limits] });
    account = await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accountOf", args: [human.address] });
  } else {
    await write(human, { address: account, abi: agentAccountAbi, functionName: "setLimits", args: [limits] });
  }
  expect(await chain.readContract({ address: account, abi: agentAccountAbi, functionName: "agent" })).toBe(trader.address);
  // The agent key's account is looked up in the index (agent_account): wait until the indexer has it.
  await until("the indexed agent account", () => reads.selectFrom("agentAccount").select("address").where("address", "=", lower(account)).executeTakeFirst());
  return account;
}

// ---------------------------------------------------------------- random valid requests

/** A request and what it must approve: nothing, or exactly `amount` of `token` (the spender is the next step's target). */
type Request = { kind: string; body: Record<string, unknown>; approval?: { token: Address; amount: bigint } };

const cents = (min: number, max: number) => fc.integer({ min: Math.round(min * 100), max: Math.round(max * 100) }).map((c) => c / 100);
const factor = (min: number, max: number) => fc.integer({ min: Math.round(min * 1000), max: Math.round(max * 1000) }).map((f) => f / 1000);
/** A decimal string with at most `digits` fraction digits (never exponent notation). */
const dec = (value: number, digits: number) => value.toFixed(digits).replace(/\.?0+$/, "") || "0";
const units = (value: string, decimals: number) => parseUnits(value, decimals);
const tokenArb = fc.constantFrom(...TOKENS);
const pick = <T>(items: readonly T[]) => fc.constantFrom(...items);
const agentTag = fc.option(fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,12}$/), { nil: undefined });
const slippage = fc.integer({ min: 0, max: 500 });

function requests(): fc.Arbitrary<Request> {
  const s = state;
  const merged = mergedVault();
  const up = upVault();
  const stock = stockVault();

  const vaultDeposit = fc.record({ vault: pick([merged, up]), usd: cents(20, 2000), slippageBps: slippage, agentTag }).map(
    ({ vault, usd, ...rest }): Request => ({
      kind: "vault-deposit",
      body: { vault: vault.address, amount: dec(usd, 2), ...rest },
      approval: { token: usdg(), amount: units(dec(usd, 2), 6) },
    }),
  );
  const withdrawVaults = [
    { v: merged, mode: "in-kind" as const },
    { v: merged, mode: "queue" as const },
    { v: up, mode: "in-kind" as const },
    { v: up, mode: "queue" as const },
    { v: stock, mode: "in-kind" as const },
  ];
  const vaultWithdraw = fc
    .record({ which: pick(withdrawVaults), part: fc.integer({ min: 1, max: 1000 }), slippageBps: slippage })
    .map(({ which, part, slippageBps }): Request => {
      const held = s.shares.get(which.v.address)!;
      const decimals = which.v.family === "stock-token" ? 18 : 12;
      let shares = (held * BigInt(part)) / 1000n;
      if (which.v.family === "up" && which.mode === "queue" && shares < s.upMinimum) shares = s.upMinimum;
      if (shares === 0n) shares = 1n;
      const body = { vault: which.v.address, shares: formatUnits(shares, decimals), mode: which.mode, slippageBps };
      return { kind: "vault-withdraw", body, approval: which.mode === "queue" ? { token: which.v.address, amount: shares } : undefined };
    });
  const vaultCancelDeposit = pick(s.pendingDeposits).map((r): Request => ({ kind: "vault-cancel-deposit", body: { vault: r.vault, id: r.id.toString() } }));
  const vaultCancelWithdraw = pick(s.pendingWithdrawals).map(
    (r): Request => ({ kind: "vault-cancel-withdraw", body: { vault: r.vault, id: r.id.toString() } }),
  );

  // Orders: worth 11-400 USDG (the hook's minimum is 10), lines well away from the price now.
  const order = (token: Symbol, side: "buy" | "sell", usd: number, priceFactor: number) => {
    const price = s.spot[token] * priceFactor;
    const amount = side === "buy" ? dec(usd, 2) : dec(usd / price, 8);
    return { amount, price: dec(price, 12), units: units(amount, side === "buy" ? 6 : 18) };
  };
  const limitOrder = fc
    .record({
      token: tokenArb,
      side: pick(["buy", "sell"] as const),
      market: fc.boolean(),
      usd: cents(11, 400),
      buyFactor: factor(0.5, 0.97),
      sellFactor: factor(1.03, 1.8),
      slippageBps: fc.integer({ min: 50, max: 500 }),
    })
    .map(({ token, side, market, usd, buyFactor, sellFactor, slippageBps }): Request => {
      const o = order(token, side, market && side === "sell" ? usd * 1.1 : usd, market ? 1 : side === "buy" ? buyFactor : sellFactor);
      const body = { token, side, amount: o.amount, ...(market ? { type: "market" } : { price: o.price }), slippageBps };
      return { kind: "limit-order", body, approval: { token: side === "buy" ? usdg() : tokenBy(token).address, amount: o.units } };
    });
  const ladder = fc
    .record({
      token: tokenArb,
      side: pick(["buy", "sell"] as const),
      legs: fc.array(fc.record({ usd: cents(11, 150), f: factor(0, 1) }), { minLength: 2, maxLength: 20 }),
    })
    .map(({ token, side, legs }): Request => {
      const orders = legs.map((l) => order(token, side, l.usd, side === "buy" ? 0.5 + 0.45 * l.f : 1.05 + 0.75 * l.f));
      const total = orders.reduce((sum, o) => sum + o.units, 0n);
      return {
        kind: "ladder",
        body: { token, side, orders: orders.map(({ amount, price }) => ({ amount, price })) },
        approval: { token: side === "buy" ? usdg() : tokenBy(token).address, amount: total },
      };
    });
  const orderAction = fc.oneof(
    pick(s.openOrders).map((id): Request => ({ kind: "order-action", body: { id: id.toString(), action: "cancel" } })),
    fc
      .record({ o: pick(s.claimable), both: fc.boolean() })
      .map(({ o, both }): Request => ({ kind: "order-action", body: { id: o.id.toString(), action: both ? "claimBoth" : o.action } })),
  );

  const grid = fc.oneof(
    fc
      .record({
        action: pick(["open", "openWithMarket"] as const),
        token: tokenArb,
        buy: factor(0.5, 0.95),
        sell: factor(1.05, 1.8),
        usd: cents(11, 500),
        repeat: fc.option(fc.boolean(), { nil: undefined }),
        slippageBps: fc.integer({ min: 50, max: 500 }),
      })
      .map(
        ({ action, token, buy, sell, usd, repeat, slippageBps }): Request => ({
          kind: "grid",
          body: { action, token, buyPrice: dec(s.spot[token] * buy, 12), sellPrice: dec(s.spot[token] * sell, 12), amount: dec(usd, 2), repeat, slippageBps },
          approval: { token: usdg(), amount: units(dec(usd, 2), 6) },
        }),
      ),
    fc.record({ id: pick(s.grids), action: pick(["close", "setRepeat"] as const), repeat: fc.boolean() }).map(
      ({ id, action, repeat }): Request => ({
        kind: "grid",
        body: { action, id: id.toString(), ...(action === "setRepeat" ? { repeat } : {}) },
      }),
    ),
  );

  // Ladder strategies: parts under the price (sell-first: over it) with the headroom the fee and the
  // account's spread ask, first part 11-60 USDG, follow-ups 6-40 (the minimums are 10 and 5).
  const ladderOpen = fc
    .record({
      token: tokenArb,
      sellFirst: fc.boolean(),
      via: pick(["wallet", "account"] as const),
      parts: fc.array(fc.record({ f: factor(0, 1), spread: factor(1.06, 1.5), usd: cents(6, 40) }), { minLength: 1, maxLength: 16 }),
      first: cents(11, 60),
      repeat: fc.boolean(),
      oneWay: fc.boolean(),
    })
    .map(({ token, sellFirst: wantSellFirst, via, parts, first, repeat, oneWay }): Request => {
      // Through the account: WIF2 (its limits are set around WIF2's price), buy-first, within its floor and ceiling.
      const onAccount = via === "account";
      const sym: Symbol = onAccount ? "WIF2" : token;
      const sellFirst = onAccount ? false : wantSellFirst;
      const spot = s.spot[sym];
      const legs = parts.map((p, i) => {
        const usd = i === 0 ? first : p.usd;
        if (sellFirst) {
          const sell = spot * (1.05 + 0.5 * p.f);
          const buy = sell / p.spread;
          return { buyPrice: dec(buy, 12), sellPrice: dec(sell, 12), amount: dec((usd * 1.02) / sell, 10) };
        }
        const buy = spot * (onAccount ? 0.6 + 0.3 * p.f : 0.5 + 0.45 * p.f);
        return { buyPrice: dec(buy, 12), sellPrice: dec(Math.min(buy * p.spread, spot * (onAccount ? 1.9 : 10)), 12), amount: dec(usd, 2) };
      });
      const total = legs.reduce((sum, l) => sum + units(l.amount, sellFirst ? 18 : 6), 0n);
      const body = { action: "open", token: sym, legs, sellFirst, repeat, oneWay, ...(onAccount ? { via: "account" } : {}) };
      return { kind: "ladder-strategy", body, approval: onAccount ? undefined : { token: sellFirst ? tokenBy(sym).address : usdg(), amount: total } };
    });
  const ladderAction = fc
    .record({
      onAccount: fc.boolean(),
      action: pick(["close", "setRepeat", "collect"] as const),
      closeMask: fc.integer({ min: 0, max: 3 }),
      mask: fc.integer({ min: 1, max: 3 }),
      collectMask: pick([2, 3]),
      ladder: fc.nat(),
    })
    .map(({ onAccount, action, closeMask, mask, collectMask, ladder }): Request => {
      const open = onAccount ? s.accountLadders : s.ladders;
      const id = action === "collect" ? (onAccount ? s.accountClosedLadder : s.closedLadder) : open[ladder % open.length]!;
      const m = action === "close" ? closeMask : action === "collect" ? collectMask : mask;
      return { kind: "ladder-strategy", body: { action, id: id.toString(), mask: m, ...(onAccount ? { via: "account", account: s.account } : {}) } };
    });

  return fc.oneof(vaultDeposit, vaultWithdraw, vaultCancelDeposit, vaultCancelWithdraw, limitOrder, ladder, orderAction, grid, ladderOpen, ladderAction);
}

// ---------------------------------------------------------------- reading the answer back

const ROLE = /^_*(receiver|recipient|owner|to)_*$/i;

/** Every address argument named receiver, recipient, owner or to, at any depth (structs and arrays too). */
function roleArguments(inputs: readonly AbiParameter[], args: readonly unknown[] | Record<string, unknown>, path = ""): { path: string; value: unknown }[] {
  const out: { path: string; value: unknown }[] = [];
  inputs.forEach((input, i) => {
    const value = Array.isArray(args) ? args[i] : (args as Record<string, unknown>)[input.name ?? ""];
    const here = `${path}${input.name ?? i}`;
    const walk = (type: string, v: unknown, p: string) => {
      const array = /^(.*)\[\d*\]$/.exec(type);
      if (array) return (v as unknown[]).forEach((x, j) => walk(array[1]!, x, `${p}[${j}]`));
      if (type === "tuple" && "components" in input)
        return out.push(...roleArguments(input.components as AbiParameter[], v as Record<string, unknown>, `${p}.`));
      if (type === "address" && ROLE.test(input.name ?? "")) out.push({ path: p, value: v });
    };
    walk(input.type, value, here);
  });
  return out;
}

/** The checks of one answered bundle; each broken one is a line. */
function problems(request: Request, data: { kind: string; owner: string; steps: Step[]; walletSendCalls: any }): string[] {
  const out: string[] = [];
  const who = getAddress(request.body.owner as string);
  if (data.owner !== who) out.push(`owner ${data.owner}`);
  const w = data.walletSendCalls;
  if (w.chainId !== "0x1237" || w.version !== "2.0.0" || !same(w.from, who))
    out.push(`walletSendCalls ${JSON.stringify({ chainId: w.chainId, version: w.version, from: w.from })}`);
  // The wallet's calls are the steps, with EIP-5792's hex values (0x0).
  if (JSON.stringify(w.calls.map((c: Step) => [c.to, c.data, BigInt(c.value).toString()])) !== JSON.stringify(data.steps.map((c) => [c.to, c.data, c.value])))
    out.push("walletSendCalls.calls differ from steps");
  if (!w.calls.every((c: Step) => c.value === "0x0")) out.push("a walletSendCalls value is not 0x0");
  const approvals: { token: Address; spender: Address; amount: bigint; index: number }[] = [];
  data.steps.forEach((step, i) => {
    if (step.value !== "0") out.push(`step ${i + 1}: value ${step.value}`);
    const readings = decodeStepAll(step);
    if (readings.length === 0) return out.push(`step ${i + 1}: does not decode with abis/`);
    for (const r of readings) {
      for (const role of roleArguments(r.inputs, r.args))
        if (!same(String(role.value), who)) out.push(`step ${i + 1} ${r.functionName}: ${role.path} is ${String(role.value)}`);
    }
    const first = readings[0]!;
    if (first.functionName === "approve") approvals.push({ token: step.to, spender: first.args[0] as Address, amount: first.args[1] as bigint, index: i });
    if (first.contractAbiName === "agentAccountAbi" && first.functionName === "ladder") {
      // The account's LADDER call carries a LadderStrategy call: read it too.
      const inner = decodeFunctionData({ abi: ladderStrategyAbi, data: first.args[0] as Hex });
      const item = ladderStrategyAbi.find((x) => x.type === "function" && x.name === inner.functionName) as { inputs: readonly AbiParameter[] };
      for (const role of roleArguments(item.inputs, inner.args ?? []))
        if (!same(String(role.value), who)) out.push(`step ${i + 1} ladder(${inner.functionName}): ${role.path} is ${String(role.value)}`);
      if (!same(step.to, state.account)) out.push(`step ${i + 1}: the account call goes to ${step.to}, not the account`);
    }
  });
  // The one approval is exactly what the request uses, of the right token, to the next step's target.
  if (request.approval) {
    if (approvals.length !== 1) out.push(`${approvals.length} approvals, not 1`);
    const a = approvals[0];
    if (a) {
      if (a.index !== 0) out.push("the approval is not the first step");
      if (!same(a.token, request.approval.token)) out.push(`approves ${a.token}, not ${request.approval.token}`);
      if (a.amount !== request.approval.amount) out.push(`approves ${a.amount}, not ${request.approval.amount}`);
      if (!data.steps.slice(1).every((s) => same(s.to, a.spender))) out.push(`approves ${a.spender}, which is not every later step's target`);
    }
  } else if (approvals.length > 0) out.push(`an approval where none is due: ${approvals.map((a) => a.amount).join(", ")}`);
  // And the service's own checker agrees, with the allow-list of the deployments (and the agent account):
  // every target, spender and address argument is the owner, a service contract or a token.
  const steps = data.steps.map((s) => ({ to: s.to, data: s.data, value: BigInt(s.value) }));
  const options = { usdg: usdg(), allow: allowListOf(d, { contracts: [state.account] }) };
  out.push(...moneySafetyViolations({ steps }, who, w.chainId, options));
  out.push(...walletSendCallsViolations(w, who, options));
  return out;
}

describe("money safety of the bundles the API builds (property, against the running stack)", () => {
  it("random valid requests of every kind: every step decodes, owner-only roles, exact approvals, value 0, chain 0x1237", async () => {
    const tally = new Map<string, { ok: number; simulation: number }>();
    const refusals: string[] = [];
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(requests(), async (request) => {
        const body: Record<string, unknown> = { owner, ...request.body };
        const r: Request = { ...request, body };
        const { status, body: answer } = await prepare(r.kind, body);
        const key = `${r.kind}${body.via === "account" ? " via account" : ""}${typeof body.action === "string" ? ` ${body.action}` : ""}`;
        const row = tally.get(key) ?? { ok: 0, simulation: 0 };
        tally.set(key, row);
        if (status === 422 && answer.code === "SIMULATION_FAILED") {
          row.simulation++;
          return;
        }
        if (status !== 200) refusals.push(`${key} ${status} ${answer.code}: ${answer.error} ${JSON.stringify(body).slice(0, 300)}`);
        expect(status, `${key}: ${JSON.stringify(answer).slice(0, 500)}\n${JSON.stringify(body).slice(0, 500)}`).toBe(200);
        row.ok++;
        expect(problems(r, answer.data), `${key}: ${JSON.stringify(body).slice(0, 400)}`).toEqual([]);
      }),
      // About 30 s on an idle machine; under load the time limit stops it early (the count is checked below).
      { numRuns: 300, endOnFailure: true, interruptAfterTimeLimit: 55_000, markInterruptAsFailure: false },
    );
    const total = [...tally.values()].reduce((n, x) => n + x.ok + x.simulation, 0);
    const ok = [...tally.values()].reduce((n, x) => n + x.ok, 0);
    console.log(
      `prepare money safety: ${ok} bundles, ${total - ok} simulation refusals, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      Object.fromEntries(tally),
    );
    expect(refusals).toEqual([]);
    expect(total).toBeGreaterThanOrEqual(100);
    // Most random requests produce a bundle; every kind (and both ladder-strategy routes) is met.
    expect(ok / total).toBeGreaterThan(0.8);
    const kinds = new Set([...tally.entries()].filter(([, x]) => x.ok > 0).map(([k]) => k.split(" ")[0]));
    // Every registered kind but those that trade through the aggregator (prepare-money-safety-aggregator.test.ts walks them).
    const throughTheAggregator = new Set(["swap", "basket-buy", "basket-sell", "basket-make"]);
    expect([...kinds].sort()).toEqual(prepareKinds.filter((k) => !throughTheAggregator.has(k)).sort());
    expect([...tally.keys()].some((k) => k.startsWith("ladder-strategy via account") && tally.get(k)!.ok > 0)).toBe(true);
  }, 240_000);

  it("a request naming another receiver or recipient, at any depth, is 422 RECEIVER_NOT_OWNER", async () => {
    await fc.assert(
      fc.asyncProperty(
        requests(),
        pick(["receiver", "recipient", "Receiver", "recipients"]),
        fc.constantFrom(nobody, human.address, zeroAddress, d.contracts.usdg!),
        fc.boolean(),
        async (request, field, other, nested) => {
          const extra = field === "recipients" ? [owner, other] : other;
          const body = { owner, ...request.body, ...(nested ? { extra: { deeper: [{ [field]: extra }] } } : { [field]: extra }) };
          const { status, body: answer } = await prepare(request.kind, body);
          expect([status, answer.code], JSON.stringify(body).slice(0, 300)).toEqual([422, "RECEIVER_NOT_OWNER"]);
        },
      ),
      { numRuns: 150 },
    );
    // The owner itself as the receiver is fine.
    const { status } = await prepare("vault-deposit", { owner, vault: mergedVault().address, amount: "20", receiver: owner.toLowerCase() });
    expect(status).toBe(200);
  }, 120_000);
});
