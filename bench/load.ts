// Load: many agents polling their activity feed, against a real API process (`npm run api`, spawned,
// over loopback) on a devnet and indexer of the benchmark's own (a still chain: only the writer's
// transactions make blocks). Each agent takes a baseline, then polls with the cursor it was last given
// once a second; each is its own client (X-Forwarded-For, TRUST_PROXY_HOPS=1) under the default
// per-client rate limit. Meanwhile a writer places limit orders for wallets 0-9, which are ten of the
// agents' owners. Pass: no failed poll (any answer but 200, or no answer), and every agent was given
// exactly the activity rows of its owner after its baseline, each once and in order of id.
//
// `npx tsx bench/load.ts` (LOAD_AGENTS default 2000, LOAD_SECONDS default 60): the load run.
// `npx tsx bench/load.ts --soak` (SOAK_MINUTES default 10): the same mix for that long, the API's RSS
// sampled every 30 s; it passes when the RSS at the end is within 15% of the RSS after a warm-up of
// SOAK_WARMUP_S (default 180 s: the read caches fill and V8 sizes its heap to the load meanwhile).
import { Agent } from "node:http";
import { Redis } from "ioredis";
import postgres from "postgres";
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { limitOrderHookAbi, poolAbi, testTokenAbi } from "../abis/index.js";
import { devnetChain, TEST_MNEMONIC } from "../devnet/chain.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { dropDeployment, newDeployment, startApi } from "../test/helpers/api-process.js";
import { readJson, startStack } from "../test/helpers/stack.js";
import { baselinesTaken, startPollingAgents } from "./agents.js";
import { cpuSeconds, isMain, log, percentile, printMachine, printResult, rssMiB, saveResult, type BenchResult, type Figure } from "./lib.js";

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const WRITERS = Array.from({ length: 10 }, (_, i) => i); // funded test wallets of the devnet
const ORDER_USDG = parseUnits("50", 6);
const WRITE_EVERY_MS = 250;
/** Soak: seconds of warm-up before the RSS that growth is judged against (SOAK_WARMUP_S). */
const SOAK_WARMUP_S = Number(process.env.SOAK_WARMUP_S ?? 180);
/** The agents share a keep-alive pool over loopback (thousands of fresh connections a second overflow the listen backlog). */
const SOCKETS = Number(process.env.LOAD_SOCKETS ?? 256);

export type LoadOptions = { agents?: number; seconds?: number; soak?: boolean };

/** The load run (or with `soak`, the bounded soak). For bench/run.ts: benchLoad(). */
export async function benchLoad({ agents = 2000, seconds = 60, soak = false }: LoadOptions = {}): Promise<BenchResult> {
  const name = soak ? "soak" : "load";
  const runFor = soak ? `${Number(process.env.SOAK_MINUTES ?? 10)} min` : `${seconds} s`;
  log(`${name}: a still devnet (1 day of history), its indexer, the API as a process; ${agents} agents for ${runFor}`);
  const stack = await startStack({ historyDays: 1, simIntervalMs: 3_600_000 });
  const deployment = newDeployment();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
  const stop = new AbortController();
  const pool = new Agent({ keepAlive: true, maxSockets: SOCKETS });
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  try {
    api = await startApi(stack, deployment, { env: { TRUST_PROXY_HOPS: "1", LOG_LEVEL: "warn" } });
    const base = api.url;
    const d = readJson<Deployments>(stack.deploymentsFile);

    // The writer's wallets approve the hook once.
    const chain = { ...devnetChain, rpcUrls: { default: { http: [stack.rpcUrl] } } };
    const client = createPublicClient({ chain, transport: http(stack.rpcUrl), pollingInterval: 10 });
    const wallets = WRITERS.map((i) =>
      createWalletClient({ chain, transport: http(stack.rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: i }) }),
    );
    const hook = d.contracts.limitOrderHook! as Address;
    const link = d.tokens.find((t) => t.symbol === "LINK")!;
    const send = async (
      w: (typeof wallets)[number],
      address: Address,
      abi: typeof testTokenAbi | typeof limitOrderHookAbi,
      functionName: string,
      args: readonly unknown[],
    ) => {
      const hash = await w.writeContract({ address, abi, functionName, args, gas: 5_000_000n } as Parameters<typeof w.writeContract>[0]);
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      if (receipt.status !== "success") throw new Error(`${functionName} reverted (${hash})`);
    };
    for (const w of wallets) await send(w, d.contracts.usdg! as Address, testTokenAbi, "approve", [hook, 10n ** 30n]);

    // The agents: the ten writers' owners and synthetic owners with no activity.
    const owners = [
      ...wallets.map((w) => w.account.address.toLowerCase()),
      ...Array.from({ length: Math.max(0, agents - wallets.length) }, (_, i) => `0x${"ab".repeat(10)}${(i + 1).toString(16).padStart(20, "0")}`),
    ].slice(0, agents);
    // Baselines spread over the first second; the writer starts once every agent has one.
    const agentsRun = startPollingAgents(owners, pool, () => base, stop.signal);
    const { latencies, failures, delivered, baselines } = agentsRun;
    const t0 = Date.now();
    await baselinesTaken(agentsRun, owners.length);
    log(`${baselines.size} agents have their baseline (${failures.length} failures)`);

    const durationMs = (soak ? Number(process.env.SOAK_MINUTES ?? 10) * 60 : seconds) * 1000;
    const rss: { atS: number; mib: number }[] = [];
    const sampleRss = () => rss.push({ atS: Math.round((Date.now() - t0) / 1000), mib: rssMiB(api!.child.pid!) });
    sampleRss();
    const cpuAtStart = cpuSeconds(api.child.pid);
    const pollsAtStart = agentsRun.polls;
    const rssTimer = setInterval(sampleRss, soak ? 30_000 : 10_000);
    let sent = 0;
    let writeErrors = 0;
    const writing = (async () => {
      for (let i = 0; Date.now() - t0 < durationMs - 5_000 && failures.length < 100; i++) {
        const w = wallets[i % wallets.length]!;
        try {
          const price = await client.readContract({ address: link.pool!, abi: poolAbi, functionName: "priceX18" });
          await send(w, hook, limitOrderHookAbi, "create", [link.address, false, ORDER_USDG, (price * 985n) / 1000n]);
          sent++;
        } catch (error) {
          writeErrors++;
          log(`writer: ${(error as Error).message.slice(0, 200)}`);
        }
        await new Promise((r) => setTimeout(r, WRITE_EVERY_MS));
      }
    })();
    await writing;
    // The last orders reach the index, then every agent polls at least twice more.
    const head = Number(await client.getBlockNumber());
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const res = await fetch(`${stack.ponderUrl}/status`)
        .then((r) => r.json() as Promise<Record<string, { block?: { number?: number } }>>)
        .catch(() => ({}));
      if ((Object.values(res)[0]?.block?.number ?? 0) >= head) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, Math.max(2_500, durationMs - (Date.now() - t0))));
    clearInterval(rssTimer);
    sampleRss();
    stop.abort();
    await agentsRun.done;
    // What the API spent per poll, and how its read cache answered (api_read_cache_total on the API's metrics port).
    const cpuAtEnd = cpuSeconds(api.child.pid);
    const apiCpuMsPerPoll =
      cpuAtStart !== undefined && cpuAtEnd !== undefined ? ((cpuAtEnd - cpuAtStart) * 1000) / Math.max(1, agentsRun.polls - pollsAtStart) : NaN;
    const cacheLine = await fetch(api.metricsUrl)
      .then((r) => r.text())
      .then((text) =>
        text
          .split("\n")
          .filter((l) => l.startsWith("api_read_cache_total") && l.includes('route="activity"'))
          .map((l) => l.replace(/^api_read_cache_total/, ""))
          .join(", "),
      )
      .catch((error: Error) => `unavailable (${error.message})`);

    // Every agent against the activity table: its owner's rows after its baseline, once each, in order.
    const rows = await sql<{ owner: string; position: string; tx_hash: string }[]>`
      select owner, position::text as position, tx_hash from ${sql(stack.schema)}.activity as a where owner in ${sql(owners)} order by owner, a.position`;
    const expected = new Map<string, string[]>();
    for (const r of rows) {
      if (BigInt(r.position) <= BigInt(baselines.get(r.owner) ?? "0")) continue;
      expected.set(r.owner, [...(expected.get(r.owner) ?? []), r.position]);
    }
    const failedPolls = failures.length; // before the comparison adds its findings
    let wrong = 0;
    let changes = 0;
    for (const owner of owners) {
      const got = (delivered.get(owner) ?? []).map((c) => c.id);
      const want = expected.get(owner) ?? [];
      changes += got.length;
      if (got.join(",") !== want.join(",")) {
        wrong++;
        if (wrong <= 5) failures.push(`${owner}: delivered ${got.length} changes [${got.slice(0, 5)}…], the table has ${want.length} [${want.slice(0, 5)}…]`);
      }
    }
    latencies.sort((a, b) => a - b);
    const elapsedS = (Date.now() - t0) / 1000;
    // The soak's start is after a warm-up: the read caches fill and V8 sizes its heap to the allocation
    // rate over the first minutes (a first 10-minute soak: 528 MiB at 1 min, 754 at 3, then 698-827
    // until the end with no trend); growth is judged from there.
    const rssAtMinute1 = (rss.find((s) => s.atS >= 60) ?? rss[0]!).mib;
    const rssStart = soak ? (rss.find((s) => s.atS >= SOAK_WARMUP_S) ?? rss[0]!).mib : rss[0]!.mib;
    const rssEnd = rss[rss.length - 1]!.mib;
    const figures: Figure[] = [
      { name: "agents (each its own client)", value: owners.length },
      { name: "run", value: elapsedS, unit: "s" },
      { name: "polls", value: agentsRun.polls },
      { name: "polls per second", value: agentsRun.polls / elapsedS },
      { name: "failed polls (non-200 or no answer)", value: failedPolls, target: "0", pass: failedPolls === 0 },
      { name: "orders written (wallets 0-9)", value: sent },
      { name: "writer errors", value: writeErrors },
      { name: "changes delivered", value: changes },
      { name: "agents whose changes differ from the table (missing, twice, out of order)", value: wrong, target: "0", pass: wrong === 0 },
      { name: "polls per agent per second (target 1)", value: agentsRun.polls / elapsedS / owners.length },
      { name: "poll latency p50", value: percentile(latencies, 50), unit: "ms" },
      { name: "poll latency p99", value: percentile(latencies, 99), unit: "ms" },
      { name: "poll latency max", value: latencies[latencies.length - 1] ?? NaN, unit: "ms" },
      { name: "API CPU per poll (while the writer ran)", value: apiCpuMsPerPoll, unit: "ms" },
      ...(soak ? [{ name: "API RSS after 1 min", value: rssAtMinute1, unit: "MiB" }] : []),
      { name: `API RSS at start${soak ? ` (after the ${SOAK_WARMUP_S} s warm-up)` : ""}`, value: rssStart, unit: "MiB" },
      { name: "API RSS at end", value: rssEnd, unit: "MiB", ...(soak ? { target: "≤ start + 15%", pass: rssEnd <= rssStart * 1.15 } : {}) },
    ];
    return {
      name,
      figures,
      notes: [
        `client: one keep-alive pool of ${SOCKETS} sockets (LOAD_SOCKETS); latency is from the request to its answer, queueing for a socket included`,
        `API read cache, activity answers: ${cacheLine || "no cache counter (READ_CACHE_ENTRIES=0?)"}`,
        `RSS samples (s: MiB): ${rss.map((s) => `${s.atS}: ${s.mib.toFixed(0)}`).join(", ")}`,
        ...failures.slice(0, 10).map((f) => `failure: ${f}`),
      ],
    };
  } finally {
    stop.abort();
    pool.destroy();
    await api?.stop();
    await sql.end().catch(() => {});
    await dropDeployment(stack, deployment, redis).catch(() => {});
    redis.disconnect();
    await stack.stop();
  }
}

if (isMain(import.meta.url)) {
  printMachine();
  const soak = process.argv.includes("--soak");
  const result = await benchLoad({ agents: Number(process.env.LOAD_AGENTS ?? 2000), seconds: Number(process.env.LOAD_SECONDS ?? 60), soak });
  printResult(result);
  saveResult(result);
  process.exit(result.figures.every((f) => f.pass !== false) ? 0 : 1);
}
