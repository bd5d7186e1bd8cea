// No 500 around restarts: the index's views dropped under a running API and worker (as Ponder drops and
// re-creates them at a reindex or a devnet restart) answer 503 UNAVAILABLE with Retry-After on the read,
// prepare and backtest routes, whichever process meets the missing view first (the API, or a worker in the
// middle of a job), then 200 again once the views are back. The API and the worker are processes of their
// own (`npm run api`, `npm run worker`) over a views schema of this test's: a copy of the stack's views.
import postgres from "postgres";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadDeployments } from "../../adapters/chain/deployments.js";
import { newDeployment, startApi, startWorker, type ApiProcess, type Deployment, type ServiceProcess } from "../helpers/api-process.js";
import { waitFor } from "../helpers/stack.js";

const stack = inject("stack");
const VIEWS = `views_restart_${Date.now().toString(36)}`;
const owner = privateKeyToAccount(generatePrivateKey()).address;

let sql: postgres.Sql;
let deployment: Deployment;
let api: ApiProcess;
/** An API over the stack's own views, with the same queues: its jobs reach the worker while the copy is gone. */
let apiOverStackViews: ApiProcess;
let worker: ServiceProcess;
let definitions: { viewname: string; definition: string }[];
const log: string[] = [];

/** The stack's views, made again in VIEWS (what Ponder does when its views come back). */
async function makeViews() {
  await sql.begin(async (tx) => {
    await tx.unsafe(`create schema "${VIEWS}"`);
    for (const v of definitions) await tx.unsafe(`create view "${VIEWS}"."${v.viewname}" as ${v.definition}`);
  });
}
const dropViews = () => sql.unsafe(`drop schema if exists "${VIEWS}" cascade`);

let n = 0;
/** One request per route group; each backtest differs (identical inputs would share one job's result). */
function requests(on: ApiProcess = api): Record<string, () => Promise<Response>> {
  const d = loadDeployments(stack.deploymentsFile);
  const vault = d.vaults.find((v) => v.family === "merged")!.address;
  const weth = d.tokens.find((t) => t.symbol === "WETH")!.address;
  const post = (path: string, body: unknown) =>
    fetch(`${on.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return {
    vaults: () => fetch(`${on.url}/v1/agent/vaults`),
    account: () => fetch(`${on.url}/v1/agent/accounts/${owner}`),
    prepare: () => post("/v1/agent/prepare/vault-deposit", { owner, vault, amount: "10" }),
    backtest: () => post("/v1/agent/backtest/grid", { token: weth, buyPrice: "1", sellPrice: "2", amountUsd: 100 + (n++ % 1000), repeat: true, days: 7 }),
  };
}

beforeAll(async () => {
  sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
  definitions = await sql<{ viewname: string; definition: string }[]>`
    select viewname, pg_get_viewdef(format('%I.%I', schemaname, viewname)::regclass, true) as definition
    from pg_views where schemaname = ${stack.viewsSchema}`;
  expect(definitions.map((v) => v.viewname)).toContain("_ponder_meta");
  await makeViews();
  deployment = newDeployment();
  const env = { VIEWS_SCHEMA: VIEWS, READ_CACHE_ENTRIES: "0", RATE_LIMIT_POINTS: "100000" };
  [api, apiOverStackViews, worker] = await Promise.all([
    startApi(stack, deployment, { env, log }),
    startApi(stack, deployment, { name: "api-stack-views", env: { ...env, VIEWS_SCHEMA: stack.viewsSchema }, log }),
    startWorker(stack, deployment, { env, log }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([api?.stop(), apiOverStackViews?.stop(), worker?.stop()]);
  if (sql) {
    await dropViews().catch(() => {});
    if (deployment) await sql.unsafe(`drop schema if exists "${deployment.apiSchema}" cascade`).catch(() => {});
    await sql.end();
  }
}, 60_000);

/** Every route group's status now. */
async function statuses(on: ApiProcess = api) {
  const entries = await Promise.all(Object.entries(requests(on)).map(async ([name, send]) => [name, await send()] as const));
  return Object.fromEntries(entries);
}

describe("the index's views dropped under a running API and worker", () => {
  it("answer 503 UNAVAILABLE with Retry-After and never 500 while missing, then 200 once back", async () => {
    await waitFor(
      "every route answering 200",
      async () =>
        Object.values(await statuses()).every((r) => r.status === 200) && Object.values(await statuses(apiOverStackViews)).every((r) => r.status === 200),
      120_000,
      log,
    );

    await dropViews();
    // A worker in the middle of the reindex: jobs from an API whose own views are there meet the missing view there.
    for (const name of ["prepare", "backtest"] as const) {
      const res = await requests(apiOverStackViews)[name]!();
      const body = (await res.json()) as { code?: string };
      expect([name, res.status, body.code, res.headers.get("Retry-After")]).toEqual([name, 503, "UNAVAILABLE", "5"]);
    }
    expect(log.some((line) => line.includes("the index's views are missing"))).toBe(true);

    // The API over the dropped views: its gate closes at the first missing view it meets, or at its next poll.
    const seen: Record<string, number[]> = { vaults: [], account: [], prepare: [], backtest: [] };
    const failures: string[] = [];
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      const send = requests();
      for (const name of ["prepare", "backtest", "vaults", "account"] as const) {
        const res = await send[name]!();
        const body = (await res.json()) as { code?: string };
        seen[name]!.push(res.status);
        if (res.status === 500 || (res.status === 503 && (body.code !== "UNAVAILABLE" || !res.headers.get("Retry-After"))))
          failures.push(`${name}: ${res.status} ${JSON.stringify(body)} Retry-After ${res.headers.get("Retry-After")}`);
      }
    }
    expect(failures, log.slice(-20).join("\n")).toEqual([]);
    for (const [name, list] of Object.entries(seen)) expect(list, name).toContain(503);

    await makeViews();
    await waitFor("every route answering 200 again", async () => Object.values(await statuses()).every((r) => r.status === 200), 60_000, log);
  });
});
