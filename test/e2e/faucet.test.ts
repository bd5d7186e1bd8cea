// The devnet's faucet (devnet/faucet.ts), end to end on the shared devnet: a wallet from a fresh key, funded over
// HTTP (POST /fund) and by `npm run fund`, holds exactly the ETH, USDG and tokens given and can then send them
// and pay an x402 payment through the devnet's facilitator. Bad input is refused with the field named and nothing
// given; each client (its socket address) has a bounded number of grants whatever wallets it names or headers it
// sends; and with a real chain configured (RPC_URL) `npm run fund` refuses: there is no faucet.
import { spawn } from "node:child_process";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { createPublicClient, erc20Abi, getAddress, http, parseEther, parseUnits, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import { FAUCET_LIMITS } from "../../devnet/faucet.js";
import { closeLoopbackClients, requestFrom } from "../helpers/loopback-client.js";
import { devnetAt, tokenIn, writeAt } from "../helpers/wallets.js";

const stack = inject("stack");
const chain = createPublicClient({ chain: devnetAt(stack.rpcUrl), transport: http(stack.rpcUrl) });
let d: Deployments;
const fresh = () => privateKeyToAccount(generatePrivateKey());
const balanceOf = (token: Address, who: Address) => chain.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });
// Every test here asks as its own client (a loopback source address of its own), so none spends another's grants.
const fund = (from: string, body: unknown) => requestFrom(from, `${stack.faucetUrl}/fund`, { method: "POST", body: JSON.stringify(body) });

/** `npm run fund -- ...args` as a user runs it, against the stack's devnet (its env names the faucet's port). */
function runFund(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/fund.ts", ...args], {
      env: { ...process.env, BASE_URL: "", ...stack.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** What a funded wallet does first: send USDG and WETH to another wallet, paying its own gas. */
async function sendsTokens(from: ReturnType<typeof fresh>) {
  const to = fresh().address;
  const usdg = getAddress(d.contracts.usdg!);
  const weth = tokenIn(d, "WETH").address;
  await writeAt(stack.rpcUrl, chain, from, { address: usdg, abi: erc20Abi, functionName: "transfer", args: [to, parseUnits("100", 6)] });
  await writeAt(stack.rpcUrl, chain, from, { address: weth, abi: erc20Abi, functionName: "transfer", args: [to, parseEther("0.1")] });
  expect(await balanceOf(usdg, to)).toBe(parseUnits("100", 6));
  expect(await balanceOf(weth, to)).toBe(parseEther("0.1"));
}

beforeAll(() => {
  d = loadDeployments(stack.deploymentsFile);
});

afterAll(() => closeLoopbackClients());

describe("the devnet's faucet over HTTP (POST /fund)", () => {
  it("funds a fresh key with ETH, USDG and the listed tokens asked for, which it can then send and pay with", async () => {
    const wallet = fresh();
    const usdg = getAddress(d.contracts.usdg!);
    const [weth, aapl] = [tokenIn(d, "WETH"), tokenIn(d, "tsAAPL")];
    const res = await fund("127.0.0.140", { address: wallet.address.toLowerCase(), usdg: "300", tokens: { WETH: "0.5", tsaapl: "2" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.address).toBe(wallet.address);
    expect(res.json.data.given.map((g: { symbol: string; amount: string }) => `${g.amount} ${g.symbol}`)).toEqual([
      "1 ETH",
      "300 USDG",
      "0.5 WETH",
      "2 tsAAPL",
    ]);
    expect(res.json.data.remaining).toBe(FAUCET_LIMITS.grantsPerWindow - 1);
    expect(await chain.getBalance({ address: wallet.address })).toBe(parseEther("1"));
    expect(await balanceOf(usdg, wallet.address)).toBe(parseUnits("300", 6));
    expect(await balanceOf(weth.address, wallet.address)).toBe(parseEther("0.5"));
    expect(await balanceOf(aapl.address, wallet.address)).toBe(parseEther("2"));
    for (const hash of res.json.data.transactions) expect((await chain.getTransactionReceipt({ hash })).status).toBe("success");

    await sendsTokens(wallet);

    // It pays as the service asks (x402 exact, USDG by EIP-3009), settled by the devnet's facilitator.
    const payee = fresh().address;
    const required: PaymentRequired = {
      x402Version: 2,
      resource: { url: "http://127.0.0.1/v1/agent/backtest/grid", description: "a 60-day grid backtest", mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:4663",
          asset: usdg,
          amount: "300000",
          payTo: payee,
          // An hour, not the service's 300 s: the shared devnet's automine gives each block a second of its own,
          // so after a busy run its clock is minutes ahead of the wall clock the client signs by.
          maxTimeoutSeconds: 3600,
          extra: { name: "USD Global", version: "2" },
        },
      ],
    };
    const x402 = new x402HTTPClient(x402Client.fromConfig({ schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(wallet) }], spendControls: false }));
    const paymentPayload = await x402.createPaymentPayload(required);
    const settled = await fetch(`${stack.facilitatorUrl}/settle`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ paymentPayload, paymentRequirements: required.accepts[0] }),
    }).then((r) => r.json() as Promise<{ success: boolean; errorReason?: string }>);
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true });
    expect(await balanceOf(usdg, payee)).toBe(300_000n);
    expect(await balanceOf(usdg, wallet.address)).toBe(parseUnits("200", 6) - 300_000n);
  });

  it("refuses bad input with the field named, giving nothing and spending no grant", async () => {
    const wallet = fresh().address;
    const from = "127.0.0.141";
    const cases: [unknown, number, string, string][] = [
      [{ address: "0x1234" }, 400, "INVALID_REQUEST", "address"],
      [{ address: `${wallet}00` }, 400, "INVALID_REQUEST", "address"],
      [{ address: wallet, usdg: "1000000000" }, 400, "INVALID_REQUEST", "usdg"],
      [{ address: wallet, usdg: "-5" }, 400, "INVALID_REQUEST", "usdg"],
      [{ address: wallet, usdg: "1e9" }, 400, "INVALID_REQUEST", "usdg"],
      [{ address: wallet, usdg: "0.0000001" }, 400, "INVALID_REQUEST", "usdg"],
      [{ address: wallet, eth: "11" }, 400, "INVALID_REQUEST", "eth"],
      [{ address: wallet, tokens: { WETH: "100" } }, 400, "INVALID_REQUEST", "tokens.WETH"],
      [{ address: wallet, tokens: ["WETH"] }, 400, "INVALID_REQUEST", "tokens"],
      [{ address: wallet, eth: "0", usdg: "0" }, 400, "INVALID_REQUEST", "body"],
      [{ address: wallet, owner: wallet }, 400, "INVALID_REQUEST", "owner"],
      [{ address: wallet, tokens: { NOPE: "1" } }, 422, "UNKNOWN_TOKEN", "tokens.NOPE"],
      // On chain and charted, but not on the service's token list.
      [{ address: wallet, tokens: { SCAM: "1" } }, 422, "UNKNOWN_TOKEN", "tokens.SCAM"],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await fund(from, body);
      expect([res.status, res.json?.code, res.json?.details?.field], JSON.stringify(body)).toEqual([status, code, field]);
      expect(res.json.error).toMatch(/\S/);
    }
    expect(res422Listed((await fund(from, { address: wallet, tokens: { NOPE: "1" } })).json)).toContain("WETH");
    const garbage = await requestFrom(from, `${stack.faucetUrl}/fund`, { method: "POST", body: "{not json" });
    expect([garbage.status, garbage.json.code, garbage.json.details.field]).toEqual([400, "INVALID_REQUEST", "body"]);
    expect(await chain.getBalance({ address: wallet })).toBe(0n);
    expect(await balanceOf(getAddress(d.contracts.usdg!), wallet)).toBe(0n);
    const info = await requestFrom(from, `${stack.faucetUrl}/`);
    expect(info.json.data.limits.remaining).toBe(FAUCET_LIMITS.grantsPerWindow);
    expect(info.json.data.assets.map((a: { symbol: string }) => a.symbol)).toEqual(expect.arrayContaining(["ETH", "USDG", "WETH", "tsAAPL"]));
    expect(info.json.data.assets.map((a: { symbol: string }) => a.symbol)).not.toContain("SCAM");
  });

  it("bounds the grants of one client by its address, whatever wallets it names or headers it sends", async () => {
    const greedy = "127.0.0.142";
    const small = { eth: "0.001", usdg: "1" };
    for (let i = 0; i < FAUCET_LIMITS.grantsPerWindow; i++) {
      const res = await fund(greedy, { address: fresh().address, ...small });
      expect(res.status, res.text).toBe(200);
    }
    const wallet = fresh().address;
    const refused = await requestFrom(greedy, `${stack.faucetUrl}/fund`, {
      method: "POST",
      body: JSON.stringify({ address: wallet, ...small }),
      headers: { "x-forwarded-for": "203.0.113.9", "x-real-ip": "203.0.113.9" },
    });
    expect([refused.status, refused.json.code]).toEqual([429, "RATE_LIMITED"]);
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(FAUCET_LIMITS.windowMs / 1000);
    expect(await chain.getBalance({ address: wallet })).toBe(0n);
    // Another client is served as before.
    const other = await fund("127.0.0.143", { address: wallet, ...small });
    expect(other.status, other.text).toBe(200);
    expect(await chain.getBalance({ address: wallet })).toBe(parseEther("0.001"));
  });
});

const res422Listed = (json: { details?: { listed?: string[] } }) => json.details?.listed ?? [];

describe("npm run fund", () => {
  it("funds a fresh key from the command line, which can then send what it holds", async () => {
    const wallet = fresh();
    const run = await runFund([wallet.address, "250", "WETH=0.2", "tsNVDA"]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(`funded ${wallet.address}: 1 ETH, 250 USDG, 0.2 WETH, 8.33333 tsNVDA`);
    expect(await chain.getBalance({ address: wallet.address })).toBe(parseEther("1"));
    expect(await balanceOf(getAddress(d.contracts.usdg!), wallet.address)).toBe(parseUnits("250", 6));
    expect(await balanceOf(tokenIn(d, "WETH").address, wallet.address)).toBe(parseEther("0.2"));
    expect(await balanceOf(tokenIn(d, "tsNVDA").address, wallet.address)).toBe(parseEther("8.33333"));
    await sendsTokens(wallet);
  });

  it("refuses a bad address, an absurd amount and an unknown token, saying why", async () => {
    const wallet = fresh().address;
    const bad = await runFund(["0xnot-an-address"]);
    expect([bad.code, bad.err]).toEqual([1, expect.stringContaining("INVALID_REQUEST): address: must be an address")]);
    const absurd = await runFund([wallet, "99999999"]);
    expect([absurd.code, absurd.err]).toEqual([1, expect.stringContaining("usdg: at most 10000 USDG a request")]);
    const unknown = await runFund([wallet, "10", "NOPE=1"]);
    expect([unknown.code, unknown.err]).toEqual([1, expect.stringContaining("UNKNOWN_TOKEN")]);
    const none = await runFund([]);
    expect([none.code, none.err]).toEqual([2, expect.stringContaining("usage: npm run fund -- <address>")]);
    expect(await chain.getBalance({ address: wallet })).toBe(0n);
  });

  it("refuses with a real chain configured (RPC_URL): the faucet exists only on the devnet", async () => {
    const wallet = fresh().address;
    // Even an RPC_URL that reaches this very devnet is a real chain's configuration: nothing is asked of anyone.
    const run = await runFund([wallet, "10"], { RPC_URL: stack.rpcUrl });
    expect(run.code).toBe(2);
    expect(run.err).toContain("the faucet exists only on the devnet");
    expect(await chain.getBalance({ address: wallet })).toBe(0n);
  });
});
