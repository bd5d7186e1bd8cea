// Past one machine (issue 53), with real processes: a Postgres primary and a standby made with
// pg_basebackup (test/helpers/pg-standby.ts), the devnet and the indexer writing the primary, two APIs
// and one worker reading the standby (DATABASE_READ_URL), one API reading the primary only; all of them
// on a Redis master and replica under three sentinels (test/helpers/redis-sentinel.ts, REDIS_SENTINELS).
// Shown here:
// - with the chain still, the standby APIs answer exactly as the primary's, and their reads ran on the standby;
// - with replay paused (pg_wal_replay_pause()), an agent long-polling through either standby API still
//   sees each of its vault deposits within 2 s of the receipt, and no answer goes back in time (the
//   other API, asked from an earlier cursor, already has every change seen); /ready says the reads are
//   on the primary once the standby lags past READ_MAX_LAG_MS;
// - replay resumed, the reads move back to the standby;
// - the Redis master killed, Sentinel promotes the replica; prepares answer again within 30 s (a refusal
//   meanwhile is a clear 503, never a 500), each answered prepare is stored once, and the rate limits
//   count in the new master;
// - the analysts' GraphQL and /sql served by `npm run analysts` (ponder serve) from the standby: the
//   indexer's answer at the same block; with replay paused it does not see a new change the primary has,
//   and does once replay resumes.
//
// Wallet 53 is the agent (funded here: this devnet is the test's own).
import { parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import { dropDeployment, newDeployment, startApi, startWorker, type ApiProcess, type ServiceProcess } from "../helpers/api-process.js";
import { canMakeStandby, startStandbyPair, type StandbyPair } from "../helpers/pg-standby.js";
import { SENTINEL_NAME, startSentinelGroup, type SentinelGroup } from "../helpers/redis-sentinel.js";
import postgres from "postgres";
import { Redis } from "ioredis";
import { freePort, spawnTs, startStack, stopProcess, waitFor, type StartedStack } from "../helpers/stack.js";
import { publicClientAt, sendEthAt, testAccount, writeAt } from "../helpers/wallets.js";

const agent = testAccount(53);
const admin = testAccount(10);
const AMOUNT = parseUnits("10", 6);
const deployment = newDeployment();
const log: string[] = [];
let pair: StandbyPair;
let redisGroup: SentinelGroup;
let stack: StartedStack;
let deployments: Deployments;
let standbyName: string;
let apis: ApiProcess[] = [];
let primaryApi: ApiProcess | undefined;
let worker: ServiceProcess | undefined;

beforeAll(async () => {
  if (!canMakeStandby()) return;
  [pair, redisGroup] = await Promise.all([startStandbyPair(), startSentinelGroup()]);
  stack = await startStack({ adminUrl: pair.primary.adminUrl, historyDays: 1, simIntervalMs: 3_600_000 });
  const standbyUrl = pair.standby.url(new URL(stack.databaseUrl).pathname.slice(1));
  standbyName = standbyUrl;
  const redisEnv = { REDIS_SENTINELS: redisGroup.sentinelsEnv, REDIS_SENTINEL_NAME: SENTINEL_NAME, RATE_LIMIT_POINTS: "100000" };
  const env = { ...redisEnv, DATABASE_READ_URL: standbyUrl, READ_MAX_LAG_MS: "2000" };
  // All at once: the API schema's migration is safe when replicas start together (adapters/db/connect.ts).
  [worker, apis, primaryApi] = await Promise.all([
    startWorker(stack, deployment, { env, log }),
    Promise.all([startApi(stack, deployment, { name: "api1", env, log }), startApi(stack, deployment, { name: "api2", env, log })]),
    startApi(stack, deployment, { name: "apiP", env: redisEnv, log }),
  ]);
  deployments = loadDeployments(stack.deploymentsFile);
  const chain = publicClientAt(stack.rpcUrl, { pollingInterval: 20 });
  await sendEthAt(stack.rpcUrl, chain, agent.address, parseUnits("1", 18));
  await writeAt(stack.rpcUrl, chain, admin, {
    address: deployments.contracts.usdg!,
    abi: testTokenAbi,
    functionName: "mint",
    args: [agent.address, AMOUNT * 100n],
  });
}, 300_000);

afterAll(async () => {
  await Promise.all([...apis, primaryApi, worker].map((p) => p?.stop()));
  if (stack) await dropDeployment(stack, deployment).catch(() => {});
  await stack?.stop();
  await Promise.allSettled([pair?.stop(), redisGroup?.stop()]);
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Where two JSON answers differ, but for the times of the answers themselves (ISO times less than 5 s apart). */
function diff(a: unknown, b: unknown, path = ""): string[] {
  if (typeof a === "string" && typeof b === "string" && ISO.test(a) && ISO.test(b) && Math.abs(Date.parse(a) - Date.parse(b)) < 5000) return [];
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`));
  }
  return Object.is(a, b) ? [] : [`${path || "/"}: ${JSON.stringify(a)?.slice(0, 80)} ≠ ${JSON.stringify(b)?.slice(0, 80)}`];
}

async function get(api: ApiProcess, path: string) {
  const res = await fetch(`${api.url}${path}`);
  return { status: res.status, text: await res.text() };
}

async function post(api: ApiProcess, path: string, body: unknown) {
  const res = await fetch(`${api.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

type Activity = { cursor: string; after: string; changes: { id: string; kind: string; txHash: string }[]; reorged: boolean };

async function activity(api: ApiProcess, query = ""): Promise<Activity> {
  const res = await get(api, `/v1/agent/accounts/${agent.address}/activity${query}`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { data: Activity }).data;
}

/** Reads of the projections each target served, from an API's /metrics. */
async function readsOn(api: ApiProcess): Promise<{ primary: number; standby: number }> {
  const text = await (await fetch(api.metricsUrl)).text();
  const count = (target: string) =>
    Number(new RegExp(`agent_projection_reads_total\\{target="${target.replace(/[/.?]/g, "\\$&")}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { primary: count("primary"), standby: count(standbyName) };
}

async function ready(api: ApiProcess): Promise<{ reads?: string; standbys?: { lagMs: number | null; serving: boolean }[] }> {
  const res = await get(api, "/ready");
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { data: { reads?: string } }).data;
}

async function until(what: string, check: () => Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s\n${log.slice(-30).join("\n")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!canMakeStandby())("API and worker replicas reading a streaming standby", () => {
  it("answer as the primary does at the same block, from the standby", async () => {
    const before = await Promise.all(apis.map(readsOn));
    const vault = deployments.vaults[0]!.address;
    const paths = ["/v1/agent/products", "/v1/agent/vaults", `/v1/agent/vaults/${vault}`, `/v1/agent/accounts/${testAccount(1).address}`, "/v1/tokens"];
    for (const path of paths) {
      const [p, a, b] = await Promise.all([primaryApi!, ...apis].map((api) => get(api, path)));
      expect(p!.status, `${path} ${p!.text.slice(0, 200)}`).toBe(200);
      for (const other of [a!, b!]) {
        expect(other.status, path).toBe(200);
        expect(diff(JSON.parse(p!.text), JSON.parse(other.text)), path).toEqual([]);
      }
    }
    const after = await Promise.all(apis.map(readsOn));
    for (const [i, counts] of after.entries()) expect(counts.standby, `api${i + 1} read the standby`).toBeGreaterThan(before[i]!.standby);
    for (const api of apis) expect(await ready(api)).toMatchObject({ reads: "standbys", standbys: [{ serving: true }] });
  }, 60_000);

  it("replay paused: each change is seen within 2 s and nothing goes back in time; resumed: reads return to the standby", async () => {
    const chain = publicClientAt(stack.rpcUrl, { pollingInterval: 20 });
    const vault = deployments.vaults.find((v) => v.family === "merged" && v.agent)!.address;
    await writeAt(stack.rpcUrl, chain, agent, {
      address: deployments.contracts.usdg!,
      abi: testTokenAbi,
      functionName: "approve",
      args: [vault, AMOUNT * 100n],
    });
    await new Promise((r) => setTimeout(r, 1_000)); // the approval's change (if any) indexed before the baseline
    let cursor = (await activity(apis[0]!)).cursor;
    const seen: string[] = [];
    await pair.pauseReplay();
    try {
      for (let k = 0; k < 4; k++) {
        const api = apis[k % 2]!;
        const other = apis[(k + 1) % 2]!;
        const previous = cursor;
        const waiting = activity(api, `?cursor=${cursor}&waitMs=10000`).then((a) => ({ a, at: performance.now() }));
        await new Promise((r) => setTimeout(r, 200)); // the long poll is waiting
        const receipt = await writeAt(stack.rpcUrl, chain, agent, {
          address: vault,
          abi: mergedVaultAbi,
          functionName: "requestDeposit",
          args: [AMOUNT, agent.address, 0n],
        });
        const mined = performance.now();
        const { a, at } = await waiting;
        expect(
          a.changes.map((c) => c.txHash),
          `change ${k}`,
        ).toContain(receipt.transactionHash);
        expect(at - mined, `change ${k} seen after`).toBeLessThan(2_000);
        expect(a.reorged).toBe(false);
        seen.push(...a.changes.map((c) => c.id));
        cursor = a.cursor;
        // The other API, asked from the cursor before, has every change seen (not an older state).
        const again = await activity(other, `?cursor=${previous}`);
        expect(again.reorged).toBe(false);
        expect(again.changes.map((c) => c.txHash)).toContain(receipt.transactionHash);
        // And from the newest cursor nothing is missing or repeated.
        const now = await activity(other, `?cursor=${cursor}`);
        expect(now.reorged).toBe(false);
        expect(now.changes.filter((c) => seen.includes(c.id))).toEqual([]);
      }
      expect(new Set(seen).size).toBe(seen.length);
      // The standby's lag passes READ_MAX_LAG_MS while the primary moves on (the APIs' cursor writes): /ready says so.
      await until(
        "/ready says the reads are on the primary",
        async () => {
          await activity(apis[0]!);
          return (await ready(apis[0]!)).reads === "primary";
        },
        15_000,
      );
      const lagging = await ready(apis[0]!);
      expect(lagging.standbys![0]!.serving).toBe(false);
      expect(lagging.standbys![0]!.lagMs).toBeGreaterThan(2_000);
    } finally {
      await pair.resumeReplay();
    }
    await until("reads back on the standby", async () => (await ready(apis[1]!)).reads === "standbys" && (await ready(apis[0]!)).reads === "standbys", 15_000);
    // Each read waits at most 250 ms for the standby to replay what the primary had when it began; on a loaded
    // machine with the indexer writing, one may still go to the primary: reads return to the standby, not each one.
    const before = await Promise.all(apis.map(readsOn));
    await until(
      "reads run on the standby again, on both APIs",
      async () => {
        for (const api of apis) expect((await activity(api, `?cursor=${cursor}`)).changes).toEqual([]);
        const after = await Promise.all(apis.map(readsOn));
        return after.every((counts, i) => counts.standby > before[i]!.standby);
      },
      15_000,
    );
    // The worker reads the standby too, and its metrics show the lag.
    const workerMetrics = await (await fetch((worker as { metricsUrl?: string }).metricsUrl!)).text();
    expect(workerMetrics).toMatch(/agent_read_standby_lag_seconds\{standby="[^"]+"\} \d/);
  }, 120_000);

  it("Redis master killed: Sentinel promotes the replica; prepares resume within 30 s, each stored once, and rate limits count in the new master", async () => {
    const owner = testAccount(54).address;
    const vault = deployments.vaults.find((v) => v.family === "merged")!.address;
    const prepare = (api: ApiProcess, amount: string) => post(api, "/v1/agent/prepare/vault-deposit", { owner, vault, amount });
    const stored = async () => {
      const sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql<{ id: string }[]>`select id from ${sql(deployment.apiSchema)}.sign_request where owner = ${owner.toLowerCase()}`;
        return rows.map((r) => r.id);
      } finally {
        await sql.end();
      }
    };
    const first = await prepare(apis[0]!, "10.25");
    expect(first.status, first.text).toBe(200);
    expect(await redisGroup.masterNow()).toBe(redisGroup.masterPort);

    await redisGroup.killMaster();
    const killed = performance.now();
    const answers: { status: number; text: string; at: number }[] = [];
    for (let i = 0; ; i++) {
      const answer = await prepare(apis[i % 2]!, `${11 + i}.5`);
      answers.push({ ...answer, at: performance.now() - killed });
      if (answer.status === 200 && answers.filter((a) => a.status === 200).length >= 2) break;
      expect(performance.now() - killed, answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join("\n")).toBeLessThan(30_000);
      if (answer.status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(await redisGroup.masterNow()).toBe(redisGroup.replicaPort);
    // Every refusal meanwhile is a clear one.
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([429, 503], a.text).toContain(a.status);
      expect(JSON.parse(a.text).code).toMatch(/^(UNAVAILABLE|BUSY|RATE_LIMITED)$/);
    }
    // Each answered prepare is stored once; a refused one is stored at most once (a job that ran late), never twice.
    const ids = (await stored()).sort();
    expect(new Set(ids).size).toBe(ids.length);
    const answered = [first, ...answers.filter((a) => a.status === 200)].map((a) => (JSON.parse(a.text).data.signUrl as string).split("/").pop()!);
    for (const id of answered) expect(ids).toContain(id);
    expect(ids.length).toBeLessThanOrEqual(answers.length + 1);
    // The other API serves a request stored after the failover (it reached the new master too).
    const last = answered.at(-1)!;
    for (const api of apis) expect((await get(api, `/v1/agent/sign-requests/${last}`)).status).toBe(200);

    // The rate limits count in the new master: its limiter keys move with requests through both APIs.
    const newMaster = new Redis({ port: redisGroup.replicaPort, host: "127.0.0.1", lazyConnect: true });
    try {
      await newMaster.connect();
      const counted = async () => {
        const keys = await newMaster.keys(`${deployment.redisPrefix}:rl:*`);
        const values = await Promise.all(keys.map((k) => newMaster.get(k).catch(() => null)));
        return values.reduce((sum, v) => sum + (Number(v) || 0), 0);
      };
      const before = await counted();
      // Each replica takes a client's points from Redis a lease (50 here) at a time: past it, both must take more.
      for (let i = 0; i < 130; i++) expect((await get(apis[i % 2]!, "/v1/agent/products")).status).toBe(200);
      expect(await counted()).toBeGreaterThanOrEqual(before + 100);
    } finally {
      newMaster.disconnect();
    }
  }, 90_000);

  it("analysts' GraphQL and /sql served from the standby (npm run analysts): the indexer's answer at the same block, and the standby's own state", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { ...stack.env, DATABASE_READ_URL: standbyName, ANALYSTS_PORT: String(port), LOG_LEVEL: "info" };
    const analysts = spawnTs("scripts/analysts.ts", env, "analysts", log);
    try {
      await waitFor("analysts' server", async () => (await fetch(`${url}/ready`)).status === 200, 120_000, log);
      const query = `query($owner: String!) { activitys(where: { owner: $owner }, orderBy: "position", orderDirection: "desc", limit: 50) { items { kind subject blockNumber } totalCount } }`;
      const graphql = async (base: string) => {
        const res = await fetch(`${base}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query, variables: { owner: agent.address.toLowerCase() } }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as { data: { activitys: { totalCount: number } } };
      };
      const sqlCount = async (base: string) => {
        const u = new URL(`${base}/sql/db`);
        u.searchParams.set(
          "sql",
          JSON.stringify({ json: { sql: "select count(*)::int as n from activity where owner = $1", params: [agent.address.toLowerCase()] } }),
        );
        const res = await fetch(u);
        const text = await res.text();
        expect(res.status, text).toBe(200);
        return text;
      };
      await until(
        "the standby has replayed the primary",
        async () => JSON.stringify(await graphql(url)) === JSON.stringify(await graphql(stack.ponderUrl)),
        10_000,
      );
      expect((await graphql(url)).data.activitys.totalCount).toBeGreaterThan(0);
      expect(await sqlCount(url)).toBe(await sqlCount(stack.ponderUrl));

      // Its reads are the standby's: with replay paused, a change the primary's index has is not there yet.
      const chain = publicClientAt(stack.rpcUrl, { pollingInterval: 20 });
      const vault = deployments.vaults.find((v) => v.family === "merged" && v.agent)!.address;
      const before = (await graphql(url)).data.activitys.totalCount;
      await pair.pauseReplay();
      try {
        await writeAt(stack.rpcUrl, chain, agent, { address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "approve", args: [vault, AMOUNT] });
        await writeAt(stack.rpcUrl, chain, agent, { address: vault, abi: mergedVaultAbi, functionName: "requestDeposit", args: [AMOUNT, agent.address, 0n] });
        await until("the primary's index has the deposit", async () => (await graphql(stack.ponderUrl)).data.activitys.totalCount > before, 15_000);
        expect((await graphql(url)).data.activitys.totalCount).toBe(before);
      } finally {
        await pair.resumeReplay();
      }
      await until("the analysts' server sees the deposit once replay resumes", async () => (await graphql(url)).data.activitys.totalCount > before, 15_000);
    } finally {
      await stopProcess(analysts);
    }
  }, 180_000);
});
