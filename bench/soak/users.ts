// The soak's simulated users, as the design card names them: agents long-polling their activity and reading
// their accounts; trading agents that sign in, prepare with their session and send (plain transactions,
// EIP-7702 batches, ERC-4337 user operations), read their cards, call MCP tools and pay x402 backtests;
// analysts running the guide's GraphQL and /sql queries.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { formatUnits, parseEther, parseUnits, type Address, type Hex, type LocalAccount, type PublicClient } from "viem";
import { marketRegistryAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { delegatedWallet, smartAccountWallet } from "../../test/helpers/batch-wallets.js";
import { sendStepsAt, testAccount, walletAt } from "../../test/helpers/wallets.js";
import type { Balancer } from "./http.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const clientOf = (index: number) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

// ------------------------------------------------------------------------------------------ polling agents

export type Poller = { owner: string; baseline?: string; held: { id: string; txHash: string }[]; faults: string[]; polls: number };

/**
 * One agent per entry of `owners`: a baseline, then long polls (waitMs) with the cursor it was last given,
 * keeping the changes as the contract says (a `reorged` answer drops every held change past `after`), and an
 * account read every `readEveryMs`. A change given twice or out of order is a fault of the agent's feed.
 */
export function startPollers(
  lb: Balancer,
  owners: string[],
  stop: AbortSignal,
  waitMs: number,
  readEveryMs: number,
): { pollers: Poller[]; done: Promise<void> } {
  const pollers = owners.map((owner) => ({ owner, held: [], faults: [], polls: 0 }) as Poller);
  const run = async (p: Poller, index: number) => {
    await sleep((index * 2000) / owners.length);
    const client = clientOf(index + 1000);
    let cursor: string | undefined;
    let lastRead = Date.now() - Math.random() * readEveryMs;
    while (!stop.aborted) {
      if (Date.now() - lastRead > readEveryMs) {
        lastRead = Date.now();
        await lb.request("account", `/v1/agent/accounts/${p.owner}`, { client });
      }
      const query = cursor ? `?cursor=${encodeURIComponent(cursor)}&waitMs=${waitMs}` : "";
      const res = await lb.request("activity", `/v1/agent/accounts/${p.owner}/activity${query}`, { client });
      p.polls++;
      if (res?.status !== 200) {
        await sleep(1000 + Math.random() * 1000);
        continue;
      }
      const a = res.body.data as { cursor: string; after: string; changes: { id: string; txHash: string }[]; more: boolean; reorged: boolean };
      if (!cursor) p.baseline = a.after;
      if (a.reorged) p.held = p.held.filter((c) => BigInt(c.id) <= BigInt(a.after));
      for (const c of a.changes) {
        const last = p.held.at(-1);
        if (last && BigInt(c.id) <= BigInt(last.id)) p.faults.push(`change ${c.id} given after ${last.id}${c.id === last.id ? " (twice)" : " (out of order)"}`);
        else p.held.push({ id: c.id, txHash: c.txHash });
      }
      cursor = a.cursor;
    }
  };
  const done = Promise.all(pollers.map((p, i) => run(p, i))).then(() => undefined);
  return { pollers, done };
}

// ------------------------------------------------------------------------------------------ trading agents

export type SentCall = { trader: number; via: string; owner: Address; txHash: Hex; minedAt: number; matchedAt?: number };

export type TraderStats = {
  sent: SentCall[];
  prepares: number;
  /** Prepares answered neither 200 nor with an error code. */
  unanswered: string[];
  refused: Map<string, number>;
  sendFailures: string[];
  cards: number;
  mcpCalls: number;
  mcpFailures: string[];
  paidBacktests: number;
  paidFailures: string[];
};

type Trader = {
  index: number;
  via: "plain" | "7702" | "4337";
  eoa: LocalAccount;
  /** Pays its x402 backtests: a plain account (an EIP-7702 one has code, which the exact scheme's signature check refuses). */
  payer: LocalAccount;
  owner: Address;
  send(steps: { to: Address; data: Hex; value: string }[]): Promise<Hex>;
};

export type TraderSetup = { rpcUrl: string; chain: PublicClient; d: Deployments; lb: Balancer; firstAccount: number; count: number; admin: LocalAccount };

/** Mints USDG and sends gas to each trader; delegates the 7702 ones and makes the 4337 ones' accounts. */
async function setupTraders({ rpcUrl, chain, d, firstAccount, count, admin }: TraderSetup): Promise<Trader[]> {
  const usdg = d.contracts.usdg! as Address;
  const adminWallet = walletAt(rpcUrl, admin);
  const traders: Trader[] = [];
  for (let i = 0; i < count; i++) {
    const eoa = testAccount(firstAccount + i) as LocalAccount;
    const payer = testAccount(firstAccount + 100 + i) as LocalAccount;
    const via = (["plain", "7702", "4337"] as const)[i % 3]!;
    const fund = async (to: Address) => {
      const h = await adminWallet.writeContract({ address: usdg, abi: testTokenAbi, functionName: "mint", args: [to, parseUnits("1000000", 6)] });
      await chain.waitForTransactionReceipt({ hash: h });
    };
    await fund(eoa.address);
    await fund(payer.address);
    await chain.waitForTransactionReceipt({ hash: await adminWallet.sendTransaction({ to: eoa.address, value: parseEther("50") }) });
    if (via === "plain") {
      traders.push({
        index: i,
        via,
        eoa,
        payer,
        owner: eoa.address,
        send: async (steps) => (await sendStepsAt(rpcUrl, chain, eoa, steps)).at(-1)!.transactionHash,
      });
    } else {
      const w = via === "7702" ? await delegatedWallet(rpcUrl, chain, eoa, d) : await smartAccountWallet(rpcUrl, chain, eoa, eoa, d);
      const owner = via === "7702" ? eoa.address : (w as { address: Address }).address;
      if (via === "4337") await fund(owner);
      const send = async (steps: { to: Address; data: Hex; value: string }[]) => {
        const { id } = await w.wallet.sendCalls({ calls: steps.map((s) => ({ to: s.to, data: s.data, value: BigInt(s.value) })), forceAtomic: true } as never);
        const receipt = await chain.waitForTransactionReceipt({ hash: id as Hex });
        if (receipt.status !== "success") throw new Error(`${via} batch reverted`);
        return id as Hex;
      };
      traders.push({ index: i, via, eoa, payer, owner, send });
    }
  }
  return traders;
}

async function signIn(lb: Balancer, t: Trader, client: string): Promise<string | undefined> {
  const c = await lb.request("session", "/v1/agent/report-card/session/challenge", {
    method: "POST",
    client,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ owner: t.owner }),
  });
  if (c?.status !== 200) return undefined;
  const { challengeId, message } = c.body.data as { challengeId: string; message: string };
  // A 4337 account signs in through ERC-1271: its owner's signature is the account's.
  const signature = await t.eoa.signMessage({ message });
  const s = await lb.request("session", "/v1/agent/report-card/session", {
    method: "POST",
    client,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ owner: t.owner, challengeId, signature }),
  });
  return s?.status === 200 ? (s.body.data.token as string) : undefined;
}

export type Traders = TraderStats & { owners: Address[]; done: Promise<void> };

/** Sets the traders up, then each acts every `everyMs` (± half) until `stop`. */
export async function startTraders(setup: TraderSetup, everyMs: number, stop: AbortSignal, mcpUrl: () => string): Promise<Traders> {
  const traders = await setupTraders(setup);
  const stats: TraderStats = {
    sent: [],
    prepares: 0,
    unanswered: [],
    refused: new Map(),
    sendFailures: [],
    cards: 0,
    mcpCalls: 0,
    mcpFailures: [],
    paidBacktests: 0,
    paidFailures: [],
  };
  const loop = async (t: Trader) => {
    const client = clientOf(t.index + 1);
    let token: string | undefined;
    let tokenAt = 0;
    for (let n = 0; !stop.aborted; n++) {
      await sleep(everyMs * (0.5 + Math.random()));
      if (stop.aborted) break;
      if (!token || Date.now() - tokenAt > 30 * 60_000) {
        token = await signIn(setup.lb, t, client);
        tokenAt = Date.now();
      }
      await act(setup, t, client, token, stats);
      if (n % 2 === 1 && token) {
        const card = await setup.lb.request("card", `/v1/agent/report-card/${t.owner}/private`, { client, headers: { Authorization: `Bearer ${token}` } });
        if (card?.status === 200) stats.cards++;
      }
      if (n % 5 === 2) await callMcp(mcpUrl(), t, stats);
      if (n % 8 === 4) await payBacktest(setup, t, client, stats);
    }
  };
  const done = Promise.all(traders.map(loop)).then(() => undefined);
  return Object.assign(stats, { owners: traders.map((t) => t.owner), done });
}

/** One service call: prepare a limit order far under the price with the session, and send it as the trader's wallet does. */
async function act(setup: TraderSetup, t: Trader, client: string, token: string | undefined, stats: TraderStats) {
  const weth = setup.d.tokens.find((x) => x.symbol === "WETH")!.address;
  let price: bigint;
  try {
    price = (await setup.chain.readContract({
      address: setup.d.contracts.markets! as Address,
      abi: marketRegistryAbi,
      functionName: "priceX18",
      args: [weth],
    })) as bigint;
  } catch {
    return;
  }
  stats.prepares++;
  const res = await setup.lb.request("prepare", "/v1/agent/prepare/limit-order", {
    method: "POST",
    client,
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ owner: t.owner, token: "WETH", side: "buy", amount: "20", price: formatUnits((price * 4n) / 10n, 18), agentTag: `soak${t.index}` }),
  });
  if (!res) return; // no replica reachable: counted by the balancer
  if (res.status !== 200) {
    // The envelope of a refusal: {error: message, code} (a 5xx without a code is a prepare left unanswered).
    const code = res.body?.code;
    if (typeof code !== "string") stats.unanswered.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    else stats.refused.set(`${res.status} ${code}`, (stats.refused.get(`${res.status} ${code}`) ?? 0) + 1);
    return;
  }
  try {
    const txHash = await t.send(res.body.data.steps);
    stats.sent.push({ trader: t.index, via: t.via, owner: t.owner, txHash, minedAt: Date.now() });
  } catch (error) {
    stats.sendFailures.push(`${t.via} #${t.index}: ${(error as Error).message.split("\n")[0]}`);
  }
}

async function callMcp(url: string, t: Trader, stats: TraderStats) {
  const client = new Client({ name: `soak-trader-${t.index}`, version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await client.listTools();
    const tool = tools.find((x) => x.name === "accounts_owner") ?? tools.find((x) => !(x.inputSchema.required ?? []).length);
    if (tool) {
      const out = await client.callTool({ name: tool.name, arguments: tool.name === "accounts_owner" ? { owner: t.owner } : {} });
      if (out.isError) stats.mcpFailures.push(`${tool.name}: ${JSON.stringify(out.content).slice(0, 200)}`);
    }
    stats.mcpCalls++;
  } catch (error) {
    stats.mcpFailures.push((error as Error).message.slice(0, 200));
  } finally {
    await client.close().catch(() => {});
  }
}

async function payBacktest(setup: TraderSetup, t: Trader, client: string, stats: TraderStats) {
  const weth = setup.d.tokens.find((x) => x.symbol === "WETH")!.address;
  const body = JSON.stringify({ token: weth, buyPrice: 1, sellPrice: 1_000_000, amountUsd: 200, repeat: true, days: 45 });
  const headers = { "Content-Type": "application/json" };
  const offer = await setup.lb.request("backtest", "/v1/agent/backtest/grid", { method: "POST", client, headers, body });
  if (offer?.status !== 402) return void stats.paidFailures.push(`offer: ${offer?.status ?? "no answer"}`);
  try {
    const x402 = new x402HTTPClient(
      x402Client.fromConfig({ schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(t.payer as never) }], spendControls: false }),
    );
    const required = x402.getPaymentRequiredResponse((name) => offer.headers.get(name), offer.body);
    const pay = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(required));
    const paid = await setup.lb.request("backtest", "/v1/agent/backtest/grid", { method: "POST", client, headers: { ...headers, ...pay }, body });
    if (paid?.status === 200) stats.paidBacktests++;
    else stats.paidFailures.push(`paid: ${paid?.status ?? "no answer"} ${JSON.stringify(paid?.body).slice(0, 200)}`);
  } catch (error) {
    stats.paidFailures.push((error as Error).message.slice(0, 200));
  }
}

// ------------------------------------------------------------------------------------------ analysts

export type Analysts = { queries: number; failures: string[] };

/** The analysts' guide's queries (docs/analysts.md), GraphQL and /sql, on the indexer, every `everyMs` each. */
export function startAnalysts(ponderUrl: string, count: number, owners: string[], everyMs: number, stop: AbortSignal): Analysts {
  const a: Analysts = { queries: 0, failures: [] };
  const run = async (k: number) => {
    for (let n = 0; !stop.aborted; n++) {
      await sleep(everyMs * (0.5 + Math.random()));
      const owner = owners[(k + n) % owners.length]!.toLowerCase();
      try {
        const res =
          n % 2 === 0
            ? await fetch(`${ponderUrl}/graphql`, {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({
                  query: `query($owner: String!) { activitys(where: { owner: $owner }, orderBy: "position", orderDirection: "desc", limit: 20) { items { kind subject blockNumber timestamp } } }`,
                  variables: { owner },
                }),
                signal: AbortSignal.timeout(30_000),
              })
            : await fetch(
                `${ponderUrl}/sql/db?sql=${encodeURIComponent(JSON.stringify({ json: { sql: "select symbol, decimals, swaps, price_x_18 from token order by swaps desc limit 5", params: [] } }))}`,
                { signal: AbortSignal.timeout(30_000) },
              );
        await res.text();
        a.queries++;
        if (res.status !== 200) a.failures.push(`${n % 2 === 0 ? "graphql" : "sql"} ${res.status}`);
      } catch (error) {
        a.failures.push((error as Error).message.slice(0, 100));
      }
    }
  };
  for (let k = 0; k < count; k++) void run(k);
  return a;
}
