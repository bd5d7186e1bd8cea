// Issue 32, the edge part two, against running processes (`npm run api`, `npm run worker`) on the run's
// devnet and indexer: five clients (127.0.0.x source addresses) flood prepares and backtests at their
// full rate, and a sixth still gets its prepare and backtest answered within 5 s (each client has a
// share of each queue's waiting jobs, and a client's first job goes ahead of a flooder's later ones).
// And, through a trusted proxy hop, two IPv6 addresses of one /64 share one rate-limit budget.
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { TEST_MNEMONIC } from "../../devnet/chain.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import { dropDeployment, newDeployment, startApi, startWorker, type ApiProcess, type Deployment, type ServiceProcess } from "../helpers/api-process.js";
import { closeLoopbackClients, requestFrom, type LoopbackAnswer } from "../helpers/loopback-client.js";

const stack = inject("stack");
const LIMIT = 400;
const owner = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 3 });

let d: Deployments;
let deployment: Deployment;
let api: ApiProcess;
let worker: ServiceProcess;
const log: string[] = [];

const post = (from: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  requestFrom(from, api.url + path, { method: "POST", body: JSON.stringify(body), headers });
const get = (from: string, path: string, headers: Record<string, string> = {}) => requestFrom(from, api.url + path, { headers });

beforeAll(async () => {
  d = loadDeployments(stack.deploymentsFile);
  deployment = newDeployment();
  // One trusted hop: a request with X-Forwarded-For is the proxy's client; one without is its socket.
  const env = { RATE_LIMIT_POINTS: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: "60", TRUST_PROXY_HOPS: "1" };
  worker = await startWorker(stack, deployment, { env, log });
  api = await startApi(stack, deployment, { env, log });
}, 240_000);

afterAll(async () => {
  closeLoopbackClients();
  await Promise.all([api?.stop(), worker?.stop()]);
  if (deployment) await dropDeployment(stack, deployment).catch(() => {});
}, 60_000);

const deposit = () => ({ owner: owner.address, vault: d.vaults[0]!.address, amount: "25" });
const weth = () => d.tokens.find((t) => t.symbol === "WETH")!.address;
/** A grid backtest; `n` makes it a request of its own (identical ones share a job). */
const backtest = (n: number) => ({ token: weth(), buyPrice: "1", sellPrice: "100000", amountUsd: 100 + n, days: 1 });

describe("fair queues (issue 32)", () => {
  it("five clients flood prepares and backtests; a sixth client's prepare and backtest answer 200 within 5 s", async () => {
    const flooders = ["127.0.0.41", "127.0.0.42", "127.0.0.43", "127.0.0.44", "127.0.0.45"];
    const seen = new Map<string, number>();
    let stop = false;
    let n = 0;
    const count = (answer: LoopbackAnswer) => {
      const key = `${answer.status} ${answer.json?.code ?? ""}`.trim();
      seen.set(key, (seen.get(key) ?? 0) + 1);
    };
    // Each flooder keeps 11 prepares and 5 backtests in flight (its 16 sockets), past its shares of 10 and 4.
    const loop = async (send: () => Promise<LoopbackAnswer>) => {
      while (!stop) count(await send().catch(() => ({ status: 0, headers: {}, text: "", json: undefined })));
    };
    const floods = flooders.flatMap((from) => [
      ...Array.from({ length: 11 }, () => loop(() => post(from, "/v1/agent/prepare/vault-deposit", deposit()))),
      ...Array.from({ length: 5 }, () => loop(() => post(from, "/v1/agent/backtest/grid", backtest(n++)))),
    ]);
    await new Promise((r) => setTimeout(r, 2000)); // the queues fill up

    const me = "127.0.0.46";
    const timed = async (send: () => Promise<LoopbackAnswer>) => {
      const started = Date.now();
      const answer = await send();
      return { status: answer.status, code: answer.json?.code, ms: Date.now() - started };
    };
    const [prepare, run] = await Promise.all([
      timed(() => post(me, "/v1/agent/prepare/vault-deposit", deposit())),
      timed(() => post(me, "/v1/agent/backtest/grid", backtest(-1))),
    ]);
    stop = true;
    await Promise.all(floods);
    console.log("flood answers:", Object.fromEntries(seen), "sixth client:", { prepare, run });
    expect(prepare.status).toBe(200);
    expect(run.status).toBe(200);
    expect(prepare.ms).toBeLessThan(5000);
    expect(run.ms).toBeLessThan(5000);
    // The flooders met their shares: 429 BUSY (with Retry-After), never a 5xx.
    expect(seen.get("429 BUSY") ?? 0).toBeGreaterThan(0);
    expect([...seen.keys()].filter((k) => k.startsWith("5") || k.startsWith("0"))).toEqual([]);
  }, 120_000);
});

describe("IPv6 clients by their /64 (issue 32)", () => {
  it("two IPv6 addresses of one /64, through a trusted proxy hop, share one budget; another /64 does not", async () => {
    const proxy = "127.0.0.47"; // the proxy's socket address; the client is the hop it adds
    const through = (ip: string) => get(proxy, "/v1/tokens", { "x-forwarded-for": ip });
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await through(i % 2 === 0 ? "2001:db8:aa:bb::1" : "2001:db8:aa:bb:1234:5678:9abc:def0")).status);
    expect(statuses.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(LIMIT)).toEqual([429, 429]);
    expect((await through("2001:db8:aa:bc::1")).status).toBe(200);
    // The proxy's own address (no forwarded hop) is a client of its own.
    expect((await get(proxy, "/v1/tokens")).status).toBe(200);
  }, 60_000);
});
