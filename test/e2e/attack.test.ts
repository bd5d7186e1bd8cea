// The service tried as an attacker would, against running processes (`npm run api`, `npm run worker`) on
// the run's devnet and indexer. Different clients are different loopback source addresses (127.0.0.x:
// the whole range is on `lo`), and nothing a request claims (an owner, an X-Forwarded-For header, a
// body `identity`) makes it another client. One case per item of issue 19.
//
// Wallet 22 (funded here by the admin, 10) is the owner whose account and report card are attacked.
import postgres from "postgres";
import { createPublicClient, createWalletClient, decodeFunctionData, encodeFunctionData, http, parseEther, parseUnits, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testTokenAbi } from "../../abis/index.js";
import { devnetChain, TEST_MNEMONIC } from "../../devnet/chain.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import { BundleCheckError, preparedResultViolations, sendPrepared, type PrepareResult } from "../../client/index.js";
import { ApiError } from "../../domain/errors.js";
import { allowListOf, buildLimitOrder } from "../../domain/bundles/index.js";
import { callKey } from "../../domain/grading/index.js";
import { createLogger } from "../../adapters/logger.js";
import { checkPrepared } from "../../usecases/prepare/pipeline.js";
import { createDb } from "../../adapters/db/connect.js";
import { createProjectionsDb, createProjectionsPostgres } from "../../adapters/db/projections.js";
import { runGrading } from "../../usecases/report-card/run-grading.js";
import { purgeExpired } from "../../workers/processors/purge.js";
import { LIVE_SIGN_REQUESTS_PER_CLIENT } from "../../contract/sign-request.js";
import { FINDER_RUNS_PER_CLIENT_PER_DAY } from "../../contract/strategy-finder.js";
import { clientKey } from "../../api/middleware/rate-limit.js";
import type { Resolved } from "../../usecases/prepare/types.js";
import { dropDeployment, newDeployment, startApi, startWorker, type ApiProcess, type Deployment, type ServiceProcess } from "../helpers/api-process.js";
import { closeLoopbackClients, requestFrom, type LoopbackAnswer } from "../helpers/loopback-client.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

const stack = inject("stack");
const LIMIT = 30;
const owner = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 22 });
const admin = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 10 });

let d: Deployments;
let deployment: Deployment;
let rpcProxy: TcpProxy;
let api: ApiProcess;
let worker: ServiceProcess;
let sql: postgres.Sql;
const log: string[] = [];
const chain = () => createPublicClient({ chain: devnetChain, transport: http(stack.rpcUrl) });
const walletOf = (account: typeof owner) => createWalletClient({ account, chain: devnetChain, transport: http(stack.rpcUrl) });

/** A fresh client address for each test (a /24 of loopback addresses is plenty). */
let nextClient = 10;
const newClient = () => `127.0.0.${nextClient++}`;

const get = (from: string, path: string, headers: Record<string, string> = {}) => requestFrom(from, api.url + path, { headers });
const post = (from: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  requestFrom(from, api.url + path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers });
const randomAddress = () => `0x${[...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("")}` as Address;
const mcpHeaders = { accept: "application/json, text/event-stream" };

beforeAll(async () => {
  d = loadDeployments(stack.deploymentsFile);
  rpcProxy = await startTcpProxy("127.0.0.1", Number(new URL(stack.rpcUrl).port));
  // Wallet 22: USDG and gas from the admin.
  const c = chain();
  for (const hash of [
    await walletOf(admin).writeContract({
      address: d.contracts.usdg! as Address,
      abi: testTokenAbi,
      functionName: "mint",
      args: [owner.address, parseUnits("10000", 6)],
    }),
    await walletOf(admin).sendTransaction({ to: owner.address, value: parseEther("5") }),
  ])
    expect((await c.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");

  deployment = newDeployment();
  sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  // The API reaches the chain through a proxy the sign-in case cuts; TRUST_PROXY_HOPS=0: the socket is the client.
  const env = { RATE_LIMIT_POINTS: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: "600", TRUST_PROXY_HOPS: "0", DEVNET_PORT: String(rpcProxy.port) };
  worker = await startWorker(stack, deployment, { env, log });
  api = await startApi(stack, deployment, { env, log });
}, 240_000);

afterAll(async () => {
  closeLoopbackClients();
  await Promise.all([api?.stop(), worker?.stop()]);
  if (deployment) await dropDeployment(stack, deployment).catch(() => {});
  await sql?.end();
  await rpcProxy?.close();
}, 60_000);

/** Sends `count` requests one after another and answers their statuses. */
async function statuses(count: number, send: (i: number) => Promise<LoopbackAnswer>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await send(i)).status);
  return out;
}

describe("limits key on who the client is", () => {
  it("a client naming a fresh owner on each request is limited (the owner it names is only a claim)", async () => {
    const me = newClient();
    const seen = await statuses(LIMIT + 5, () => get(me, `/v1/agent/accounts/${randomAddress()}`));
    expect(seen.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
    expect(seen.slice(LIMIT)).toEqual(Array(5).fill(429));
  });

  it("a client that lies about its address (X-Forwarded-For with no trusted proxy) is the same client", async () => {
    const me = newClient();
    const seen = await statuses(LIMIT + 3, (i) => get(me, "/v1/tokens", { "x-forwarded-for": `10.9.${i >> 8}.${i & 255}` }));
    expect(seen.slice(LIMIT)).toEqual([429, 429, 429]);
  });

  it("fresh owners in prepare bodies are limited too", async () => {
    const me = newClient();
    const body = () => ({ owner: randomAddress(), vault: "0x0000000000000000000000000000000000000001", amount: "1" });
    const seen = await statuses(LIMIT + 2, () => post(me, "/v1/agent/prepare/vault-deposit", body()));
    expect(seen.slice(LIMIT)).toEqual([429, 429]);
    expect(seen.slice(0, LIMIT)).not.toContain(429);
  });

  it("a victim reads its own account with 200 while another client hammers the victim's address", async () => {
    const attacker = newClient();
    const victim = newClient();
    const hammered = await statuses(LIMIT + 10, () => get(attacker, `/v1/agent/accounts/${owner.address}`));
    expect(hammered.slice(LIMIT)).toEqual(Array(10).fill(429));
    const mine = await get(victim, `/v1/agent/accounts/${owner.address}`);
    expect(mine.status).toBe(200);
    expect(mine.json.data).toBeDefined();
  });

  it("limited answers carry the IETF RateLimit-Policy and RateLimit headers, and Retry-After on 429", async () => {
    const me = newClient();
    const first = await get(me, "/v1/tokens");
    expect(first.status).toBe(200);
    expect(String(first.headers["ratelimit-policy"])).toMatch(new RegExp(`q=${LIMIT}\\b`));
    expect(String(first.headers.ratelimit)).toMatch(/r=\d+/);
    await statuses(LIMIT, () => get(me, "/v1/tokens"));
    const refused = await get(me, "/v1/tokens");
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(String(refused.headers.ratelimit)).toMatch(/r=0\b/);
  });

  it("the sign page is under the same limit", async () => {
    const me = newClient();
    const seen = await statuses(LIMIT + 2, () => get(me, `/sign/${"A".repeat(32)}`));
    expect(seen.slice(LIMIT)).toEqual([429, 429]);
    expect(seen.slice(0, LIMIT).every((s) => s === 404)).toBe(true);
  });
});

describe("/mcp under the same limits", () => {
  const listCall = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} });

  it("a 100-call JSON-RPC batch is refused without the work", async () => {
    const me = newClient();
    const batch = Array.from({ length: 100 }, (_, i) => listCall(i));
    const answer = await post(me, "/mcp", batch, mcpHeaders);
    expect(answer.status).toBe(400);
    expect(answer.text.length).toBeLessThan(2_000);
    expect(answer.json.error).toBeDefined();
  });

  it("an MCP flood from one client gets 429, tools/list charged by its size (issue 32)", async () => {
    const me = newClient();
    const seen = await statuses(LIMIT + 3, (i) => post(me, "/mcp", listCall(i), mcpHeaders));
    // A ~63 KB answer costs a point per 16 KiB (4 in all): far fewer than LIMIT lists fit the budget.
    const served = seen.filter((s) => s === 200).length;
    expect(seen[0]).toBe(200);
    expect(served).toBeLessThanOrEqual(Math.ceil(LIMIT / 3));
    expect(seen.slice(served)).toEqual(Array(LIMIT + 3 - served).fill(429));
  });

  it("a tool call is limited as the client that made it, and its answer carries no /v1 CORS header", async () => {
    const me = newClient();
    const call = (i: number) =>
      post(
        me,
        "/mcp",
        { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "products", arguments: {} } },
        { ...mcpHeaders, origin: "https://evil.example" },
      );
    const first = await call(1);
    expect(first.status).toBe(200);
    expect(first.headers["access-control-allow-origin"]).toBeUndefined();
    expect(first.json.result.isError ?? false).toBe(false);
    expect(first.json.result.structuredContent.data).toBeDefined();
  });
});

describe("hostile bodies", () => {
  const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

  it("a 30,000-deep extra field within 64 KiB gets 400 INVALID_REQUEST naming the limit", async () => {
    const me = newClient();
    const body = `{"owner":"${owner.address}","vault":"${d.vaults[0]!.address}","amount":"10","extra":${deep(30_000)}}`;
    expect(body.length).toBeLessThan(64 * 1024);
    const answer = await post(me, "/v1/agent/prepare/vault-deposit", body);
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe("INVALID_REQUEST");
    expect(answer.json.error).toMatch(/32/);
  });

  it("the same depth at /mcp gets 400, and the API stays up", async () => {
    const me = newClient();
    const answer = await post(me, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${deep(30_000)}}}`, mcpHeaders);
    expect(answer.status).toBe(400);
    expect((await get(me, "/health")).status).toBe(200);
  });
});

describe("sign-in", () => {
  it("an oversized signature gets 400 INVALID_REQUEST", async () => {
    const me = newClient();
    const challenge = await post(me, "/v1/agent/report-card/session/challenge", { owner: owner.address });
    expect(challenge.status).toBe(200);
    const answer = await post(me, "/v1/agent/report-card/session", {
      owner: owner.address,
      challengeId: challenge.json.data.challengeId,
      signature: `0x${"ab".repeat(10_000)}`,
    });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe("INVALID_REQUEST");
  });

  it("an RPC outage during sign-in answers 503, and the same challenge then succeeds", async () => {
    const me = newClient();
    const challenge = (await post(me, "/v1/agent/report-card/session/challenge", { owner: owner.address })).json.data;
    const body = { owner: owner.address, challengeId: challenge.challengeId, signature: await owner.signMessage({ message: challenge.message }) };
    // A key's own signature is recovered without the chain; any other (a smart wallet's, or another key's)
    // can only be judged by the chain (ERC-1271 / ERC-6492), which is down.
    const other = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 23 });
    const notTheKeys = { ...body, signature: await other.signMessage({ message: challenge.message }) };
    await rpcProxy.cut();
    let during: LoopbackAnswer;
    try {
      during = await post(me, "/v1/agent/report-card/session", notTheKeys);
    } finally {
      await rpcProxy.restore();
    }
    expect(during.status, during.text).toBe(503);
    expect(during.json.code).toBe("UNAVAILABLE");
    const after = await post(me, "/v1/agent/report-card/session", body);
    expect(after.status).toBe(200);
    expect(after.json.data.owner).toBe(owner.address);
  });
});

describe("sessions where the spec says so", () => {
  it("an unauthenticated strategy-finder run naming a wallet is not counted for it", async () => {
    const me = newClient();
    const weth = d.tokens.find((t) => t.symbol === "WETH")!.address;
    const wallet = randomAddress();
    const run = await post(me, "/v1/strategy-finder/backtest", {
      token: weth,
      strategy: "dip-ladder",
      period: "1d",
      identity: { kind: "wallet", value: wallet },
    });
    expect(run.status).toBe(200);
    const attempts = await get(me, `/v1/strategy-finder/attempts?kind=wallet&value=${wallet}`);
    expect(attempts.status).toBe(200);
    expect(attempts.json.data.runs).toBe(0);
  });
});

describe("money safety", () => {
  /** A real vault-deposit bundle for wallet 22 (approve USDG to the vault, then requestDeposit). */
  async function realDeposit() {
    const answer = await post(newClient(), "/v1/agent/prepare/vault-deposit", { owner: owner.address, vault: d.vaults[0]!.address, amount: "25" });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    return answer.json.data as PrepareResult;
  }
  const stranger = "0x000000000000000000000000000000000000dEaD" as Address;
  /** The approve step with its spender replaced by `spender` (same amount). */
  const withSpender = (data: Hex, spender: Address): Hex => {
    const [, amount] = decodeFunctionData({ abi: testTokenAbi, data }).args as [Address, bigint];
    return encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [spender, amount] });
  };
  const tampers: [string, (r: PrepareResult) => PrepareResult][] = [
    [
      "to",
      (r) => ({
        ...r,
        steps: r.steps.map((s, i) => (i === 1 ? { ...s, to: stranger } : s)),
        walletSendCalls: { ...r.walletSendCalls, calls: r.walletSendCalls.calls.map((c, i) => (i === 1 ? { ...c, to: stranger } : c)) },
      }),
    ],
    [
      "spender",
      (r) => ({
        ...r,
        steps: r.steps.map((s, i) => (i === 0 ? { ...s, data: withSpender(s.data as Hex, stranger) } : s)),
        walletSendCalls: {
          ...r.walletSendCalls,
          calls: r.walletSendCalls.calls.map((c, i) => (i === 0 ? { ...c, data: withSpender(c.data as Hex, stranger) } : c)),
        },
      }),
    ],
    [
      "recipient",
      (r) => ({
        ...r,
        steps: r.steps.map((s) => ({
          ...s,
          data: s.data.toLowerCase().replaceAll(owner.address.slice(2).toLowerCase(), stranger.slice(2).toLowerCase()) as Hex,
        })),
        walletSendCalls: {
          ...r.walletSendCalls,
          calls: r.walletSendCalls.calls.map((c) => ({
            ...c,
            data: c.data.toLowerCase().replaceAll(owner.address.slice(2).toLowerCase(), stranger.slice(2).toLowerCase()) as Hex,
          })),
        },
      }),
    ],
    [
      "value",
      (r) => ({
        ...r,
        steps: r.steps.map((s, i) => (i === 1 ? { ...s, value: "1" as never } : s)),
        walletSendCalls: { ...r.walletSendCalls, calls: r.walletSendCalls.calls.map((c, i) => (i === 1 ? { ...c, value: "0x1" } : c)) },
      }),
    ],
  ];

  it("the typed client refuses a bundle whose to, spender, recipient or value was changed, and sends nothing", async () => {
    const result = await realDeposit();
    expect(result.steps).toHaveLength(2);
    const nonce = await chain().getTransactionCount({ address: owner.address });
    const publicClient = chain();
    for (const [what, tamper] of tampers) {
      const tampered = tamper(result);
      expect(preparedResultViolations(tampered, d), what).not.toEqual([]);
      await expect(sendPrepared(walletOf(owner), publicClient, tampered, { allow: d }), what).rejects.toBeInstanceOf(BundleCheckError);
    }
    expect(await chain().getTransactionCount({ address: owner.address })).toBe(nonce);
    // The untouched bundle passes the same check.
    expect(preparedResultViolations(result, d)).toEqual([]);
  });

  it("the run-time check refuses a faulty builder's foreign spender", async () => {
    const result = await realDeposit();
    const steps = result.steps.map((s) => ({ to: s.to as Address, data: s.data as Hex, value: 0n }));
    const ctx = { deployments: d, allowList: allowListOf(d), logger: createLogger({ level: "silent" }), now: () => new Date() };
    const bundle = (st: typeof steps) => ({ bundle: { kind: result.kind, steps: st, params: {} } }) as unknown as Resolved;
    expect(() => checkPrepared(ctx, "vault-deposit", owner.address, bundle(steps))).not.toThrow();
    const faulty = steps.map((s, i) => (i === 0 ? { ...s, data: withSpender(s.data, stranger) } : s));
    expect(() => checkPrepared(ctx, "vault-deposit", owner.address, bundle(faulty))).toThrow(ApiError);
  });
});

/** The owner's report-card session, signed in from `from`. */
async function ownerSession(from: string): Promise<string> {
  const c = await post(from, "/v1/agent/report-card/session/challenge", { owner: owner.address });
  expect(c.status, c.text.slice(0, 300)).toBe(200);
  const signature = await owner.signMessage({ message: c.json.data.message });
  const s = await post(from, "/v1/agent/report-card/session", { owner: owner.address, challengeId: c.json.data.challengeId, signature });
  expect(s.status, s.text.slice(0, 300)).toBe(200);
  return s.json.data.token;
}

/** The spec's reasons (waiting and not-graded), and nothing else. */
const SPEC_REASONS = [
  "fill",
  "day",
  "week",
  "queue",
  "receipt",
  "orbio",
  "swap",
  "cancel",
  "order-action",
  "grid-action",
  "in-kind",
  "queue-cancelled",
  "account",
  "other",
];
type CardAgents = { name: string | null; actions: { state: string; reason: string | null }[] }[];

/** Waits until the indexer has `tx`, then runs one grading pass as the worker's job does; answers the pass's time. */
async function gradeOnce(tx: Hex, owned?: string): Promise<number> {
  const apiDb = createDb({ url: stack.databaseUrl, schema: deployment.apiSchema });
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
  try {
    const indexed = async () =>
      (await reads
        .selectFrom("executedCall")
        .select("txHash")
        .where("txHash", "=", tx.toLowerCase() as Hex)
        .executeTakeFirst()) !== undefined;
    for (const deadline = Date.now() + 60_000; !(await indexed()); ) {
      if (Date.now() > deadline) throw new Error(`${tx} not indexed within 60 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const started = performance.now();
    await runGrading({ db: apiDb, reads, now: () => new Date() }, owned ? { owner: owned } : {});
    return performance.now() - started;
  } finally {
    await Promise.allSettled([apiDb.destroy(), reads.destroy()]);
  }
}

async function actionsOf(ids: string[]) {
  const apiDb = createDb({ url: stack.databaseUrl, schema: deployment.apiSchema });
  try {
    return await apiDb
      .selectFrom("filing")
      .leftJoin("report_action", "report_action.filing_id", "filing.id")
      .select(["filing.sign_request_id", "filing.agent_tag", "report_action.state", "report_action.reason", "report_action.tx_hash"])
      .where("filing.sign_request_id", "in", ids)
      .execute();
  } finally {
    await apiDb.destroy();
  }
}

describe("credit only where it is due", () => {
  it("a stranger prepares the owner's call first without a session; the owner prepares it with its session and sends: the owner's is credited, the stranger's tag is nowhere public", async () => {
    const token = await ownerSession(newClient());
    // The stranger, from its own address, files the owner's predictable call under its tag first. The
    // deposit's minShares follows the vault's share price, which other files move while this one runs: the
    // pair is filed again until both hold the same calldata, as an attacker timing its copy would. Each
    // attempt deposits another amount: an earlier attempt's filing of the owner's with the same calldata
    // would take the call (the owner's oldest in the window does), and the one asserted on would not.
    let theirs: Awaited<ReturnType<typeof post>> | undefined;
    let mine: Awaited<ReturnType<typeof post>> | undefined;
    for (let attempt = 0; attempt < 8; attempt++) {
      const body = { owner: owner.address, vault: d.vaults[0]!.address, amount: String(40 + attempt) };
      theirs = await post(newClient(), "/v1/agent/prepare/vault-deposit", { ...body, agentTag: "stranger" });
      expect(theirs.status, theirs.text.slice(0, 300)).toBe(200);
      mine = await post(newClient(), "/v1/agent/prepare/vault-deposit", { ...body, agentTag: "owner-agent" }, { authorization: `Bearer ${token}` });
      expect(mine.status, mine.text.slice(0, 300)).toBe(200);
      if (JSON.stringify(mine.json.data.steps) === JSON.stringify(theirs.json.data.steps)) break;
    }
    if (!theirs || !mine) throw new Error("unreachable");
    expect(mine.json.data.steps).toEqual(theirs.json.data.steps); // the same calldata: only time, tags and the session tell them apart
    expect(theirs.json.data.reportCard).toMatchObject({ filed: true, ownerSession: false });
    expect(mine.json.data.reportCard).toMatchObject({ filed: true, ownerSession: true });
    const sent = await sendPrepared(walletOf(owner), chain(), mine.json.data as PrepareResult, { allow: d, fallbackOnly: true });
    const lastTx = sent.receipts.at(-1)!.transactionHash;
    await gradeOnce(lastTx, owner.address);

    const rows = await actionsOf([theirs.json.data.id, mine.json.data.id]);
    // The owner's is credited with the transaction and graded by its rule (a queued deposit: it waits in the queue, then a week).
    const own = rows.find((r) => r.agent_tag === "owner-agent");
    expect(own?.tx_hash).toBe(lastTx.toLowerCase());
    expect(own?.reason).not.toBe("other");
    expect(rows.find((r) => r.agent_tag === "stranger")).toMatchObject({ state: "not-graded", reason: "other", tx_hash: null });

    const card = await get(newClient(), `/v1/agent/report-card/${owner.address}`);
    expect(card.status).toBe(200);
    expect(card.text).not.toContain("stranger");
    const agents = card.json.data.agents as CardAgents;
    expect(agents.find((a) => a.name === "owner-agent")?.actions.length).toBeGreaterThan(0);
    const priv = await get(newClient(), `/v1/agent/report-card/${owner.address}/private`, { authorization: `Bearer ${token}` });
    expect(priv.status).toBe(200);
    for (const a of [...agents, ...(priv.json.data.agents as CardAgents)].flatMap((x) => x.actions))
      if (a.reason !== null) expect(SPEC_REASONS).toContain(a.reason);
  });

  it("a client files 5,000 junk prepares for the owner: past 1,000 they are answered unfiled, and the owner's next action is still graded in one pass", async () => {
    // 5,000 prepares through the API take the run's minutes and its rate limit: 4,990 of them are filed as the
    // pipeline files them (one client, no session, in their window), the last 10 go through the API.
    const junkClient = newClient();
    const client = `ip:${junkClient}`;
    const now = new Date();
    // Real bundles on the real contracts (limit orders on the deployment's hook, each of its own amount), keyed
    // as the pipeline keys them: each could meet a mined call of the owner's, as a real attacker's would.
    const weth = d.tokens.find((t) => t.symbol === "WETH")!.address;
    const rows = Array.from({ length: 4_990 }, (_, i) => {
      const junk = buildLimitOrder({
        owner: owner.address,
        hook: d.contracts.limitOrderHook!,
        usdg: d.contracts.usdg!,
        token: weth,
        sellToken: false,
        amountIn: BigInt(i + 1),
        priceX18: 10n ** 18n,
      });
      return {
        id: `junk-${i}-${Date.now()}`,
        owner: owner.address.toLowerCase(),
        agent_tag: "junk",
        kind: junk.kind,
        steps: junk.steps.map((x) => ({ to: x.to, data: x.data, value: "0" })),
        created_at: now,
        call_key: callKey(junk.steps),
        client,
      };
    });
    const apiDb = createDb({ url: stack.databaseUrl, schema: deployment.apiSchema });
    try {
      for (let i = 0; i < rows.length; i += 1000)
        await apiDb
          .insertInto("filing")
          .values(rows.slice(i, i + 1000))
          .execute();
    } finally {
      await apiDb.destroy();
    }
    const body = { owner: owner.address, vault: d.vaults[0]!.address, amount: "12" };
    for (let i = 0; i < 10; i++) {
      const junk = await post(junkClient, "/v1/agent/prepare/vault-deposit", { ...body, agentTag: "junk" });
      expect(junk.status, junk.text.slice(0, 300)).toBe(200);
      // Past the caps (the owner's and this client's 1,000 open): answered, not filed.
      expect(junk.json.data.reportCard).toMatchObject({ filed: false });
      expect(junk.json.data.reportCard.note).toMatch(/will not be on the report card/);
    }

    // The owner, with its session, from its own address: filed, sent, graded by the next pass.
    const token = await ownerSession(newClient());
    const mine = await post(newClient(), "/v1/agent/prepare/vault-deposit", { ...body, agentTag: "owner-agent" }, { authorization: `Bearer ${token}` });
    expect(mine.status, mine.text.slice(0, 300)).toBe(200);
    expect(mine.json.data.reportCard).toMatchObject({ filed: true, ownerSession: true });
    const sent = await sendPrepared(walletOf(owner), chain(), mine.json.data as PrepareResult, { allow: d, fallbackOnly: true });
    const lastTx = sent.receipts.at(-1)!.transactionHash;
    const passMs = await gradeOnce(lastTx);
    expect(passMs).toBeLessThan(10_000);
    const [own] = await actionsOf([mine.json.data.id]);
    expect(own?.tx_hash).toBe(lastTx.toLowerCase());
    expect(own?.state).not.toBe("not-graded");
  });
});

describe("bounded state per client (issue 32)", () => {
  it("a client holding its share of live sign requests is refused 429 RATE_LIMITED until the oldest expires; another client's prepare is stored under its own key", async () => {
    const full = newClient();
    const other = newClient();
    const apiDb = createDb({ url: stack.databaseUrl, schema: deployment.apiSchema });
    try {
      const now = Date.now();
      // The share, made as the pipeline makes them (the rows only, as 300 prepares would take minutes).
      const rows = Array.from({ length: LIVE_SIGN_REQUESTS_PER_CLIENT }, (_, i) => ({
        id: `bound${i}x${now}`,
        owner: owner.address.toLowerCase(),
        kind: "vault-deposit",
        bundle: {},
        created_at: new Date(now),
        expires_at: new Date(now + 120_000 + i * 100),
        client: clientKey(full),
      }));
      await apiDb.insertInto("sign_request").values(rows).execute();
      const body = { owner: owner.address, vault: d.vaults[0]!.address, amount: "12" };

      const refused = await post(full, "/v1/agent/prepare/vault-deposit", body);
      expect(refused.status, refused.text.slice(0, 300)).toBe(429);
      expect(refused.json.code).toBe("RATE_LIMITED");
      const wait = Number(refused.headers["retry-after"]);
      expect(wait).toBeGreaterThanOrEqual(100);
      expect(wait).toBeLessThanOrEqual(121);

      const fine = await post(other, "/v1/agent/prepare/vault-deposit", body);
      expect(fine.status, fine.text.slice(0, 300)).toBe(200);
      const stored = await apiDb.selectFrom("sign_request").select("client").where("id", "=", fine.json.data.id).executeTakeFirstOrThrow();
      expect(stored.client).toBe(clientKey(other));

      // Expired, they no longer count: the client prepares again.
      await apiDb
        .updateTable("sign_request")
        .set({ expires_at: new Date(now - 1000) })
        .where("client", "=", clientKey(full))
        .execute();
      const again = await post(full, "/v1/agent/prepare/vault-deposit", body);
      expect(again.status, again.text.slice(0, 300)).toBe(200);
    } finally {
      await apiDb.destroy();
    }
  });

  it("a client that made its day's share of strategy-finder runs is refused 429 RATE_LIMITED; another client's run is logged under its own key", async () => {
    const full = newClient();
    const other = newClient();
    const weth = d.tokens.find((t) => t.symbol === "WETH")!.address;
    const apiDb = createDb({ url: stack.databaseUrl, schema: deployment.apiSchema });
    try {
      const now = Date.now();
      const rows = Array.from({ length: FINDER_RUNS_PER_CLIENT_PER_DAY }, (_, i) => ({
        identity_kind: null,
        identity_value: null,
        token: weth.toLowerCase(),
        strategy: "dip-ladder",
        input: {},
        summary: {},
        created_at: new Date(now - 3_600_000 + i * 1000),
        client: clientKey(full),
      }));
      await apiDb.insertInto("strategy_run").values(rows).execute();
      const run = { token: weth, strategy: "dip-ladder", period: "1d" };

      const refused = await post(full, "/v1/strategy-finder/backtest", run);
      expect(refused.status, refused.text.slice(0, 300)).toBe(429);
      expect(refused.json.code).toBe("RATE_LIMITED");
      // The oldest run of the day leaves it in about 23 hours.
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(22 * 3600);

      const before = Number(
        (await apiDb.selectFrom("strategy_run").select(apiDb.fn.countAll().as("n")).where("client", "=", clientKey(other)).executeTakeFirstOrThrow()).n,
      );
      const fine = await post(other, "/v1/strategy-finder/backtest", run);
      expect(fine.status, fine.text.slice(0, 300)).toBe(200);
      const after = Number(
        (await apiDb.selectFrom("strategy_run").select(apiDb.fn.countAll().as("n")).where("client", "=", clientKey(other)).executeTakeFirstOrThrow()).n,
      );
      expect(after).toBe(before + 1);
      // Still refused: the refused call ran nothing and logged nothing.
      const count = await apiDb.selectFrom("strategy_run").select(apiDb.fn.countAll().as("n")).where("client", "=", clientKey(full)).executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(FINDER_RUNS_PER_CLIENT_PER_DAY);
    } finally {
      await apiDb.destroy();
    }
  });
});

describe("retention", () => {
  it("the purge removes what has expired by a simulated clock, and keeps what has not", async () => {
    const apiDb = createDb({ url: stack.databaseUrl, schema: deployment.apiSchema });
    try {
      const count = async (table: "session_challenge" | "sign_request" | "session") =>
        Number((await apiDb.selectFrom(table).select(apiDb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
      expect(await count("session_challenge")).toBeGreaterThan(0);
      expect(await count("sign_request")).toBeGreaterThan(0);
      // Now: nothing this file made has expired past its retention yet (sign requests keep a day).
      const today = await purgeExpired({ db: apiDb, now: () => new Date() });
      expect(today.signRequests).toBe(0);
      expect(await count("sign_request")).toBeGreaterThan(0);
      // 31 days on: challenges, sessions and sign requests are gone.
      const later = await purgeExpired({ db: apiDb, now: () => new Date(Date.now() + 31 * 86_400_000) });
      expect(later.challenges + later.signRequests).toBeGreaterThan(0);
      expect(await count("session_challenge")).toBe(0);
      expect(await count("session")).toBe(0);
      expect(await count("sign_request")).toBe(0);
    } finally {
      await apiDb.destroy();
    }
  });
});

describe("operations surface", () => {
  it("/metrics is not served on the public API port", async () => {
    const answer = await get(newClient(), "/metrics");
    expect([401, 404]).toContain(answer.status);
    expect(answer.text).not.toMatch(/http_requests|process_cpu/);
  });
});
