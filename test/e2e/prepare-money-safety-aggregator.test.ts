// Money safety of the aggregator kinds the API builds: a fast-check property per kind drives POST
// /v1/agent/prepare/{swap, basket-buy, basket-sell, basket-make} in-process against the running stack with
// random valid requests, decodes every step of every answer with the ABIs in abis/, and checks, on its own
// reading as well as with the service's checker: every receiver/recipient/owner argument is the owner, the
// one approval is exactly the amount the request uses (of the paid token, to the called contract, pulled
// in full by the call), every value is 0, walletSendCalls is for chain 0x1237 from the owner, and the zap's
// and maker's deadline is after the time at prepare and at most 10 minutes past it. Refusals with a catalog
// code (a random large amount may be PRICE_IMPACT_TOO_HIGH) are allowed answers but must stay a minority.
// A second property names another receiver or recipient in each kind's body: always 422 RECEIVER_NOT_OWNER.
//
// Wallet 17, funded here by the admin (10); the basket tokens it sells are bought in beforeAll through a
// prepared basket-buy. Nothing prepared in the properties is sent.
import fc from "fast-check";
import { formatUnits, getAddress, parseEther, parseUnits, zeroAddress, type AbiParameter, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { weth9Abi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { allowListOf, decodeStepAll, moneySafetyViolations, walletSendCallsViolations } from "../../domain/bundles/index.js";
import { isErrorCode } from "../../domain/errors.js";
import { randomPrefix, type testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { postChecked, type Answer } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { balanceAt, basketIn, mintAt, sendEthAt, sendStepsAt, testAccount, tokenIn, walletAt } from "../helpers/wallets.js";

const stack = inject("stack");
const admin = testAccount(10);
const trader = testAccount(17);
const other = testAccount(16).address;
const nobody = privateKeyToAccount(generatePrivateKey()).address;
const owner = trader.address;
/** The zap's and maker's deadline: 10 minutes (the spec's limits table). */
const DEADLINE_SECONDS = 600;
const KINDS = ["swap", "basket-buy", "basket-sell", "basket-make"] as const;
type Kind = (typeof KINDS)[number];

let opened: StackApp;
let d: Deployments;
let chain: PublicClient;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;
const prefix = randomPrefix();
const tag = Date.now().toString(36).slice(-5).toUpperCase();
/** Basket tokens wallet 17 holds, per basket symbol (bought in beforeAll). */
const held = new Map<string, bigint>();

const walletOf = (acc: typeof trader) => walletAt(stack.rpcUrl, acc);
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const tokenBy = (symbol: string) => {
  if (symbol === "USDG") return { address: getAddress(d.contracts.usdg!), decimals: 6 };
  const token = tokenIn(d, symbol);
  return { address: getAddress(token.address), decimals: token.decimals };
};
const basketBy = (symbol: string) => getAddress(basketIn(d, symbol));
const balanceOf = (token: Address, who: Address = owner) => balanceAt(chain, token, who);

async function write(call: { address: Address; abi: any; functionName: string; args?: readonly unknown[]; value?: bigint }, from = admin) {
  const hash = await walletOf(from).writeContract(call as never);
  expect((await chain.waitForTransactionReceipt({ hash })).status, `${call.functionName} on ${call.address}`).toBe("success");
}

type Step = { to: Address; data: Hex; value: string };
const prepare = (kind: string, body: Record<string, unknown>): Promise<Answer> => postChecked(t.app, validator, `/v1/agent/prepare/${kind}`, body);

beforeAll(async () => {
  opened = await openStackApp(stack, { app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ d, chain, app: t, validator } = opened);

  // Wallet 17: gas, USDG, LINK, and WETH wrapped from its own ETH.
  await sendEthAt(stack.rpcUrl, chain, owner, parseEther("40"));
  await mintAt(stack.rpcUrl, chain, tokenBy("USDG").address, owner, parseUnits("300000", 6));
  await mintAt(stack.rpcUrl, chain, tokenBy("LINK").address, owner, parseUnits("100000", 18));
  await write({ address: d.contracts.weth!, abi: weth9Abi, functionName: "deposit", value: parseEther("20") }, trader);

  // Basket tokens to sell: bought through a prepared basket-buy, signed and sent.
  for (const [symbol, amount] of [
    ["BLUE", "3000"],
    ["MEMES", "800"],
  ] as const) {
    const { status, body } = await prepare("basket-buy", { owner, basket: symbol, amount });
    expect(status, `basket-buy ${symbol}: ${JSON.stringify(body).slice(0, 400)}`).toBe(200);
    await sendStepsAt(stack.rpcUrl, chain, trader, body.data.steps as Step[], `basket-buy ${symbol}`);
    held.set(symbol, await balanceOf(basketBy(symbol)));
    expect(held.get(symbol)!).toBeGreaterThan(0n);
  }
}, 180_000);

afterAll(() => opened?.close());

// ---------------------------------------------------------------- random valid requests

/** A request and what its one approval must be: `amount` of `token`, pulled in full by the next step. */
type Request = { kind: Kind; body: Record<string, unknown>; approval: { token: Address; amount: bigint } };

const pick = <T>(items: readonly T[]) => fc.constantFrom(...items);
/** A decimal amount between min and max with `places` decimals, as the API takes it. */
const decimal = (min: number, max: number, places: number) =>
  fc.integer({ min: Math.round(min * 10 ** places), max: Math.round(max * 10 ** places) }).map((n) => (n / 10 ** places).toFixed(places));
const slippage = fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined });
/** How much of a token a request pays, by token: mostly moderate, sometimes large (refusals allowed). */
const payAmount = (symbol: string) =>
  symbol === "USDG"
    ? fc.oneof({ arbitrary: decimal(30, 3000, 2), weight: 4 }, { arbitrary: decimal(3000, 150_000, 2), weight: 1 })
    : symbol === "WETH"
      ? fc.oneof({ arbitrary: decimal(0.01, 1, 4), weight: 4 }, { arbitrary: decimal(1, 15, 4), weight: 1 })
      : decimal(2, 5000, 3);
const approval = (symbol: string, amount: string) => ({ token: tokenBy(symbol).address, amount: parseUnits(amount, tokenBy(symbol).decimals) });

const SWAP_IN = ["USDG", "WETH", "LINK"] as const;
const SWAP_OUT = ["USDG", "WETH", "LINK", "SOLX", "WBTC", "DOGE2", "WIF2", "ETH"] as const;
const swap: fc.Arbitrary<Request> = fc
  .record({ tokenIn: pick(SWAP_IN), tokenOut: pick(SWAP_OUT), slippageBps: slippage, seed: fc.nat() })
  .filter(({ tokenIn, tokenOut }) => tokenIn !== tokenOut && !(tokenIn === "WETH" && tokenOut === "ETH"))
  .chain(({ tokenIn, tokenOut, slippageBps }) =>
    payAmount(tokenIn).map((amount): Request => ({ kind: "swap", body: { tokenIn, tokenOut, amount, slippageBps }, approval: approval(tokenIn, amount) })),
  );

const basketBuy: fc.Arbitrary<Request> = fc
  .record({ basket: pick(["BLUE", "MEMES", "STOCKS"]), payWith: pick([undefined, "USDG", "WETH"]), byAddress: fc.boolean(), slippageBps: slippage })
  .chain(({ basket, payWith, byAddress, slippageBps }) =>
    payAmount(payWith ?? "USDG").map(
      (amount): Request => ({
        kind: "basket-buy",
        body: { basket: byAddress ? basketBy(basket) : basket, amount, payWith, slippageBps },
        approval: approval(payWith ?? "USDG", amount),
      }),
    ),
  );

const basketSell: fc.Arbitrary<Request> = fc
  .record({
    basket: pick(["BLUE", "MEMES"]),
    all: fc.boolean(),
    permille: fc.integer({ min: 1, max: 1000 }),
    receive: pick([undefined, "USDG", "WETH"]),
    slippageBps: slippage,
  })
  .map(({ basket, all, permille, receive, slippageBps }): Request => {
    const holding = held.get(basket)!;
    // Whole units with 12 decimals at most: the amount asked for is then exact.
    const bptIn = ((holding * BigInt(permille)) / 1000n / 10n ** 6n) * 10n ** 6n || 10n ** 6n;
    return {
      kind: "basket-sell",
      body: all ? { basket, all: true, receive, slippageBps } : { basket, amount: formatUnits(bptIn, 18), receive, slippageBps },
      approval: { token: basketBy(basket), amount: all ? holding : bptIn },
    };
  });

let made = 0;
const MAKE_TOKENS = ["WETH", "LINK", "SOLX", "WBTC", "DOGE2", "WIF2"] as const;
const basketMake: fc.Arbitrary<Request> = fc
  .record({
    anchor: pick(["USDG", "WETH"] as const),
    others: fc.uniqueArray(pick(MAKE_TOKENS), { minLength: 1, maxLength: 4 }),
    raw: fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 5, maxLength: 5 }),
    swapFeePct: pick([undefined, 0.3, 1]),
    payWith: pick([undefined, "USDG", "WETH"] as const),
    slippageBps: slippage,
  })
  .filter(({ anchor, others }) => others.some((s) => s !== anchor))
  .chain((r) => (r.payWith === "WETH" ? decimal(0.02, 0.3, 4) : decimal(30, 600, 2)).map((amount) => ({ ...r, amount })))
  .map(({ anchor, others, raw, swapFeePct, payWith, slippageBps, amount }): Request => {
    const symbols = [anchor, ...others.filter((s) => s !== anchor)];
    // Whole percents, at least 1 each, summing to 100.
    const total = raw.slice(0, symbols.length).reduce((a, b) => a + b, 0);
    const weights = symbols.map((_, i) => Math.max(1, Math.floor((100 * raw[i]!) / total)));
    weights[0]! += 100 - weights.reduce((a, b) => a + b, 0);
    const n = ++made;
    return {
      kind: "basket-make",
      body: {
        name: `Money Safety ${tag} ${n}`,
        symbol: `MS${tag}${n}`,
        tokens: symbols.map((token, i) => ({ token, weightPct: weights[i] })),
        swapFeePct,
        amount,
        payWith,
        slippageBps,
      },
      approval: approval(payWith ?? "USDG", amount),
    };
  });

const byKind: Record<Kind, fc.Arbitrary<Request>> = { swap, "basket-buy": basketBuy, "basket-sell": basketSell, "basket-make": basketMake };

// ---------------------------------------------------------------- reading the answer back

const ROLE = /^_*(receiver|recipient|owner|to)_*$/i;

/** The leaf arguments whose ABI name and type `match` picks, at any depth (structs and arrays too). */
function leaves(
  match: (name: string, type: string) => boolean,
  inputs: readonly AbiParameter[],
  args: readonly unknown[] | Record<string, unknown>,
  path = "",
): { path: string; value: unknown }[] {
  const out: { path: string; value: unknown }[] = [];
  inputs.forEach((input, i) => {
    const value = Array.isArray(args) ? args[i] : (args as Record<string, unknown>)[input.name ?? ""];
    const walk = (type: string, v: unknown, p: string) => {
      const array = /^(.*)\[\d*\]$/.exec(type);
      if (array) return (v as unknown[]).forEach((x, j) => walk(array[1]!, x, `${p}[${j}]`));
      if (type === "tuple" && "components" in input)
        return out.push(...leaves(match, input.components as AbiParameter[], v as Record<string, unknown>, `${p}.`));
      if (match(input.name ?? "", type)) out.push({ path: p, value: v });
    };
    walk(input.type, value, `${path}${input.name ?? i}`);
  });
  return out;
}

/** What the called contract pulls with its approval, by function. */
const PULLS: Record<string, (args: readonly unknown[]) => unknown> = {
  "swapRouterAbi.swap": (a) => (a[0] as { amountIn: bigint }).amountIn,
  "basketZapAbi.buy": (a) => a[2],
  "basketZapAbi.sell": (a) => a[1],
  "basketMakerAbi.make": (a) => a[2],
};
/** The call each kind makes after its approval. */
const CALL: Record<Kind, string> = {
  swap: "swapRouterAbi.swap",
  "basket-buy": "basketZapAbi.buy",
  "basket-sell": "basketZapAbi.sell",
  "basket-make": "basketMakerAbi.make",
};

/** The time at prepare, unix seconds: the later of the chain's latest block and the wall clock (the resolvers
 * take the later one: the devnet mines a block every couple of seconds, so its latest block may lag). */
async function timeNow(): Promise<bigint> {
  const block = await chain.getBlock({ blockTag: "latest" });
  const wall = BigInt(Math.floor(Date.now() / 1000));
  return block.timestamp > wall ? block.timestamp : wall;
}

/** The checks of one answered bundle, prepared between `before` and `after`; each broken one is a line. */
function problems(
  request: Request,
  data: { kind: string; owner: string; steps: Step[]; params: any; walletSendCalls: any },
  before: bigint,
  after: bigint,
): string[] {
  const out: string[] = [];
  if (data.owner !== owner) out.push(`owner ${data.owner}`);
  const w = data.walletSendCalls;
  if (w.chainId !== "0x1237" || w.version !== "2.0.0" || !same(w.from, owner))
    out.push(`walletSendCalls ${JSON.stringify({ chainId: w.chainId, version: w.version, from: w.from })}`);
  if (JSON.stringify(w.calls.map((c: Step) => [c.to, c.data, BigInt(c.value).toString()])) !== JSON.stringify(data.steps.map((c) => [c.to, c.data, c.value])))
    out.push("walletSendCalls.calls differ from steps");
  if (data.steps.length !== 2) out.push(`${data.steps.length} steps, not approve + call`);
  const deadlines: bigint[] = [];
  data.steps.forEach((step, i) => {
    if (step.value !== "0") out.push(`step ${i + 1}: value ${step.value}`);
    const readings = decodeStepAll(step);
    if (readings.length === 0) return out.push(`step ${i + 1}: does not decode with abis/`);
    for (const r of readings) {
      for (const role of leaves((n, type) => type === "address" && ROLE.test(n), r.inputs, r.args))
        if (!same(String(role.value), owner)) out.push(`step ${i + 1} ${r.functionName}: ${role.path} is ${String(role.value)}`);
    }
    const first = readings[0]!;
    for (const dl of leaves((n, type) => /^uint/.test(type) && n.toLowerCase() === "deadline", first.inputs, first.args)) deadlines.push(dl.value as bigint);
    if (i === 0) {
      // The approval: exactly the amount the request uses, of its token, to the contract called next.
      if (first.functionName !== "approve") return out.push(`step 1 is ${first.functionName}, not approve`);
      if (!same(step.to, request.approval.token)) out.push(`approves ${step.to}, not ${request.approval.token}`);
      if (first.args[1] !== request.approval.amount) out.push(`approves ${String(first.args[1])}, not ${request.approval.amount}`);
      if (data.steps[1] && !same(String(first.args[0]), data.steps[1].to)) out.push(`approves ${String(first.args[0])}, not the called ${data.steps[1].to}`);
    } else {
      const name = `${first.contractAbiName}.${first.functionName}`;
      if (name !== CALL[request.kind]) out.push(`step ${i + 1} is ${name}, not ${CALL[request.kind]}`);
      else if (PULLS[name]!(first.args) !== request.approval.amount)
        out.push(`step ${i + 1} pulls ${String(PULLS[name]!(first.args))}, not the approved ${request.approval.amount}`);
    }
  });
  // The swap router's call has no deadline; the zap's and the maker's have one, in (before, after + 600].
  if (request.kind === "swap") {
    if (deadlines.length !== 0) out.push(`a swap with a deadline: ${deadlines.join(", ")}`);
  } else {
    if (deadlines.length !== 1) out.push(`${deadlines.length} deadlines, not 1`);
    for (const dl of deadlines) {
      if (dl <= before) out.push(`deadline ${dl} is not after the time at prepare ${before}`);
      if (dl > after + BigInt(DEADLINE_SECONDS)) out.push(`deadline ${dl} is more than ${DEADLINE_SECONDS} s after the time at prepare ${after}`);
      if (String(data.params.deadline) !== dl.toString()) out.push(`params.deadline ${data.params.deadline} is not the call's ${dl}`);
    }
  }
  // And the service's own checker agrees, with the deadline window of this prepare.
  // With the allow-list of the deployments: every token and basket here is one of them.
  const options = { usdg: tokenBy("USDG").address, deadlineWindow: { now: before, seconds: DEADLINE_SECONDS + Number(after - before) }, allow: allowListOf(d) };
  const steps = data.steps.map((s) => ({ to: s.to, data: s.data, value: BigInt(s.value) }));
  out.push(...moneySafetyViolations({ steps }, owner, w.chainId, options));
  out.push(...walletSendCallsViolations(w, owner, options));
  return out;
}

describe("money safety of the aggregator kinds the API builds (property, against the running stack)", () => {
  for (const kind of KINDS) {
    it(`${kind}: random valid requests: every step decodes, recipient = owner, exact approval, value 0, chain 0x1237, deadline within 10 minutes`, async () => {
      let ok = 0;
      const refusals = new Map<string, number>();
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(byKind[kind], async (request) => {
          const body = { owner, ...request.body };
          const before = await timeNow();
          const { status, body: answer } = await prepare(kind, body);
          const after = await timeNow();
          if (status !== 200) {
            // A refusal is an answer of the catalog (a 422 for a price impact, a minimum, a shortfall...), never a 5xx.
            expect([status, isErrorCode(answer.code)], `${kind}: ${JSON.stringify(answer).slice(0, 400)}\n${JSON.stringify(body).slice(0, 400)}`).toEqual([
              422,
              true,
            ]);
            refusals.set(answer.code, (refusals.get(answer.code) ?? 0) + 1);
            return;
          }
          ok++;
          expect(answer.data.kind).toBe(kind);
          expect(problems(request, answer.data, before, after), `${kind}: ${JSON.stringify(body).slice(0, 400)}`).toEqual([]);
        }),
        // About 10-15 s a kind on an idle machine; under load the time limit stops it early (the count is checked below).
        { numRuns: 50, endOnFailure: true, interruptAfterTimeLimit: 20_000, markInterruptAsFailure: false },
      );
      const refused = [...refusals.values()].reduce((a, b) => a + b, 0);
      console.log(`${kind} money safety: ${ok} bundles, ${refused} refusals in ${((Date.now() - started) / 1000).toFixed(1)} s`, Object.fromEntries(refusals));
      expect(ok + refused).toBeGreaterThanOrEqual(10);
      // Most random requests produce a bundle.
      expect(ok / (ok + refused)).toBeGreaterThan(0.6);
    }, 90_000);
  }

  it("each kind's body naming another receiver or recipient, at any depth, is 422 RECEIVER_NOT_OWNER", async () => {
    const seen = new Set<Kind>();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(...KINDS.map((k) => byKind[k])),
        pick(["receiver", "recipient", "Recipient", "recipients"]),
        fc.constantFrom(nobody, other, zeroAddress, d.contracts.basketZap!),
        fc.boolean(),
        async (request, field, someone, nested) => {
          seen.add(request.kind);
          const extra = field === "recipients" ? [owner, someone] : someone;
          const body = { owner, ...request.body, ...(nested ? { extra: { deeper: [{ [field]: extra }] } } : { [field]: extra }) };
          const { status, body: answer } = await prepare(request.kind, body);
          expect([status, answer.code], JSON.stringify(body).slice(0, 300)).toEqual([422, "RECEIVER_NOT_OWNER"]);
        },
      ),
      { numRuns: 60 },
    );
    expect([...seen].sort()).toEqual([...KINDS].sort());
    // The owner itself as the recipient is fine.
    const { status, body } = await prepare("basket-buy", { owner, basket: "BLUE", amount: "50", recipient: owner.toLowerCase() });
    expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
  }, 60_000);
});
