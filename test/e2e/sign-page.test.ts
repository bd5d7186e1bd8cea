// The sign page in a real browser: Debian's Chromium (headless, through playwright-core) opens
// {base}/sign/{id} served by the API on a real port. Its injected wallet (window.ethereum, EIP-1193)
// forwards every request to a Node-side viem wallet of test wallet 0, which signs and sends for real
// on the devnet. The page's button sends the bundle once through wallet_sendCalls (a vault deposit)
// and once through the fallback (the wallet answers 4200 to wallet_sendCalls; a limit order), then
// the chain is checked. Expiry: with the app's clock moved 10 minutes on, sign-requests/{id} answers
// 404 and the page says the request has expired, with no button. Sign-in: on a page of the service,
// the report-card challenge's EIP-4361 message is signed through the injected wallet's personal_sign
// (which checks the message's domain is the page's host, as wallets do) and exchanged for a session.
// A swap prepared for an empty wallet: the page warns of the shortfall in words above the steps, its button
// says so and stays off until the wallet is funded (the script re-reads the balance through the wallet),
// and amounts read in about six significant digits with the exact figure on hover, beside the quote's
// expected output and price impact. Screenshots go to test/.artifacts/.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { Kysely } from "kysely";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { formatUnits, getAddress, hexToString, parseUnits, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { marketRegistryAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import type { testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { testAccount, tokenIn, walletAt } from "../helpers/wallets.js";
import { until as waitUntil } from "../helpers/http.js";
import { freePort } from "../helpers/stack.js";
import { ARTIFACTS, CHROMIUM_LAUNCH } from "../helpers/chromium.js";

const stack = inject("stack");
const account = testAccount(0);
const owner = account.address;

let opened: StackApp;
let reads: Kysely<Projections>;
let d: Deployments;
let chain: PublicClient;
let local: ReturnType<typeof testApp>;
let server: Server;
let base: string;
let browser: BrowserContext;
let userDataDir: string;
let validator: ResponseValidator;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  opened = await openStackApp(stack, { app: { baseUrl: base } });
  ({ reads, d, chain, app: local, validator } = opened);
  server = serve({ fetch: local.app.fetch, port, hostname: "127.0.0.1" }) as Server;
  mkdirSync(ARTIFACTS, { recursive: true });
  userDataDir = mkdtempSync(join(tmpdir(), "sign-page-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    ...CHROMIUM_LAUNCH,
    viewport: { width: 1100, height: 900 },
  });
});

afterAll(async () => {
  await browser?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await opened?.close();
});

type Prepared = {
  id: string;
  kind: string;
  signUrl: string;
  steps: { to: Address; data: Hex; value: string }[];
  walletSendCalls: { calls: { to: Address; data: Hex; value: string }[] };
};

async function prepared(kind: string, body: Record<string, unknown>): Promise<Prepared> {
  const path = `/v1/agent/prepare/${kind}`;
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ owner, ...body }) });
  const answer = (await res.json()) as { data: Prepared } & Record<string, unknown>;
  expect(validator.errors("post", path, res.status, answer), `${path} against the OpenAPI document`).toEqual([]);
  expect(res.status, JSON.stringify(answer).slice(0, 600)).toBe(200);
  expect(answer.data.signUrl).toBe(`${base}/sign/${answer.data.id}`);
  return answer.data as Prepared;
}

const until = <T>(what: string, read: () => Promise<T | undefined | null | false>, ms = 60_000) => waitUntil(what, read, ms, 250);

// ---- the injected wallet: window.ethereum in the page, a viem wallet of test wallet 0 in Node ----

type WalletRequest = { method: string; params?: unknown[] };
type WalletAnswer = { result?: unknown; error?: { code: number; message: string } };
type TestWallet = { methods: string[]; sent: { hash: Hex; to: Address; data: Hex }[]; signIns: ReturnType<typeof parseSiweMessage>[] };

/** In the page: an EIP-1193 provider whose requests go to Node through the exposed `__testWallet`. */
const PROVIDER_SCRIPT = `
  window.ethereum = {
    isTestWallet: true,
    request: async function (args) {
      const answer = await window.__testWallet({ method: args.method, params: args.params });
      if (answer.error) { const e = new Error(answer.error.message); e.code = answer.error.code; throw e; }
      return answer.result;
    },
    on: function () {},
    removeListener: function () {},
  };
`;

/**
 * A page with the test wallet injected. `sendCalls`: whether the wallet has wallet_sendCalls (EIP-5792);
 * it sends a batch's calls one after another, each after the previous is mined, and reports them by
 * wallet_getCallsStatus. Without it, wallet_sendCalls answers 4200 as an EIP-1193 wallet does.
 */
async function walletPage(sendCalls: boolean): Promise<{ page: Page; wallet: TestWallet; errors: string[] }> {
  const signer = walletAt(stack.rpcUrl, account);
  const wallet: TestWallet = { methods: [], sent: [], signIns: [] };
  const batches = new Map<string, { status: number; receipts: unknown[] }>();
  const rawReceipt = (hash: Hex) =>
    (chain.request as (a: { method: string; params: unknown[] }) => Promise<unknown>)({ method: "eth_getTransactionReceipt", params: [hash] });
  const send = async (tx: { from?: string; to: Address; data: Hex; value?: string }) => {
    if (tx.from && getAddress(tx.from) !== owner) throw Object.assign(new Error(`from ${tx.from} is not this wallet's account`), { code: 4100 });
    const hash = await signer.sendTransaction({ to: getAddress(tx.to), data: tx.data, value: BigInt(tx.value ?? "0x0") });
    wallet.sent.push({ hash, to: getAddress(tx.to), data: tx.data });
    return hash;
  };

  const handle = async ({ method, params = [] }: WalletRequest): Promise<WalletAnswer> => {
    wallet.methods.push(method);
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return { result: [owner] };
      case "eth_chainId":
        return { result: "0x1237" };
      case "wallet_sendCalls": {
        if (!sendCalls) return { error: { code: 4200, message: "The method wallet_sendCalls is not supported" } };
        const p = params[0] as { version: string; chainId: string; from: string; calls: { to: Address; data: Hex; value: string }[] };
        if (p.version !== "2.0.0" || p.chainId !== "0x1237" || getAddress(p.from) !== owner)
          return { error: { code: -32602, message: "bad wallet_sendCalls params" } };
        const id = `0x${randomBytes(32).toString("hex")}`;
        const batch = { status: 100, receipts: [] as unknown[] };
        batches.set(id, batch);
        void (async () => {
          for (const call of p.calls) {
            const hash = await send(call);
            await chain.waitForTransactionReceipt({ hash });
            const receipt = (await rawReceipt(hash)) as { status: string };
            batch.receipts.push(receipt);
            if (receipt.status !== "0x1") return void (batch.status = 500);
          }
          batch.status = 200;
        })().catch(() => (batch.status = 400));
        return { result: { id } };
      }
      case "wallet_getCallsStatus": {
        const id = params[0] as string;
        const batch = batches.get(id);
        if (!batch) return { error: { code: 5730, message: "Unknown bundle id" } };
        return {
          result: { version: "2.0.0", id, chainId: "0x1237", status: batch.status, atomic: false, receipts: batch.status === 100 ? undefined : batch.receipts },
        };
      }
      case "eth_sendTransaction":
        return { result: await send(params[0] as { from: string; to: Address; data: Hex; value?: string }) };
      case "eth_getTransactionReceipt":
        return { result: await rawReceipt(params[0] as Hex) };
      case "eth_call":
        return { result: await (chain.request as (a: { method: string; params: unknown[] }) => Promise<unknown>)({ method: "eth_call", params }) };
      case "personal_sign": {
        // As a wallet does with a sign-in: an EIP-4361 message must name the site asking (the page's host).
        const [raw, from] = params as [Hex, string];
        if (getAddress(from) !== owner) return { error: { code: 4100, message: `${from} is not this wallet's account` } };
        const text = hexToString(raw);
        const siwe = parseSiweMessage(text);
        wallet.signIns.push(siwe);
        if (siwe.domain !== new URL(page.url()).host) return { error: { code: 4001, message: `the sign-in is for ${siwe.domain}, not this site` } };
        return { result: await account.signMessage({ message: { raw } }) };
      }
      default:
        return { error: { code: 4200, message: `The method ${method} is not supported` } };
    }
  };

  const page = await browser.newPage();
  await page.exposeFunction("__testWallet", (request: WalletRequest) =>
    handle(request).catch((e: Error & { code?: number }) => ({ error: { code: e.code ?? -32603, message: e.message } })),
  );
  await page.addInitScript({ content: PROVIDER_SCRIPT });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  return { page, wallet, errors };
}

/** Opens the sign page, checks it says what the steps do, presses the button and waits for the outcome. */
async function signOnPage({ page, errors }: { page: Page; errors: string[] }, result: Prepared, expectedSummaries: string[]) {
  const res = await page.goto(result.signUrl);
  expect(res?.status()).toBe(200);
  expect(res?.headers()["content-security-policy"]).toContain("script-src 'sha256-");
  const steps = page.locator("li.step");
  await expect.poll(() => steps.count()).toBe(result.steps.length);
  const texts = await steps.allInnerTexts();
  expectedSummaries.forEach((summary, i) => expect(texts[i]).toContain(summary));
  await expect.poll(() => page.locator("#send").isEnabled()).toBe(true);
  await page.click("#send");
  await page.waitForSelector('#status[data-kind="ok"], #status[data-kind="error"]', { timeout: 90_000 });
  const status = await page.textContent("#status");
  expect(status, `page errors: ${errors.join(" | ")}`).toContain("Done: every step is confirmed on chain.");
  expect(await page.locator('li.step[data-state="confirmed"]').count()).toBe(result.steps.length);
  for (const text of await steps.allInnerTexts()) expect(text).toMatch(/Confirmed\s+Transaction 0x[0-9a-f]{64}/);
  expect(await page.locator("#send").isVisible()).toBe(false);
  expect(errors).toEqual([]);
}

/** Every transaction the wallet sent succeeded on chain, in the bundle's order and to its targets. */
async function expectSentOnChain(wallet: TestWallet, result: Prepared) {
  expect(wallet.sent.map((s) => [s.to, s.data])).toEqual(result.walletSendCalls.calls.map((c) => [getAddress(c.to), c.data]));
  for (const { hash } of wallet.sent) {
    const receipt = await chain.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(getAddress(receipt.from)).toBe(owner);
  }
}

const tokenBy = (symbol: string) => tokenIn(d, symbol);
const usdgBalance = () => chain.readContract({ address: d.contracts.usdg!, abi: testTokenAbi, functionName: "balanceOf", args: [owner] });

/** In the page: report-card sign-in with the injected wallet, as a site would do it (challenge, personal_sign of the message's UTF-8 bytes, session, private card). */
const SIGN_IN_SCRIPT = `(async () => {
  const post = (path, body) =>
    fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const [account] = await window.ethereum.request({ method: "eth_requestAccounts" });
  const challenge = await post("/v1/agent/report-card/session/challenge", { owner: account });
  const message = challenge.body.data.message;
  const hex = "0x" + Array.from(new TextEncoder().encode(message), (b) => b.toString(16).padStart(2, "0")).join("");
  const signature = await window.ethereum.request({ method: "personal_sign", params: [hex, account] });
  const session = await post("/v1/agent/report-card/session", { owner: account, challengeId: challenge.body.data.challengeId, signature });
  const card = await fetch("/v1/agent/report-card/" + account + "/private", { headers: { authorization: "Bearer " + session.body.data.token } });
  return { account, message, challenge: challenge.status, session: session.status, sessionOwner: session.body.data.owner, card: card.status, view: (await card.json()).data.view };
})()`;

describe("the sign page in Chromium (wallet 0)", () => {
  it("signs in to the report card from the service's page with the wallet's personal_sign of the EIP-4361 message", async () => {
    const w = await walletPage(true);
    // A page of the service (the reference page: same origin, connect-src 'self').
    expect((await w.page.goto(`${base}/v1/agent/reference`))?.status()).toBe(200);
    const result = (await w.page.evaluate(SIGN_IN_SCRIPT)) as Record<string, unknown>;
    expect(result).toMatchObject({ account: owner, challenge: 200, session: 200, sessionOwner: owner, card: 200, view: "private" });
    expect(w.wallet.methods).toContain("personal_sign");
    // The wallet saw a SIWE message for this host, this account, chain 4663, the challenge as nonce.
    expect(w.wallet.signIns).toHaveLength(1);
    expect(w.wallet.signIns[0]).toMatchObject({ domain: new URL(base).host, address: owner, chainId: 4663, uri: base, version: "1" });
    expect(result.message).toMatch(/^127\.0\.0\.1:\d+ wants you to sign in with your Ethereum account:\n0x/);
    expect(w.errors).toEqual([]);
    await w.page.close();
  });

  it("sends a vault deposit through wallet_sendCalls; the shares arrive", async () => {
    const vault = d.vaults.find((v) => v.family === "merged" && v.token.toLowerCase() === tokenBy("WETH").address.toLowerCase())!;
    const shares = () => chain.readContract({ address: vault.address, abi: testTokenAbi, functionName: "balanceOf", args: [owner] });
    const sharesBefore = await shares();
    const usdgBefore = await usdgBalance();
    const result = await prepared("vault-deposit", { vault: vault.address, amount: "250" });
    expect(result.steps).toHaveLength(2);

    const { page, wallet, errors } = await walletPage(true);
    await signOnPage({ page, errors }, result, [`Approve 250 USDG to the ${vault.name} vault`, `Deposit 250 USDG into the ${vault.name} vault`]);
    await page.screenshot({ path: join(ARTIFACTS, "sign-page-wallet-sendcalls.png"), fullPage: true });
    await page.close();

    expect(wallet.methods).toContain("wallet_sendCalls");
    expect(wallet.methods).toContain("wallet_getCallsStatus");
    expect(wallet.methods).not.toContain("eth_sendTransaction");
    await expectSentOnChain(wallet, result);
    expect(usdgBefore - (await usdgBalance())).toBe(250_000_000n);
    await until("the vault shares after the keeper settles the deposit", async () => (await shares()) > sharesBefore);
  });

  it("falls back to eth_sendTransaction one by one, approval first, when the wallet lacks wallet_sendCalls; the order exists", async () => {
    const weth = tokenBy("WETH");
    const priceX18 = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [weth.address] });
    const price = formatUnits((priceX18 * 8n) / 10n, 18);
    const after = (await reads.selectFrom("limitOrder").select("id").orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0n;
    const result = await prepared("limit-order", { token: "WETH", side: "buy", amount: "25", price });
    expect(result.steps).toHaveLength(2);

    const { page, wallet, errors } = await walletPage(false);
    await signOnPage({ page, errors }, result, [
      "Approve 25 USDG to the limit-order hook",
      "Place a limit order on the limit-order hook: buy WETH with 25 USDG at",
    ]);
    await page.screenshot({ path: join(ARTIFACTS, "sign-page-fallback.png"), fullPage: true });
    await page.close();

    // Tried the batch once, then each call in order, each receipt awaited before the next call.
    const sendCalls = wallet.methods.indexOf("wallet_sendCalls");
    expect(sendCalls).toBeGreaterThanOrEqual(0);
    expect(wallet.methods.filter((m) => m === "wallet_sendCalls")).toHaveLength(1);
    const afterBatch = wallet.methods.slice(sendCalls + 1).filter((m, i, all) => m !== all[i - 1]); // receipt polls counted once
    expect(afterBatch).toEqual(["eth_sendTransaction", "eth_getTransactionReceipt", "eth_sendTransaction", "eth_getTransactionReceipt"]);
    await expectSentOnChain(wallet, result);
    expect(wallet.sent[0]!.data.startsWith("0x095ea7b3")).toBe(true); // the approval went first

    const order = await until("the order in the projection", () =>
      reads
        .selectFrom("limitOrder")
        .select(["id", "amountIn", "owner"])
        .where("owner", "=", owner.toLowerCase() as Hex)
        .where("id", ">", after)
        .executeTakeFirst(),
    );
    expect(order.amountIn).toBe(25_000_000n);
  });

  it("expiry: 10 minutes on, sign-requests/{id} answers 404 and the page says the request has expired", async () => {
    const vault = d.vaults.find((v) => v.family === "merged" && v.token.toLowerCase() === tokenBy("WETH").address.toLowerCase())!;
    const result = await prepared("vault-deposit", { vault: vault.address, amount: "20" });
    const path = `/v1/agent/sign-requests/${result.id}`;
    const live = await fetch(`${base}${path}`);
    expect(live.status).toBe(200);

    const { page, wallet } = await walletPage(true);
    expect((await page.goto(result.signUrl))?.status()).toBe(200);
    await expect.poll(() => page.locator("#send").isEnabled()).toBe(true);
    expect(await page.locator("#expired-warning").isVisible()).toBe(false);

    // Two seconds before the end: the page is still live, and its own countdown turns it to expired.
    local.clock.advance(10 * 60 * 1000 - 2000);
    expect((await page.reload())?.status()).toBe(200);
    expect(await page.locator("#send").isVisible()).toBe(true);
    await page.waitForSelector("#expired-warning", { state: "visible", timeout: 10_000 });
    expect(await page.locator("#send").isVisible()).toBe(false);
    expect(await page.textContent("#status")).toContain("This request has expired");

    local.clock.advance(2000);
    const gone = await fetch(`${base}${path}`);
    const body = (await gone.json()) as { code: string };
    expect(gone.status).toBe(404);
    expect(body.code).toBe("NOT_FOUND");
    expect(validator.errors("get", path, 404, body)).toEqual([]);

    const res = await page.reload();
    expect(res?.status()).toBe(410);
    expect(await page.locator("#expired-warning").isVisible()).toBe(true);
    expect(await page.textContent("#expired-warning")).toContain("This request has expired");
    expect(await page.locator("#send").count()).toBe(0);
    expect(await page.locator("li.step").count()).toBe(2); // still says what it was, in words
    expect(await page.content()).not.toContain(result.walletSendCalls.calls[1]!.data); // but no calldata to reuse
    await page.screenshot({ path: join(ARTIFACTS, "sign-page-expired.png"), fullPage: true });

    const unknown = await page.goto(`${base}/sign/${randomBytes(24).toString("base64url")}`);
    expect(unknown?.status()).toBe(404);
    expect(await page.textContent("body")).toContain("unknown or has expired");
    await page.close();
    expect(wallet.sent).toEqual([]);
  });

  it("a swap for an empty wallet: the shortfall in words, the button off until funded, amounts rounded, the quote beside the minimum", async () => {
    const empty = privateKeyToAccount(generatePrivateKey()).address;
    const result = (await prepared("swap", { owner: empty, tokenIn: "USDG", tokenOut: "WETH", amount: "25.5" })) as Prepared & {
      issues: { balance: { actual: string; expected: string } | null };
      params: { quote: { expectedOut: string; minimumOut: string; priceImpactBps: number } };
    };
    expect(result.issues.balance).toMatchObject({ actual: "0", expected: "25500000" });

    const { page, wallet, errors } = await walletPage(true);
    expect((await page.goto(result.signUrl))?.status()).toBe(200);
    const warning = page.locator("#balance-warning");
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toContain("Your wallet holds 0 USDG; this bundle needs 25.5 USDG. Add 25.5 USDG to your wallet");
    // Above the steps, so it is read first.
    expect(await page.evaluate('document.querySelector("#balance-warning").compareDocumentPosition(document.querySelector("ol.steps"))')).toBe(4);
    const button = page.locator("#send");
    expect(await button.textContent()).toBe("Not enough USDG to send: add it first");
    // The script has re-read the balance through the wallet, and the button stays off.
    await expect.poll(() => wallet.methods.includes("eth_call"), { timeout: 10_000 }).toBe(true);
    expect(await button.isDisabled()).toBe(true);

    // Amounts: about six significant digits, the exact figure in the title (hover) and data-exact (tap).
    const swapStep = page.locator('li.step[data-step="1"]');
    const stepText = (await swapStep.textContent()) ?? "";
    const { expectedOut, minimumOut, priceImpactBps } = result.params.quote;
    const sixDigits = (x: string) => x.replace(/[.,]/g, "").replace(/^0+/, "").length <= 6;
    const rounded = swapStep.locator(".amount");
    expect(await rounded.count()).toBeGreaterThan(0);
    for (const span of await rounded.all()) {
      expect(sixDigits((await span.textContent())!)).toBe(true);
      expect(await span.getAttribute("title")).toMatch(/^exactly [\d,]+\.\d+$/);
    }
    const titles = await rounded.evaluateAll((all) => all.map((e) => e.getAttribute("data-exact")));
    expect(titles).toContain(minimumOut);
    expect(titles).toContain(expectedOut);
    expect(stepText).not.toContain(minimumOut); // the 18-decimal figure is not what the person reads
    expect(stepText).toContain(`price impact ${(priceImpactBps / 100).toFixed(2)}%`);
    expect(stepText).toMatch(/Expected: [\d.,]+ WETH after the fee/);
    expect(stepText).toMatch(/The minimum, [\d.,]+ WETH, is the least the swap accepts/);
    await page.screenshot({ path: join(ARTIFACTS, "sign-page-shortfall.png"), fullPage: true });

    // Funded: the script sees the balance and turns the button on; a reload has no warning at all.
    const funder = walletAt(stack.rpcUrl, account);
    const hash = await funder.writeContract({ address: d.contracts.usdg!, abi: testTokenAbi, functionName: "transfer", args: [empty, parseUnits("25.5", 6)] });
    await chain.waitForTransactionReceipt({ hash });
    await expect.poll(() => button.isEnabled(), { timeout: 15_000 }).toBe(true);
    expect(await button.textContent()).toBe("Connect wallet and send all 2 steps");
    expect(await warning.isVisible()).toBe(false);
    expect((await page.reload())?.status()).toBe(200);
    expect(await page.locator("#balance-warning").count()).toBe(0);
    await expect.poll(() => page.locator("#send").isEnabled()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
