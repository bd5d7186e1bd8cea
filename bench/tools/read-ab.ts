// A/B of API variants on one read route, against a stack held by `READ_HOLD=/tmp/hold.json npx tsx
// bench/read-speed.ts` (which writes the stack's settings, owners and cursors there and waits for
// SIGUSR2). Each variant is an API process of its own, `name:FILE:FLAGS:ENV:NODE` (FILE relative to the
// repository, e.g. a `git worktree` of another commit, or empty for api/main.ts; FLAGS, node flags
// separated by spaces, go after API_NODE_FLAGS, so they win where they repeat one; ENV, `K=V,K=V`,
// settings of the API's; NODE, another Node executable than this process's, e.g. the one `.ci/run` installs
// from .nvmrc; all but the name may be left out), started as read-speed.ts starts its API; drives alternate between the
// bare app and the variants, round after round, so a busy machine bends them alike. Prints per
// variant the median ratio to the bare app, the median API CPU per request and the bench database's Postgres CPU per request.
//   READ_AB_VARIANTS="head:../base/api/main.ts;new:" READ_AB_TARGET=accounts npx tsx bench/tools/read-ab.ts
// READ_AB_HOLD (default /tmp/hold.json), READ_AB_TARGET (accounts | activity), READ_AB_ROUNDS (5),
// READ_AB_DURATION_S (5).
import { readFileSync } from "node:fs";
import { cpuSeconds, median, postgresCpu, postgresCpuSince, type Service } from "../lib.js";
import { drive, mapConcurrent, startReadApi, type ReadHold, clientHeaders } from "../read-speed.js";

type Runs = { name: string; url: string; pid?: number; path: () => string; rps: number[]; cpuMs: number[]; pgMs: number[] };

const hold = JSON.parse(readFileSync(process.env.READ_AB_HOLD ?? "/tmp/hold.json", "utf8")) as ReadHold;
const target = process.env.READ_AB_TARGET ?? "accounts";
const rounds = Number(process.env.READ_AB_ROUNDS ?? 5);
const durationS = Number(process.env.READ_AB_DURATION_S ?? 5);
const CONNECTIONS = 64;
/** The bench database: its backends' CPU (the indexer's too, idle on a still chain) is the Postgres side of an answer. */
const database = new URL(hold.stack.DATABASE_URL).pathname.slice(1);
const variants = (process.env.READ_AB_VARIANTS ?? "current:").split(";").map((v) => {
  const [name, file, flags, env, node] = v.split(":");
  return {
    name: name!,
    file: file || undefined,
    node: node || undefined,
    nodeFlags: (flags ?? "").split(" ").filter(Boolean),
    env: Object.fromEntries(
      (env ?? "")
        .split(",")
        .filter(Boolean)
        .map((kv) => kv.split(/=(.*)/s, 2) as [string, string]),
    ),
  };
});

const paths =
  target === "accounts"
    ? hold.owners.map((o) => `/v1/agent/accounts/${o}`)
    : hold.cursors.map((c) => `/v1/agent/accounts/${c.owner}/activity?cursor=${c.cursor}`);
const randomPath = () => paths[Math.floor(Math.random() * paths.length)]!;

/** Every path once (the benchmark's cold pass), so the drives are of a warm API. */
async function warm(url: string) {
  await mapConcurrent(paths, CONNECTIONS, async (path) => {
    const res = await fetch(url + path, { headers: clientHeaders(path) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  });
}

const services: Service[] = [];
try {
  const runs: Runs[] = [{ name: "bare", url: hold.bare, path: () => "/", rps: [], cpuMs: [], pgMs: [] }];
  for (const v of variants) {
    // Rate-limit counters of its own: each variant's reads stay under the limit as one API's would.
    const env = { REDIS_PREFIX: `${hold.stack.REDIS_PREFIX}-ab-${v.name}`, ...v.env };
    const api = await startReadApi(hold.stack, { file: v.file, nodeFlags: v.nodeFlags, env, node: v.node });
    services.push(api);
    await warm(api.url);
    await drive(v.name, api.url, randomPath, CONNECTIONS, 2);
    runs.push({ name: v.name, url: api.url, pid: api.process.pid, path: randomPath, rps: [], cpuMs: [], pgMs: [] });
  }
  for (let round = 0; round < rounds; round++) {
    for (const run of round % 2 ? [...runs].reverse() : runs) {
      const cpu0 = cpuSeconds(run.pid);
      const pg0 = postgresCpu(database);
      const r = await drive(run.name, run.url, run.path, CONNECTIONS, durationS);
      const cpu1 = cpuSeconds(run.pid);
      run.pgMs.push((postgresCpuSince(pg0, postgresCpu(database)) * 1000) / r.total);
      if (r.non2xx || r.errors) console.log(`${run.name}: ${r.non2xx} not 2xx, ${r.errors} errors`);
      run.rps.push(r.rps);
      if (cpu0 !== undefined && cpu1 !== undefined) run.cpuMs.push(((cpu1 - cpu0) * 1000) / r.total);
    }
  }
  const [bare, ...apis] = runs as [Runs, ...Runs[]];
  console.log(`${target}: ${rounds} rounds of ${durationS} s; bare Hono median ${Math.round(median(bare.rps))} req/s`);
  for (const run of apis) {
    const ratios = run.rps.map((x, i) => x / bare.rps[i]!);
    console.log(
      `${run.name.padEnd(12)} ratio median ${median(ratios).toFixed(3)} [${ratios.map((x) => x.toFixed(2)).join(" ")}]; ` +
        `${Math.round(median(run.rps))} req/s; API CPU ${median(run.cpuMs).toFixed(4)} ms/request [${run.cpuMs.map((x) => x.toFixed(3)).join(" ")}]; ` +
        `Postgres CPU ${median(run.pgMs).toFixed(4)} ms/request [${run.pgMs.map((x) => x.toFixed(3)).join(" ")}]`,
    );
  }
} finally {
  for (const s of services) await s.stop();
}
