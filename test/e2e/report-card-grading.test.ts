// The report card end to end on the devnet: two agents (tags alpha and beta) prepare bundles through the
// API with wallets 14 and 15, the wallets sign and send them, the grading job matches the mined calls to
// the filings and grades them by the fixed rules as the devnet clock moves forward a day, then a week.
// The card shows each action's state and reason; after 30 graded actions alpha's hitRate.lower90 equals
// the Wilson bound computed here, independently, from the raw hits and misses.
import type { Kysely } from "kysely";
import { sql } from "kysely";
import { formatUnits, parseEther, parseUnits, type Address, type Hex, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type StartedStack } from "../helpers/stack.js";
import { marketRegistryAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { createChallenge, exchangeChallenge } from "../../usecases/sessions.js";
import type { GradingSummary } from "../../usecases/report-card/run-grading.js";
import { gradingProcessor } from "../../workers/processors/grading.js";
import { randomPrefix, type testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { until as waitUntil } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { sendStepsAt, testAccount, tokenIn, walletAt } from "../helpers/wallets.js";

// A devnet and indexer of its own: this file moves the chain's clock a week ahead, which would leave the
// shared devnet's blocks in the future for every file after it (daily figures, "today").
let own: StartedStack;
let stack: Stack;
const alphaWallet = testAccount(14);
const betaWallet = testAccount(15);
const admin = testAccount(10);
const prefix = randomPrefix();
const Z = 1.6449;

let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let d: Deployments;
let chain: PublicClient;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;

const walletOf = (acc: typeof admin) => walletAt(stack.rpcUrl, acc);
const lower = (a: string) => a.toLowerCase() as `0x${string}`;
const tokenBy = (symbol: string) => tokenIn(d, symbol);

beforeAll(async () => {
  own = await startStack({ historyDays: 2 });
  stack = own;
  opened = await openStackApp(stack, { prefix, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ db, reads, d, chain, app: t, validator } = opened);
  t.clock.set(new Date(Number((await chain.getBlock()).timestamp) * 1000));
  // Wallets 14 and 15 carry no tokens: the admin mints them USDG and sends gas.
  for (const w of [alphaWallet, betaWallet]) {
    const mint = await walletOf(admin).writeContract({
      address: d.contracts.usdg!,
      abi: testTokenAbi,
      functionName: "mint",
      args: [w.address, parseUnits("5000", 6)],
    });
    expect((await chain.waitForTransactionReceipt({ hash: mint })).status).toBe("success");
    const gas = await walletOf(admin).sendTransaction({ to: w.address, value: parseEther("5") });
    await chain.waitForTransactionReceipt({ hash: gas });
  }
});

afterAll(async () => {
  await opened?.close();
  await own?.stop();
}, 120_000);

type Step = { to: Address; data: Hex; value: string };

async function prepared(from: typeof admin, kind: string, body: Record<string, unknown>) {
  const path = `/v1/agent/prepare/${kind}`;
  // Filed at the chain's time (a mined call matches filings of the 10 minutes before its block, and this
  // file moves the chain's clock); the service's clock is then put back where the test keeps it.
  const kept = t.clock.now();
  t.clock.set(new Date(Number((await chain.getBlock()).timestamp) * 1000));
  const res = await Promise.resolve(
    t.app.request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ owner: from.address, ...body }) }),
  ).finally(() => t.clock.set(kept));
  const answer = (await res.json()) as any;
  expect(res.status, `${kind}: ${JSON.stringify(answer).slice(0, 500)}`).toBe(200);
  return answer.data as { id: string; steps: Step[] };
}

const sendAll = (result: { steps: Step[] }, from: typeof admin) => sendStepsAt(stack.rpcUrl, chain, from, result.steps);

const until = <T>(what: string, read: () => Promise<T | undefined | null | false>, ms = 60_000) => waitUntil(what, read, ms, 300);

async function price(symbol: string, factor: number): Promise<string> {
  const p = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [tokenBy(symbol).address] });
  return formatUnits((p * BigInt(Math.round(factor * 10_000))) / 10_000n, 18);
}

/** The indexed chain's newest time (what the grading job measures days with). */
async function indexedTime(): Promise<number> {
  const row = await reads.selectFrom("activity").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst();
  const swap = await reads.selectFrom("poolSwap").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst();
  return Math.max(Number(row?.t ?? 0), Number(swap?.t ?? 0));
}

/** Moves the devnet clock forward and mines; waits until the indexer has followed past the jump. */
async function moveClock(seconds: number) {
  const before = (await chain.getBlock()).timestamp;
  await chain.request({ method: "evm_increaseTime" as never, params: [seconds] as never });
  await chain.request({ method: "evm_mine" as never, params: [] as never });
  const target = Number(before) + seconds;
  // The devnet's market simulator keeps trading; its trades after the jump tell the indexer's time.
  await until(`the indexer past +${seconds} s`, async () => (await indexedTime()) >= target, 120_000);
}

type Card = {
  owner: string;
  view: string;
  hitRate: { lower90: number; hits: number; misses: number; howGraded: string } | null;
  agents: {
    name: string | null;
    ready: boolean;
    graded: number;
    hitRate: Card["hitRate"];
    actions: { id: string; kind: string; action: string; state: string; reason: string | null; hit: boolean | null; note: string; signed: boolean }[];
  }[];
};

async function card(owner: Address, view: "public" | "private"): Promise<Card> {
  let token: string | undefined;
  if (view === "private") {
    const c = await createChallenge(db, { owner, now: t.clock.now(), origin: "http://agent.test" });
    const signer = owner === alphaWallet.address ? alphaWallet : betaWallet;
    token = (
      await exchangeChallenge(db, { owner, challengeId: c.challengeId, signature: await signer.signMessage({ message: c.message }), now: t.clock.now() })
    ).token;
  }
  const path = `/v1/agent/report-card/${owner}${view === "private" ? "/private" : ""}`;
  const res = await t.app.request(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(200);
  expect(validator.errors("get", path, 200, body), "the card against the OpenAPI document").toEqual([]);
  return body.data as Card;
}

const agent = (c: Card, name: string) => c.agents.find((a) => a.name === name)!;
const grade = async () => (await gradingProcessor({ db, reads, now: t.clock.now, logger: t.deps.logger })({} as never)) as GradingSummary;

const HITS = 22;
const MISSES = 10;

describe("report card grading on the devnet", () => {
  let limitOrderId: bigint;
  let depositFiling: string;

  it("agents alpha and beta prepare and execute; before a day passes every action waits, with its reason", async () => {
    // alpha: 32 grid opens. Lines around the price are hits a day later; lines far under it are misses.
    for (let i = 0; i < HITS + MISSES; i++) {
      const inside = i < HITS;
      const body = inside
        ? { action: "open", token: "WETH", buyPrice: await price("WETH", 0.7), sellPrice: await price("WETH", 1.4), amount: "20", agentTag: "alpha" }
        : { action: "open", token: "WETH", buyPrice: await price("WETH", 0.3), sellPrice: await price("WETH", 0.6), amount: "20", agentTag: "alpha" };
      await sendAll(await prepared(alphaWallet, "grid", body), alphaWallet);
    }

    // beta: a merged vault deposit, a limit order far under the price, a grid open then close, and a bundle never signed.
    const vault = d.vaults.find((v) => v.family === "merged" && v.agent)!;
    const deposit = await prepared(betaWallet, "vault-deposit", { vault: vault.address, amount: "50", agentTag: "beta" });
    depositFiling = (await db.selectFrom("filing").select("id").where("sign_request_id", "=", deposit.id).executeTakeFirstOrThrow()).id;
    await sendAll(deposit, betaWallet);
    const lastOrder = (await reads.selectFrom("limitOrder").select("id").orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;
    await sendAll(
      await prepared(betaWallet, "limit-order", { token: "WETH", side: "buy", amount: "20", price: await price("WETH", 0.4), agentTag: "beta" }),
      betaWallet,
    );
    limitOrderId = (
      await until("beta's order", () =>
        reads.selectFrom("limitOrder").select("id").where("owner", "=", lower(betaWallet.address)).where("id", ">", lastOrder).executeTakeFirst(),
      )
    ).id;
    const lastGrid = (await reads.selectFrom("grid").select("id").orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;
    await sendAll(
      await prepared(betaWallet, "grid", {
        action: "open",
        token: "WETH",
        buyPrice: await price("WETH", 0.7),
        sellPrice: await price("WETH", 1.4),
        amount: "20",
        agentTag: "beta",
      }),
      betaWallet,
    );
    const grid = await until("beta's grid", () =>
      reads.selectFrom("grid").select("id").where("owner", "=", lower(betaWallet.address)).where("id", ">", lastGrid).executeTakeFirst(),
    );
    await sendAll(await prepared(betaWallet, "grid", { action: "close", id: grid.id.toString(), agentTag: "beta" }), betaWallet);
    await prepared(betaWallet, "grid", {
      action: "open",
      token: "WETH",
      buyPrice: await price("WETH", 0.7),
      sellPrice: await price("WETH", 1.4),
      amount: "20",
      agentTag: "beta",
    });

    // Every mined call indexed, then one grading pass.
    await until(
      "alpha's grids indexed",
      async () => (await reads.selectFrom("grid").select("id").where("owner", "=", lower(alphaWallet.address)).execute()).length >= HITS + MISSES,
    );
    await until(
      "beta's close indexed",
      async () => (await reads.selectFrom("grid").select("state").where("id", "=", grid.id).executeTakeFirst())?.state === "closed",
    );
    const summary = await grade();
    expect(summary.matched).toBe(HITS + MISSES + 4);
    // The bundle never sent is still inside its 10-minute window: not settled yet (the card words it from its age).
    expect(summary.unsigned).toBe(0);

    const a = agent(await card(alphaWallet.address, "public"), "alpha");
    expect(a.actions).toHaveLength(HITS + MISSES);
    for (const action of a.actions) expect([action.state, action.reason, action.signed]).toEqual(["waiting", "day", true]);
    expect(a.actions[0]!.note).toMatch(/graded a day after/);
    expect([a.ready, a.hitRate]).toEqual([false, null]);

    const pub = agent(await card(betaWallet.address, "public"), "beta");
    const byKind = (c: typeof pub, kind: string, action?: string) =>
      c.actions.filter((x) => x.kind === kind && (action === undefined || x.action.startsWith(action)));
    expect(pub.actions).toHaveLength(4); // the unsigned bundle is on the private card only
    expect(["queue", "week"]).toContain(byKind(pub, "vault-deposit")[0]!.reason);
    expect([byKind(pub, "limit-order")[0]!.state, byKind(pub, "limit-order")[0]!.reason]).toEqual(["waiting", "fill"]);
    expect([byKind(pub, "grid", "grid open")[0]!.state, byKind(pub, "grid", "grid open")[0]!.reason]).toEqual(["waiting", "day"]);
    expect([byKind(pub, "grid", "grid close")[0]!.state, byKind(pub, "grid", "grid close")[0]!.reason]).toEqual(["not-graded", "grid-action"]);

    const priv = agent(await card(betaWallet.address, "private"), "beta");
    expect(priv.actions).toHaveLength(5);
    const unsigned = priv.actions.filter((x) => !x.signed);
    expect(unsigned.map((x) => [x.state, x.reason])).toEqual([["waiting", "receipt"]]);
    expect(unsigned[0]!.note).toMatch(/waiting to be signed/);
  });

  it("a day later: alpha's 32 grid opens are graded; the hit rate is the Wilson bound of the raw hits and misses", async () => {
    await moveClock(86_400);
    // beta cancels its order after the day: the order stopped with no fill.
    await sendAll(await prepared(betaWallet, "order-action", { id: limitOrderId.toString(), action: "cancel", agentTag: "beta" }), betaWallet);
    await until(
      "the cancelled order",
      async () => (await reads.selectFrom("limitOrder").select("state").where("id", "=", limitOrderId).executeTakeFirst())?.state !== "open",
    );
    await grade();

    const c = await card(alphaWallet.address, "public");
    const a = agent(c, "alpha");
    expect(a.actions.every((x) => x.state === "graded" && x.reason === null && typeof x.hit === "boolean")).toBe(true);
    const hits = a.actions.filter((x) => x.hit).length;
    const misses = a.actions.filter((x) => x.hit === false).length;
    // Lines around the price now hold it a day later; lines far under it do not.
    expect([hits, misses]).toEqual([HITS, MISSES]);
    expect(a.actions.find((x) => x.hit)!.note).toMatch(/inside the lines/);
    expect(a.actions.find((x) => x.hit === false)!.note).toMatch(/outside the lines/);
    expect(a.ready).toBe(true);
    expect(a.hitRate).toMatchObject({ hits, misses });
    // Wilson lower bound, computed here as the smaller root of (p - x)^2 = z^2 x (1 - x) / n.
    const n = hits + misses;
    const p = hits / n;
    const qa = 1 + (Z * Z) / n;
    const qb = -(2 * p + (Z * Z) / n);
    const expected = (-qb - Math.sqrt(qb * qb - 4 * qa * p * p)) / (2 * qa);
    expect(a.hitRate!.lower90).toBeCloseTo(expected, 12);
    expect(c.hitRate).toEqual(a.hitRate);

    const beta = agent(await card(betaWallet.address, "private"), "beta");
    const kind = (k: string, action?: string) => beta.actions.find((x) => x.signed && x.kind === k && (action === undefined || x.action.startsWith(action)))!;
    expect([kind("limit-order").state, kind("limit-order").reason]).toEqual(["not-graded", "cancel"]);
    expect([kind("order-action").state, kind("order-action").reason]).toEqual(["not-graded", "order-action"]);
    expect(kind("grid", "grid open").state).toBe("graded");
    expect(["queue", "week"]).toContain(kind("vault-deposit").reason);
    expect([beta.ready, beta.hitRate]).toEqual([false, null]);
    // The bundle never sent still waits to be signed (its sign link is 10 minutes old at most).
    expect(beta.actions.filter((x) => !x.signed).map((x) => [x.state, x.reason])).toEqual([["waiting", "receipt"]]);
  });

  it("a week later: the deposit is graded by the vault's share price", async () => {
    await until(
      "the deposit settled",
      async () => {
        await grade();
        const row = await db.selectFrom("report_action").select(["state", "reason"]).where("filing_id", "=", depositFiling).executeTakeFirst();
        return row?.reason === "week" || row?.state === "graded";
      },
      90_000,
    );
    await moveClock(7 * 86_400);
    await grade();
    const beta = agent(await card(betaWallet.address, "public"), "beta");
    const deposit = beta.actions.find((x) => x.kind === "vault-deposit")!;
    expect([deposit.state, deposit.reason, typeof deposit.hit]).toEqual(["graded", null, "boolean"]);
    expect(deposit.note).toMatch(/Share price .* 7 days later/);

    // 20 minutes after it was filed, on the service's clock: the bundle never sent is shown as never signed, on the private card only.
    const unsent = await db
      .selectFrom("filing")
      .leftJoin("report_action", "report_action.filing_id", "filing.id")
      .select("filing.created_at")
      .where("report_action.tx_hash", "is", null)
      .executeTakeFirstOrThrow();
    t.clock.set(new Date(unsent.created_at.getTime() + 20 * 60_000));
    await grade();
    const priv = agent(await card(betaWallet.address, "private"), "beta");
    const never = priv.actions.filter((x) => !x.signed);
    expect(never.map((x) => [x.state, x.reason])).toEqual([["not-graded", "other"]]);
    expect(never[0]!.note).toMatch(/never signed/);
    expect(agent(await card(betaWallet.address, "public"), "beta").actions.every((x) => x.signed)).toBe(true);
  });
});
