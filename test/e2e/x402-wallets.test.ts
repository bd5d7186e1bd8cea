// Smart wallets pay for a 60-day grid backtest (x402 v2, exact, USDG) on the devnet, end to end through the
// devnet's facilitator and USDG:
// - an EIP-7702 account delegated to the BatchExecutor (the kind `atomicRequired` asks for; its delegate has
//   no ERC-1271) pays with its own key, through x402's fetch client configured as skill.md writes it;
// - a deployed ERC-4337 SmartAccount pays by ERC-1271 (its owner signs the typed data);
// - an undeployed (counterfactual) SmartAccount pays by ERC-6492: the facilitator deploys it with the devnet's
//   factory, then settles;
// - a contract wallet whose isValidSignature accepts anything pays from its own balance only, once per payment;
//   its code is asked about its own address only, so it authorizes nobody else's funds.
// Each payment moves exactly the price from the payer to the payee, once. Refusals (a stranger's signature for
// each kind of wallet, a factory not allowed, an undeployed account without ERC-6492, an empty liar, a liar
// that turns honest before settlement) answer 402 with the reason, the check that failed and what to do, and
// move nothing. Real devnet, facilitator, signatures.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { decodeEventLog, encodeFunctionData, getAddress, parseUnits, serializeErc6492Signature, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { smartAccountFactoryAbi, testTokenAbi } from "../../abis/index.js";
import { createAgentClient, type Settlement } from "../../client/agent-client.js";
import { loadSeries } from "../../usecases/backtest-runs/candles.js";
import { randomPrefix, testApp } from "../api/support.js";
import { delegatedWallet, smartAccountWallet } from "../helpers/batch-wallets.js";
import { deployLyingWallet, lyingWalletAbi } from "../helpers/lying-wallet.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { freePort } from "../helpers/stack.js";
import { balanceAt, mintAt, sendEthAt, testAccount, tokenIn, writeAt } from "../helpers/wallets.js";

const stack = inject("stack");
const DELEGATED = testAccount(48); // delegates to the BatchExecutor (EIP-7702)
const OWNER = testAccount(49); // owns the deployed SmartAccount (salt 0)
const BUNDLER = testAccount(50); // deploys the SmartAccount and the lying wallet
const COUNTERFACTUAL_OWNER = testAccount(51); // owns SmartAccounts not deployed before they pay (salts 0, 1)
const STRANGER = testAccount(52); // signs for wallets that are not its own
const PAYEE = getAddress("0x0000000000000000000000000000000000007702");
const PRICE_60_DAYS = 300_000n; // 30 days past the free 30 at 0.01 USDG a day, in base units
const GRID = "/v1/agent/backtest/grid";

/** What x402's client signs with: an address (the payer, `from`) and a way to sign typed data for it. */
type Signer = { address: Address; signTypedData(typedData: any): Promise<Hex> };

let s: StackApp;
let prefix: string;
let usdg: Address;
let factory: Address;
let body: Record<string, unknown>;
let smart: Address;
const payments = () => ({ facilitatorUrl: stack.facilitatorUrl, payee: PAYEE, pricePerDayUsdg: 0.01, keyPrefix: `${prefix}:pay` });
const usdgOf = (who: Address) => balanceAt(s.chain, usdg, who);
/**
 * fetch on the app. A Request is passed on as its parts: once a file before this one in the process has served
 * with @hono/node-server, the global Request that x402's client builds with is no longer the class the app
 * checks for, and the app would read it as the path "[object Request]".
 */
const fetchApp = (app: StackApp["app"]["app"]) => async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
  if (typeof input === "string" || input instanceof URL) return app.request(String(input), init);
  const body = input.method === "GET" || input.method === "HEAD" ? undefined : await input.arrayBuffer();
  return app.request(input.url, { method: input.method, headers: input.headers, body, ...init });
};

async function post(path: string, json: unknown, headers: Record<string, string> = {}, app = s.app.app) {
  const res = await app.request(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(json) });
  return { res, body: (await res.json()) as any };
}

/** The offer of a 60-day run, as x402's client reads it from the 402. */
async function offer(app = s.app.app): Promise<PaymentRequired> {
  const first = await post(GRID, body, {}, app);
  expect(first.res.status).toBe(402);
  return new x402HTTPClient(x402Client.fromConfig({ schemes: [], spendControls: false })).getPaymentRequiredResponse(
    (n) => first.res.headers.get(n),
    first.body,
  );
}

/** A PAYMENT-SIGNATURE header for `required`, signed by `signer` with x402's own client. */
async function headerFor(signer: Signer, required: PaymentRequired): Promise<Record<string, string>> {
  const client = new x402HTTPClient(x402Client.fromConfig({ schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(signer) }], spendControls: false }));
  return client.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

/** A paid 200: the backtest, and one settlement moving exactly the price from `payer` to the payee. */
async function expectPaidOnce(res: Response, json: any, payer: Address) {
  expect(res.status, JSON.stringify(json)).toBe(200);
  expect(json.data.params.days).toBe(60);
  const settled = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
  expect(getAddress(settled.payer!)).toBe(payer);
  const receipt = await s.chain.getTransactionReceipt({ hash: settled.transaction as Hex });
  expect(receipt.status).toBe("success");
  const transfers = receipt.logs
    .filter((l) => getAddress(l.address) === usdg)
    .map((l) => decodeEventLog({ abi: testTokenAbi, data: l.data, topics: l.topics }))
    .filter((e) => e.eventName === "Transfer")
    .map((e) => e.args);
  expect(transfers).toEqual([{ from: payer, to: PAYEE, value: PRICE_60_DAYS }]);
}

/** A refused payment: 402 with the reason, the failed check and the remedy in `details`, and nothing moved. */
async function expectRefused(headers: Record<string, string>, payer: Address, reason: string, app = s.app.app) {
  const [payerBefore, payeeBefore] = [await usdgOf(payer), await usdgOf(PAYEE)];
  const answer = await post(GRID, body, headers, app);
  expect(answer.res.status, JSON.stringify(answer.body)).toBe(402);
  expect(s.validator.errors("post", GRID, 402, answer.body)).toEqual([]);
  expect(answer.res.headers.get("PAYMENT-RESPONSE")).toBeNull();
  expect(answer.body.details?.reason).toBe(reason);
  expect(answer.body.error).toContain(answer.body.details.remedy);
  expect([await usdgOf(payer), await usdgOf(PAYEE)]).toEqual([payerBefore, payeeBefore]);
  return answer.body.details as { reason: string; check?: string; remedy: string };
}

/** A SmartAccount of COUNTERFACTUAL_OWNER at `salt` that is not deployed: its address and the factory's calldata. */
async function counterfactual(salt: bigint) {
  const address = await s.chain.readContract({
    address: factory,
    abi: smartAccountFactoryAbi,
    functionName: "getAddress",
    args: [COUNTERFACTUAL_OWNER.address, salt],
  });
  expect(await s.chain.getCode({ address })).toBeUndefined();
  const data = encodeFunctionData({ abi: smartAccountFactoryAbi, functionName: "createAccount", args: [COUNTERFACTUAL_OWNER.address, salt] });
  return { address, data };
}

beforeAll(async () => {
  prefix = randomPrefix();
  s = await openStackApp(stack, { prefix, app: { now: () => new Date(), rateLimit: { keyPrefix: `${prefix}:rl` }, payments: payments() } });
  usdg = getAddress(s.d.contracts.usdg!);
  factory = getAddress(s.d.contracts.smartAccountFactory!);
  for (const who of [DELEGATED, OWNER, BUNDLER]) await sendEthAt(stack.rpcUrl, s.chain, who.address, parseUnits("1", 18));
  await delegatedWallet(stack.rpcUrl, s.chain, DELEGATED, s.d);
  smart = (await smartAccountWallet(stack.rpcUrl, s.chain, OWNER, BUNDLER, s.d)).address;
  for (const who of [DELEGATED.address, smart]) await mintAt(stack.rpcUrl, s.chain, usdg, who, parseUnits("1", 6));
  const weth = tokenIn(s.d, "WETH").address;
  const now = Math.floor(Date.now() / 1000);
  const series = await loadSeries(s.reads, weth, now - 2 * 86400, now, "10m");
  const last = series.close[series.length - 1]!;
  body = { token: weth, buyPrice: (last * 0.995).toFixed(4), sellPrice: (last * 1.005).toFixed(4), amountUsd: 200, repeat: true, days: 60 };
});

afterAll(async () => {
  await s?.close();
});

describe("an EIP-7702 account (delegated to the BatchExecutor, which has no ERC-1271)", () => {
  it("pays with its own key through x402's fetch client as skill.md writes it, and gets the paid answer", async () => {
    const code = await s.chain.getCode({ address: DELEGATED.address });
    expect(code?.toLowerCase()).toBe(`0xef0100${s.d.contracts.batchExecutor!.slice(2).toLowerCase()}`);
    const account = DELEGATED;
    const USDG = usdg;
    const payingFetch = wrapFetchWithPaymentFromConfig(fetchApp(s.app.app) as typeof fetch, {
      schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(account) }],
      spendControls: { allowedAssets: [{ network: "eip155:4663", asset: USDG, maxAmountPerPayment: "1000000" }] },
    });
    const before = await usdgOf(DELEGATED.address);
    const res = await payingFetch(`http://127.0.0.1${GRID}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    await expectPaidOnce(res, await res.json(), DELEGATED.address);
    expect(await usdgOf(DELEGATED.address)).toBe(before - PRICE_60_DAYS);
  });

  it("a stranger's signature for it is refused: ECDSA recovers the stranger, and its delegate's ERC-1271 cannot speak", async () => {
    const header = await headerFor({ address: DELEGATED.address, signTypedData: (m) => STRANGER.signTypedData(m) }, await offer());
    const details = await expectRefused(header, DELEGATED.address, "invalid_exact_evm_signature");
    expect(details.check).toContain(`recovers to ${STRANGER.address}, not the payer ${DELEGATED.address}`);
    expect(details.check).toContain(`EIP-7702 account delegated to ${getAddress(s.d.contracts.batchExecutor!)}`);
    expect(details.check).toContain("ERC-1271: its code reverted");
    expect(details.remedy).toMatch(/EIP-7702, signs the TransferWithAuthorization typed data with its own key/);
    expect(details.remedy).toMatch(/Signing the same way again fails the same way/);
  });
});

describe("an ERC-4337 SmartAccount", () => {
  it("deployed, pays by ERC-1271: its owner signs the payment's typed data", async () => {
    expect(await s.chain.getCode({ address: smart })).toBeTruthy();
    const before = await usdgOf(smart);
    const answer = await post(GRID, body, await headerFor({ address: smart, signTypedData: (m) => OWNER.signTypedData(m) }, await offer()));
    await expectPaidOnce(answer.res, answer.body, smart);
    expect(await usdgOf(smart)).toBe(before - PRICE_60_DAYS);
  });

  it("deployed, pays through the typed client given its address and its owner's signing", async () => {
    const before = await usdgOf(smart);
    const settlements: Settlement[] = [];
    const account = { address: smart, signTypedData: (m: never) => OWNER.signTypedData(m) };
    const client = createAgentClient({
      baseUrl: "http://127.0.0.1",
      fetch: fetchApp(s.app.app) as typeof fetch,
      pay: { account, maxAmountUsdg: "0.5", onSettlement: (x) => settlements.push(x) },
    });
    expect((await client.backtestGrid(body as never)).params.days).toBe(60);
    expect(settlements.map((x) => getAddress(x.payer!))).toEqual([smart]);
    expect(await usdgOf(smart)).toBe(before - PRICE_60_DAYS);
  });

  it("deployed, a stranger's signature is refused by its ERC-1271", async () => {
    const header = await headerFor({ address: smart, signTypedData: (m) => STRANGER.signTypedData(m) }, await offer());
    const details = await expectRefused(header, smart, "invalid_exact_evm_signature");
    expect(details.check).toContain(`the payer ${smart} is a contract and its isValidSignature answered 0xffffffff`);
  });

  it("not deployed yet, pays by ERC-6492: the facilitator deploys it with the devnet's factory, then settles once", async () => {
    const { address, data } = await counterfactual(0n);
    await mintAt(stack.rpcUrl, s.chain, usdg, address, PRICE_60_DAYS);
    const signTypedData: Signer["signTypedData"] = async (m) =>
      serializeErc6492Signature({ address: factory, data, signature: await COUNTERFACTUAL_OWNER.signTypedData(m) });
    const header = await headerFor({ address, signTypedData }, await offer());
    const answer = await post(GRID, body, header);
    await expectPaidOnce(answer.res, answer.body, address);
    expect(await s.chain.getCode({ address })).toBeTruthy();
    expect(await usdgOf(address)).toBe(0n);
    // The same payment again: taken once only (this service's claim), nothing more moves.
    await expectRefused(header, address, "payment_already_used");
  });

  it("not deployed, refused with what to do: an ERC-6492 factory the facilitator does not deploy with, or no ERC-6492 at all", async () => {
    const { address, data } = await counterfactual(1n);
    await mintAt(stack.rpcUrl, s.chain, usdg, address, PRICE_60_DAYS);
    const elsewhere = getAddress(s.d.contracts.entryPoint!); // a contract, but not an allowed factory
    const wrongFactory: Signer["signTypedData"] = async (m) =>
      serializeErc6492Signature({ address: elsewhere, data, signature: await COUNTERFACTUAL_OWNER.signTypedData(m) });
    const refused = await expectRefused(await headerFor({ address, signTypedData: wrongFactory }, await offer()), address, "eip6492_factory_not_allowed");
    expect(refused.check).toContain(`names factory ${elsewhere}, which this facilitator does not deploy with (it does with: ${factory})`);
    expect(refused.remedy).toMatch(/deploy the account first/);

    const bare = await expectRefused(
      await headerFor({ address, signTypedData: (m) => COUNTERFACTUAL_OWNER.signTypedData(m) }, await offer()),
      address,
      "invalid_exact_evm_signature",
    );
    expect(bare.check).toContain(`recovers to ${COUNTERFACTUAL_OWNER.address}, not the payer ${address}; the payer has no code`);
    expect(bare.check).toMatch(/wraps its owner's signature in ERC-6492 or is deployed first/);
    expect(await s.chain.getCode({ address })).toBeUndefined();
  });
});

describe("a contract wallet whose ERC-1271 accepts anything", () => {
  it("pays from its own balance only, once per payment; it cannot authorize another payer's funds; empty, it is refused before any run", async () => {
    const liar = await deployLyingWallet(stack.rpcUrl, s.chain, BUNDLER);
    await mintAt(stack.rpcUrl, s.chain, usdg, liar, PRICE_60_DAYS);
    // Anyone may sign for it: the stranger pays with the liar's USDG, exactly the price, once.
    const asLiar: Signer = { address: liar, signTypedData: (m) => STRANGER.signTypedData(m) };
    const header = await headerFor(asLiar, await offer());
    const answer = await post(GRID, body, header);
    await expectPaidOnce(answer.res, answer.body, liar);
    expect(await usdgOf(liar)).toBe(0n);
    await expectRefused(header, liar, "payment_already_used");
    // Empty now: a new payment is refused before the run (USDG's balance check in the facilitator's simulation).
    await expectRefused(await headerFor(asLiar, await offer()), liar, "invalid_exact_evm_insufficient_balance");
    // Its code speaks only for itself: the stranger's signature cannot move the 7702 wallet's USDG.
    const forged = await expectRefused(
      await headerFor({ address: DELEGATED.address, signTypedData: (m) => STRANGER.signTypedData(m) }, await offer()),
      DELEGATED.address,
      "invalid_exact_evm_signature",
    );
    expect(forged.check).toContain("ECDSA");
  });

  it("one that turns honest between the run and its settlement: settlement refused, the result withheld, nothing moved", async () => {
    const liar = await deployLyingWallet(stack.rpcUrl, s.chain, BUNDLER);
    await mintAt(stack.rpcUrl, s.chain, usdg, liar, PRICE_60_DAYS);
    // The real facilitator, but the wallet stops lying just before /settle is forwarded.
    const proxy = new Hono()
      .get("/supported", () => fetch(`${stack.facilitatorUrl}/supported`))
      .post("/verify", async (c) =>
        fetch(`${stack.facilitatorUrl}/verify`, { method: "POST", headers: { "Content-Type": "application/json" }, body: await c.req.text() }),
      )
      .post("/settle", async (c) => {
        await writeAt(stack.rpcUrl, s.chain, BUNDLER, { address: liar, abi: lyingWalletAbi, functionName: "setLying", args: [false] });
        return fetch(`${stack.facilitatorUrl}/settle`, { method: "POST", headers: { "Content-Type": "application/json" }, body: await c.req.text() });
      });
    const port = await freePort();
    const server = await new Promise<ServerType>((resolve) => {
      // Globals left alone: replaced, they break the app.request of x402's Requests in later files of this process.
      const srv = serve({ fetch: proxy.fetch, port, hostname: "127.0.0.1", overrideGlobalObjects: false }, () => resolve(srv));
    });
    try {
      const app = testApp({
        ...s.app.deps,
        payments: { ...payments(), facilitatorUrl: `http://127.0.0.1:${port}` },
        rateLimit: { keyPrefix: `${prefix}:rl2` },
      }).app;
      const header = await headerFor({ address: liar, signTypedData: (m) => STRANGER.signTypedData(m) }, await offer(app));
      const details = await expectRefused(header, liar, "invalid_exact_evm_signature", app);
      expect(details.check).toContain("isValidSignature answered 0xffffffff");
      expect(await usdgOf(liar)).toBe(PRICE_60_DAYS);
    } finally {
      server.close();
    }
  });
});
