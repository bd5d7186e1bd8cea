// x402 v2 on the devnet, end to end: a wallet holding USDG asks for a 60-day grid backtest, gets 402 with
// a PaymentRequired that x402's own client parses, pays through the typed client (@x402/fetch), and gets
// 200 with the backtest and PAYMENT-RESPONSE; exactly the price moves from the wallet to the payee in the
// one settlement transaction (on chain, in the indexer's payment projection, in the run log). Refusals:
// a replayed header, an underpayment, an expired authorization, one signed for another payee → 402 with
// the reason; a facilitator that is down → 503 UNAVAILABLE with nothing run or charged. A paid request
// stays rate-limited. Real devnet, real facilitator (devnet/facilitator.ts), real signatures.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serve, type ServerType } from "@hono/node-server";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { Queue } from "bullmq";
import { Hono } from "hono";
import { Redis } from "ioredis";
import { sql } from "kysely";
import { decodeEventLog, getAddress, parseUnits, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { USDG_SPEND_CONTROL } from "../../contract/discovery/preface.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testTokenAbi } from "../../abis/index.js";
import { createAgentClient, type Settlement } from "../../client/agent-client.js";
import { createJobClient } from "../../adapters/queue/request-reply.js";
import { BACKTEST_QUEUE } from "../../usecases/backtest-runs/jobs.js";
import { loadSeries } from "../../usecases/backtest-runs/candles.js";
import { connectRedis, deleteKeys, randomPrefix, REDIS_URL, testApp } from "../api/support.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { freePort } from "../helpers/stack.js";
import { balanceAt, mintAt, testAccount, tokenIn } from "../helpers/wallets.js";

const stack = inject("stack");
const PAYER = testAccount(15); // funded with ETH by the devnet, used by no other test
const PAYEE = getAddress("0x000000000000000000000000000000000000b0b0"); // X402_PAYEE: receives nothing else
const OTHER = getAddress("0x000000000000000000000000000000000000c0c0");
const PRICE_60_DAYS = 300_000n; // 30 days past the free 30 at 0.01 USDG a day, in base units
const GRID = "/v1/agent/backtest/grid";

/**
 * What the app takes from a fetch's input: a URL string, or the request itself. Not `instanceof Request`: a file
 * before this one in the process may have served with @hono/node-server, whose global Request then differs
 * from the class x402's client builds its requests with (String() of one is "[object Request]", a 404).
 */
const asAppInput = (input: string | URL | Request) => (typeof input === "string" || input instanceof URL ? String(input) : input);

let s: StackApp;
let prefix: string;
let usdg: Address;
let body: Record<string, unknown>;
const payments = () => ({ facilitatorUrl: stack.facilitatorUrl, payee: PAYEE, pricePerDayUsdg: 0.01, keyPrefix: `${prefix}:pay` });

/** x402's own HTTP client: parses a 402 and signs payments with PAYER. */
const x402 = new x402HTTPClient(
  // USDG is in none of x402's default-asset tables: no spend controls here (the typed client has its own cap).
  x402Client.fromConfig({ schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(PAYER) }], spendControls: false }),
);

async function post(app: StackApp["app"]["app"], path: string, json: unknown, headers: Record<string, string> = {}) {
  const res = await app.request(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(json) });
  return { res, body: (await res.json()) as any };
}

/** The PaymentRequired of a 402, as x402's client reads it (the PAYMENT-REQUIRED header). */
function paymentRequiredOf(res: Response, json: unknown): PaymentRequired {
  return x402.getPaymentRequiredResponse((name) => res.headers.get(name), json);
}

/** A payment payload signed for `terms` but presented as accepting `offered` (what a cheat would send). */
async function signedAs(offered: PaymentRequired, terms: Partial<PaymentRequired["accepts"][number]>): Promise<Record<string, string>> {
  const altered = { ...offered, accepts: [{ ...offered.accepts[0]!, ...terms }] };
  const payload: PaymentPayload = await x402.createPaymentPayload(altered);
  return x402.encodePaymentSignatureHeader({ ...payload, accepted: offered.accepts[0]! });
}

const usdgOf = (who: Address) => balanceAt(s.chain, usdg, who);
const runsOf = (payer: Address) =>
  s.db.selectFrom("strategy_run").selectAll().where("identity_kind", "=", "payer").where("identity_value", "=", payer.toLowerCase()).execute();

beforeAll(async () => {
  prefix = randomPrefix();
  s = await openStackApp(stack, { prefix, app: { now: () => new Date(), rateLimit: { keyPrefix: `${prefix}:rl` }, payments: payments() } });
  usdg = getAddress(s.d.contracts.usdg!);
  await mintAt(stack.rpcUrl, s.chain, usdg, PAYER.address, parseUnits("10", 6));
  const weth = tokenIn(s.d, "WETH").address;
  const now = Math.floor(Date.now() / 1000);
  const series = await loadSeries(s.reads, weth, now - 2 * 86400, now, "10m");
  const last = series.close[series.length - 1]!;
  body = { token: weth, buyPrice: (last * 0.995).toFixed(4), sellPrice: (last * 1.005).toFixed(4), amountUsd: 200, repeat: true, days: 60 };
});

afterAll(async () => {
  await s?.close();
});

/** A tool error's body (the route's, as its text content: a tool error has no structured content). */
const errorOf = (answer: object) => JSON.parse((answer as { content: { text: string }[] }).content[0]!.text);

describe("a paid 60-day grid backtest on the devnet", () => {
  it("answers 402 with x402 v2's PaymentRequired, then runs once the typed client pays, moving exactly the price to the payee in one settlement", async () => {
    const first = await post(s.app.app, GRID, body);
    expect(first.res.status).toBe(402);
    expect(s.validator.errors("post", GRID, 402, first.body)).toEqual([]);
    const required = paymentRequiredOf(first.res, first.body);
    expect(required.x402Version).toBe(2);
    expect(required.accepts).toEqual([
      {
        scheme: "exact",
        network: "eip155:4663",
        asset: usdg,
        amount: String(PRICE_60_DAYS),
        payTo: PAYEE,
        maxTimeoutSeconds: 300,
        extra: { name: "USD Global", version: "2" },
      },
    ]);
    expect(first.body).toMatchObject({ code: "PAYMENT_REQUIRED", x402Version: 2, accepts: required.accepts });
    expect(first.body.error).toContain("0.3 USDG");

    const [payerBefore, payeeBefore] = [await usdgOf(PAYER.address), await usdgOf(PAYEE)];
    const settlements: Settlement[] = [];
    const client = createAgentClient({
      baseUrl: "http://127.0.0.1",
      fetch: async (input, init) => s.app.app.request(asAppInput(input), init),
      pay: { account: PAYER, maxAmountUsdg: "0.5", onSettlement: (x) => settlements.push(x) },
    });
    const result = await client.backtestGrid(body as never);
    expect(result.params.days).toBe(60);
    expect(result.trades).toBe(result.buys + result.sells);
    expect(settlements).toHaveLength(1);
    const tx = settlements[0]!.transaction as Hex;
    expect(settlements[0]).toMatchObject({ payer: PAYER.address, network: "eip155:4663" });

    // Exactly the price moved, payer to payee, in that one transaction (sent by the facilitator, not the payer).
    expect(await usdgOf(PAYER.address)).toBe(payerBefore - PRICE_60_DAYS);
    expect(await usdgOf(PAYEE)).toBe(payeeBefore + PRICE_60_DAYS);
    const receipt = await s.chain.getTransactionReceipt({ hash: tx });
    expect(receipt.status).toBe("success");
    expect(getAddress(receipt.from)).not.toBe(PAYER.address);
    const transfers = receipt.logs
      .filter((l) => getAddress(l.address) === usdg)
      .map((l) => decodeEventLog({ abi: testTokenAbi, data: l.data, topics: l.topics }))
      .filter((e) => e.eventName === "Transfer");
    expect(transfers.map((e) => e.args)).toEqual([{ from: PAYER.address, to: PAYEE, value: PRICE_60_DAYS }]);

    // The run log keeps the paid run with its settlement transaction.
    const runs = await runsOf(PAYER.address);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ strategy: "grid-backtest", settlement_tx: tx.toLowerCase() });
    expect((runs[0]!.summary as any).paid).toMatchObject({ transaction: tx, amount: String(PRICE_60_DAYS), payTo: PAYEE });

    // The indexer shows it: the payment projection has the settlement, payer, payee and amount.
    let indexed: any[] = [];
    for (let i = 0; i < 80 && indexed.length === 0; i++) {
      const q = await sql<any>`select * from ${sql.table(`${stack.viewsSchema}.usdg_payment`)} where tx_hash = ${tx}`.execute(s.reads);
      indexed = q.rows;
      if (indexed.length === 0) await new Promise((r) => setTimeout(r, 250));
    }
    expect(indexed).toHaveLength(1);
    expect(indexed[0]).toMatchObject({ payer: PAYER.address.toLowerCase(), payee: PAYEE.toLowerCase(), amount: PRICE_60_DAYS });
  });

  it("the typed client pays only up to the max its caller sets, and without `pay` a 402 is an AgentApiError", async () => {
    const before = await usdgOf(PAYER.address);
    const fetchApp = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => s.app.app.request(asAppInput(input), init);
    const thrifty = createAgentClient({ baseUrl: "http://127.0.0.1", fetch: fetchApp, pay: { account: PAYER, maxAmountUsdg: "0.1" } });
    await expect(thrifty.backtestGrid(body as never)).rejects.toMatchObject({ status: 402, code: "PAYMENT_REQUIRED" });
    const unpaid = createAgentClient({ baseUrl: "http://127.0.0.1", fetch: fetchApp });
    await expect(unpaid.backtestGrid(body as never)).rejects.toMatchObject({ status: 402, code: "PAYMENT_REQUIRED" });
    expect(await usdgOf(PAYER.address)).toBe(before);
  });

  it("answers 30 days free (no 402, no payment taken)", async () => {
    const before = await usdgOf(PAYER.address);
    const free = await post(s.app.app, GRID, { ...body, days: 30 });
    expect(free.res.status).toBe(200);
    expect(free.res.headers.get("PAYMENT-RESPONSE")).toBeNull();
    expect(await usdgOf(PAYER.address)).toBe(before);
  });
});

describe("payment is asked only for what will run", () => {
  it("a 60-day backtest or ranges of a token with no price history answers 422 NO_CANDLES, not 402, and takes nothing", async () => {
    const before = await usdgOf(PAYER.address);
    const unknown = privateKeyToAccount(generatePrivateKey()).address;
    const grid = await post(s.app.app, GRID, { ...body, token: unknown });
    expect([grid.res.status, grid.body.code]).toEqual([422, "NO_CANDLES"]);
    expect(grid.res.headers.get("PAYMENT-REQUIRED")).toBeNull();
    const ladder = await post(s.app.app, "/v1/agent/backtest/ladder", { token: unknown, side: "buy", levels: [{ price: "1", amountUsd: 20 }], days: 60 });
    expect([ladder.res.status, ladder.body.code]).toEqual([422, "NO_CANDLES"]);
    const ranges = await s.app.app.request(`/v1/agent/ranges?token=${unknown}&days=60`);
    expect([ranges.status, ((await ranges.json()) as any).code]).toEqual([422, "NO_CANDLES"]);
    // A known token still asks for payment at 60 days.
    expect((await post(s.app.app, GRID, body)).res.status).toBe(402);
    expect(await usdgOf(PAYER.address)).toBe(before);
  });

  it("x402's own fetch client, configured as skill.md writes it, pays and gets 200", async () => {
    const skill = await (await s.app.app.request("/v1/agent/skill.md")).text();
    expect(skill).toContain(USDG_SPEND_CONTROL);
    expect(skill).toContain("wrapFetchWithPaymentFromConfig");
    const llms = await (await s.app.app.request("/v1/agent/llms.txt")).text();
    expect(llms).toContain(USDG_SPEND_CONTROL);
    // USDG's address where skill.md says to take it from.
    const policy = (await (await s.app.app.request("/v1/agent/policies/privy")).json()) as { data: { contracts: { usdg: Address } } };
    const USDG = policy.data.contracts.usdg;
    expect(getAddress(USDG)).toBe(usdg);
    const fetchApp = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => s.app.app.request(asAppInput(input), init);
    const account = PAYER;
    // As skill.md writes it (X402_CLIENT_EXAMPLE), with this test's fetch.
    const payingFetch = wrapFetchWithPaymentFromConfig(fetchApp as typeof fetch, {
      schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(account) }],
      spendControls: { allowedAssets: [{ network: "eip155:4663", asset: USDG, maxAmountPerPayment: "1000000" }] },
    });
    const before = await usdgOf(PAYER.address);
    const res = await payingFetch(`http://127.0.0.1${GRID}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(res.headers.get("PAYMENT-RESPONSE")).toBeTruthy();
    expect(((await res.json()) as any).data.params.days).toBe(60);
    expect(await usdgOf(PAYER.address)).toBe(before - PRICE_60_DAYS);

    // Without the spend control, the stock client refuses to pay (nothing moves).
    const stock = wrapFetchWithPaymentFromConfig(fetchApp as typeof fetch, { schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(account) }] });
    await expect(
      stock(`http://127.0.0.1${GRID}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
    ).rejects.toThrow();
    expect(await usdgOf(PAYER.address)).toBe(before - PRICE_60_DAYS);
  });
});

describe("refused payments answer 402 with the reason, and take nothing", () => {
  /** Sends `headers` for the 60-day backtest; expects 402 and an unchanged payer balance. */
  async function refused(headers: Record<string, string>, app = s.app.app) {
    const before = await usdgOf(PAYER.address);
    const answer = await post(app, GRID, body, headers);
    expect(answer.res.status, JSON.stringify(answer.body)).toBe(402);
    expect(answer.body.code).toBe("PAYMENT_REQUIRED");
    expect(answer.res.headers.get("PAYMENT-RESPONSE")).toBeNull();
    expect(await usdgOf(PAYER.address)).toBe(before);
    return { reason: paymentRequiredOf(answer.res, answer.body).error, error: answer.body.error as string };
  }

  it("a replayed payment header: refused by this service (one payment buys one run) and by the chain (the nonce is used)", async () => {
    const first = await post(s.app.app, GRID, body);
    const header = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(paymentRequiredOf(first.res, first.body)));
    const paid = await post(s.app.app, GRID, body, header);
    expect(paid.res.status).toBe(200);
    expect(paid.res.headers.get("PAYMENT-RESPONSE")).toBeTruthy();
    const again = await refused(header);
    expect(again.reason).toBe("payment_already_used");
    // Another replica (its own Redis keys) meets the same header: the facilitator finds the nonce used.
    const other = testApp({ ...s.app.deps, payments: { ...payments(), keyPrefix: `${prefix}:pay2` }, rateLimit: { keyPrefix: `${prefix}:rl2` } });
    const elsewhere = await refused(header, other.app);
    expect(elsewhere.reason).toBe("invalid_exact_evm_nonce_already_used");
  });

  it("one payment sent twice at once: one run is answered and settled, the other refused", async () => {
    const first = await post(s.app.app, GRID, body);
    const header = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(paymentRequiredOf(first.res, first.body)));
    const before = await usdgOf(PAYER.address);
    const answers = await Promise.all([post(s.app.app, GRID, body, header), post(s.app.app, GRID, body, header)]);
    expect(answers.map((a) => a.res.status).sort()).toEqual([200, 402]);
    expect(answers.find((a) => a.res.status === 402)!.body.error).toContain("payment_already_used");
    expect(await usdgOf(PAYER.address)).toBe(before - PRICE_60_DAYS);
  });

  it("an underpayment: signed for less than the price", async () => {
    const first = await post(s.app.app, GRID, body);
    const { reason } = await refused(await signedAs(paymentRequiredOf(first.res, first.body), { amount: String(PRICE_60_DAYS - 1n) }));
    expect(reason).toBe("invalid_exact_evm_payload_authorization_value_mismatch");
  });

  it("an expired authorization", async () => {
    const first = await post(s.app.app, GRID, body);
    const { reason } = await refused(await signedAs(paymentRequiredOf(first.res, first.body), { maxTimeoutSeconds: -60 }));
    expect(reason).toBe("invalid_exact_evm_payload_authorization_valid_before");
  });

  it("a payment signed for another payee", async () => {
    const first = await post(s.app.app, GRID, body);
    const { reason } = await refused(await signedAs(paymentRequiredOf(first.res, first.body), { payTo: OTHER }));
    expect(reason).toBe("invalid_exact_evm_recipient_mismatch");
    expect(await usdgOf(OTHER)).toBe(0n);
  });

  it("a payment header that is not one", async () => {
    for (const junk of ["bm90IGEgcGF5bWVudA==", "not base64 at all", Buffer.from("[1,2]").toString("base64")]) {
      const { reason } = await refused({ "PAYMENT-SIGNATURE": junk });
      expect(reason).toBe("invalid_payment_header");
    }
  });
});

describe("a facilitator that is down", () => {
  it("answers 503 UNAVAILABLE, runs nothing and charges nothing", async () => {
    const down = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    const bull = `${prefix}:bull`;
    const jobs = createJobClient({ redisUrl: REDIS_URL, prefix: bull });
    const queue = new Queue(BACKTEST_QUEUE, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: bull });
    const redis = await connectRedis();
    try {
      const app = testApp({ ...s.app.deps, jobs, payments: { ...payments(), facilitatorUrl: down }, rateLimit: { keyPrefix: `${prefix}:rl3` } }).app;
      // A payment signed for the live offer, sent to the app whose facilitator is down.
      const live = await post(s.app.app, GRID, body);
      const header = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(paymentRequiredOf(live.res, live.body)));
      const runsBefore = (await runsOf(PAYER.address)).length;
      const before = await usdgOf(PAYER.address);
      for (const headers of [{}, header]) {
        const answer = await post(app, GRID, body, headers);
        expect([answer.res.status, answer.body.code]).toEqual([503, "UNAVAILABLE"]);
      }
      expect(await queue.getJobCounts()).toMatchObject({ waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 });
      expect((await runsOf(PAYER.address)).length).toBe(runsBefore);
      expect(await usdgOf(PAYER.address)).toBe(before);
      // The header was never claimed or spent: the live app still takes it.
      const paid = await post(s.app.app, GRID, body, header);
      expect(paid.res.status).toBe(200);
    } finally {
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await jobs.close();
      await deleteKeys(redis, bull);
      redis.disconnect();
    }
  });
});

describe("a facilitator that fails at settlement, after the run", () => {
  it("answers 503 UNAVAILABLE and withholds the result: nothing charged, and the payment is not taken again", async () => {
    // The real facilitator for /supported and /verify; /settle answers 502, as a facilitator gone mid-way.
    const proxy = new Hono()
      .get("/supported", () => fetch(`${stack.facilitatorUrl}/supported`))
      .post("/verify", async (c) =>
        fetch(`${stack.facilitatorUrl}/verify`, { method: "POST", headers: { "Content-Type": "application/json" }, body: await c.req.text() }),
      )
      .post("/settle", (c) => c.text("bad gateway", 502));
    const port = await freePort();
    const server = await new Promise<ServerType>((resolve) => {
      const srv = serve({ fetch: proxy.fetch, port, hostname: "127.0.0.1" }, () => resolve(srv));
    });
    try {
      const app = testApp({
        ...s.app.deps,
        payments: { ...payments(), facilitatorUrl: `http://127.0.0.1:${port}` },
        rateLimit: { keyPrefix: `${prefix}:rl5` },
      }).app;
      const live = await post(app, GRID, body);
      const header = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(paymentRequiredOf(live.res, live.body)));
      const before = await usdgOf(PAYER.address);
      const runsBefore = (await runsOf(PAYER.address)).length;
      const answer = await post(app, GRID, body, header);
      expect([answer.res.status, answer.body.code, answer.body.data]).toEqual([503, "UNAVAILABLE", undefined]);
      expect(answer.res.headers.get("PAYMENT-RESPONSE")).toBeNull();
      expect(await usdgOf(PAYER.address)).toBe(before);
      expect((await runsOf(PAYER.address)).length).toBe(runsBefore);
      // The settlement's outcome was unknown to the service: the payment stays claimed, never run twice.
      const again = await post(app, GRID, body, header);
      expect([again.res.status, paymentRequiredOf(again.res, again.body).error]).toEqual([402, "payment_already_used"]);
    } finally {
      server.close();
    }
  });
});

describe("limits", () => {
  it("a paid request is still rate-limited per client: over the limit it is refused before any payment is looked at", async () => {
    const limited = testApp({ ...s.app.deps, rateLimit: { keyPrefix: `${prefix}:rl4`, points: 2, duration: 60 } }).app;
    const live = await post(s.app.app, GRID, body);
    const header = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(paymentRequiredOf(live.res, live.body)));
    const before = await usdgOf(PAYER.address);
    expect((await post(limited, GRID, { ...body, days: 1 })).res.status).toBe(200);
    expect((await post(limited, GRID, { ...body, days: 1 })).res.status).toBe(200);
    const over = await post(limited, GRID, body, header);
    expect([over.res.status, over.body.code]).toEqual([429, "RATE_LIMITED"]);
    expect(await usdgOf(PAYER.address)).toBe(before);
  });
});

describe("MCP", () => {
  it("the backtest and ranges tools say a payment is needed past 30 days and what it costs; a call answers the 402 and its price", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://agent.test/mcp"), { fetch: async (url, init) => s.app.app.request(String(url), init) }),
    );
    try {
      const { tools } = await client.listTools();
      for (const name of ["backtest_grid", "backtest_ladder", "ranges"]) {
        const tool = tools.find((t) => t.name === name);
        expect(tool?.description, name).toMatch(/Past 30 days the run is paid: 0\.01 USDG a day past 30 \(60 days: 0\.3 USDG\)/);
        expect(tool?.description, name).toMatch(/402 PAYMENT_REQUIRED/);
      }
      const before = await usdgOf(PAYER.address);
      const answer = await client.callTool({ name: "backtest_grid", arguments: body });
      expect(answer.isError).toBe(true);
      expect(errorOf(answer)).toMatchObject({ code: "PAYMENT_REQUIRED", x402Version: 2, accepts: [{ amount: String(PRICE_60_DAYS), payTo: PAYEE }] });
      expect(errorOf(answer).error).toContain("0.3 USDG");
      expect(await usdgOf(PAYER.address)).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("a 402 over MCP names the resource at the service's BASE_URL, not the MCP face's internal request", async () => {
    const base = "https://agents.example.test";
    const app = testApp({ ...s.app.deps, baseUrl: base, rateLimit: { keyPrefix: `${prefix}:rl-mcp` } }).app;
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: async (url, init) => app.request(String(url), init) }));
    try {
      const answer = await client.callTool({ name: "backtest_grid", arguments: body });
      expect(errorOf(answer)).toMatchObject({ code: "PAYMENT_REQUIRED", resource: { url: `${base}${GRID}` } });
      const ranges = await client.callTool({ name: "ranges", arguments: { token: body.token, days: 60 } });
      expect(errorOf(ranges).resource.url).toMatch(new RegExp(`^${base}/v1/agent/ranges\\?`));
    } finally {
      await client.close();
    }
  });
});
