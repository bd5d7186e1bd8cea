// Issue 32, item 6 ("Chain id, again"), against running processes (`npm run api`, `npm run worker`) on the
// run's devnet and indexer: the API and the worker check eth_chainId when the RPC first answers, not only
// at start. Each process's RPC is a JSON-RPC proxy of the test's own (below) in front of the devnet that
// does not listen at first (the processes start with their RPC down: a warning, not an exit), then
// answers, forwarding every call to the devnet but eth_chainId, which it answers with an id of its own:
// - "wrong" answers chain 1: the API behind it (api-wrong) and the worker behind it (w-wrong) each log one
//   line naming chain 1 and 4663 and refuse prepares with 503 UNAVAILABLE (Retry-After); api-wrong still
//   serves reads, which need no chain id;
// - "right" answers 4663: the API behind it (api-right) learns that from the first answer and serves
//   prepares, which fail 503 at w-wrong (the worker's own guard) and answer 200 once a worker behind
//   "right" (w-right) runs them instead.
// All in one deployment (one API schema and Redis prefix), so both APIs' prepares go to its workers.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import { CHAIN_ID, WRONG_CHAIN } from "../../domain/chain.js";
import { dropDeployment, newDeployment, startApi, startWorker, type ApiProcess, type Deployment, type ServiceProcess } from "../helpers/api-process.js";
import { freePort, waitFor } from "../helpers/stack.js";
import { testAccount } from "../helpers/wallets.js";

const stack = inject("stack");
const OWNER = testAccount(4).address; // a funded test wallet (USDG and gas from the devnet)

type Rpc = { id?: unknown; method?: string; result?: unknown };

/**
 * A JSON-RPC proxy to `target` on `port` that answers eth_chainId with `chainId` (single calls and
 * batches alike: viem batches the reads of one tick). Not listening until `open()`: connections are refused.
 */
function chainIdProxy(target: string, port: number, chainId: number) {
  let server: Server | undefined;
  let chainIdCalls = 0;
  const handle = async (body: string): Promise<{ status: number; text: string }> => {
    const request = JSON.parse(body) as Rpc | Rpc[];
    const asked = new Set((Array.isArray(request) ? request : [request]).filter((r) => r.method === "eth_chainId").map((r) => JSON.stringify(r.id)));
    chainIdCalls += asked.size;
    const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    const text = await upstream.text();
    if (asked.size === 0) return { status: upstream.status, text };
    const answer = JSON.parse(text) as Rpc | Rpc[];
    const rewrite = (r: Rpc): Rpc => (asked.has(JSON.stringify(r.id)) && "result" in r ? { ...r, result: `0x${chainId.toString(16)}` } : r);
    return { status: upstream.status, text: JSON.stringify(Array.isArray(answer) ? answer.map(rewrite) : rewrite(answer)) };
  };
  return {
    url: `http://127.0.0.1:${port}`,
    chainIdCalls: () => chainIdCalls,
    open: () =>
      new Promise<void>((resolve, reject) => {
        const s = createServer((req, res) => {
          let body = "";
          req.on("data", (chunk: Buffer) => (body += chunk.toString()));
          req.on("end", () =>
            handle(body).then(
              ({ status, text }) => res.writeHead(status, { "content-type": "application/json" }).end(text),
              (error: Error) => res.writeHead(502, { "content-type": "text/plain" }).end(error.message),
            ),
          );
        });
        s.once("error", reject);
        s.listen(port, "127.0.0.1", () => {
          server = s;
          resolve();
        });
      }),
    close: () => {
      const s = server;
      server = undefined;
      if (!s) return Promise.resolve();
      s.closeAllConnections();
      return new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

let d: Deployments;
let deployment: Deployment;
let wrong: ReturnType<typeof chainIdProxy>;
let right: ReturnType<typeof chainIdProxy>;
let apiWrong: ApiProcess;
let apiRight: ApiProcess;
const workers: ServiceProcess[] = [];
const log: string[] = [];

beforeAll(async () => {
  d = loadDeployments(stack.deploymentsFile);
  deployment = newDeployment();
  // Free ports, nobody listening on them yet: the processes' first eth_chainId is refused.
  [wrong, right] = [chainIdProxy(stack.rpcUrl, await freePort(), 1), chainIdProxy(stack.rpcUrl, await freePort(), CHAIN_ID)];
  const on = (proxy: ReturnType<typeof chainIdProxy>) => ({ DEVNET_PORT: new URL(proxy.url).port, RATE_LIMIT_POINTS: "100000" });
  let wWrong: ServiceProcess;
  [apiWrong, apiRight, wWrong] = await Promise.all([
    startApi(stack, deployment, { name: "api-wrong", env: on(wrong), log }),
    startApi(stack, deployment, { name: "api-right", env: on(right), log }),
    startWorker(stack, deployment, { name: "w-wrong", env: on(wrong), log }),
  ]);
  workers.push(wWrong);
}, 240_000);

afterAll(async () => {
  await Promise.all([apiWrong?.stop(), apiRight?.stop(), ...workers.map((w) => w.stop())]);
  await Promise.all([wrong?.close(), right?.close()]);
  if (deployment) await dropDeployment(stack, deployment).catch(() => {});
}, 60_000);

const prepare = (api: ApiProcess, amount: string) =>
  fetch(`${api.url}/v1/agent/prepare/vault-deposit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ owner: OWNER, vault: d.vaults[0]!.address, amount }),
    signal: AbortSignal.timeout(30_000),
  });
const read = (api: ApiProcess) => fetch(`${api.url}/v1/agent/accounts/${OWNER}`, { signal: AbortSignal.timeout(30_000) });
const linesOf = (name: string, text: string) => log.filter((line) => line.startsWith(`${name}| `) && line.includes(text));
const wrongChainLine = (proxy: ReturnType<typeof chainIdProxy>) => `The RPC at ${proxy.url} is on chain 1, not ${CHAIN_ID}: prepares answer 503`;

describe("the chain id, checked when the RPC first answers (issue 32)", () => {
  it("started with the RPC down, then on chain 1: one clear log line each, prepares 503 UNAVAILABLE, reads still served", async () => {
    // Down at start: each process said so and started anyway.
    for (const name of ["api-wrong", "api-right", "w-wrong"]) expect(linesOf(name, "could not be read").join("\n")).toContain("starting anyway");

    await Promise.all([wrong.open(), right.open()]);
    // Each guard asks again every 2 s in the background, and finds out without a request.
    await waitFor(
      "the guards' answers",
      () =>
        linesOf("api-wrong", wrongChainLine(wrong)).length > 0 &&
        linesOf("w-wrong", wrongChainLine(wrong)).length > 0 &&
        linesOf("api-right", `answers: chain ${CHAIN_ID}`).length > 0,
      20_000,
      log,
    );

    // Reads need no chain id: served once the index is ready (its genesis read through the proxy).
    await waitFor("reads at api-wrong", async () => (await read(apiWrong)).status === 200, 30_000, log);

    const refused = await prepare(apiWrong, "11");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toEqual({ error: WRONG_CHAIN, code: "UNAVAILABLE" });
    // Known now: asked no more, and the line is not repeated per request.
    const asked = wrong.chainIdCalls();
    expect((await prepare(apiWrong, "12")).status).toBe(503);
    expect((await read(apiWrong)).status).toBe(200);
    expect(wrong.chainIdCalls()).toBe(asked);
    expect(linesOf("api-wrong", wrongChainLine(wrong))).toHaveLength(1);
    expect(linesOf("api-wrong", wrongChainLine(wrong))[0]).toContain('"level":"error"');
    expect(linesOf("api-right", "is on chain")).toHaveLength(0);
    expect(apiWrong.alive() && apiRight.alive() && workers[0]!.alive()).toBe(true);
  });

  it("a worker on chain 1 refuses the prepare itself (503); one on chain 4663 runs it (200), and the API that saw 4663 keeps serving", async () => {
    // api-right passes the prepare on; the only worker, on chain 1, refuses it with its own guard.
    const refused = await prepare(apiRight, "13");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toEqual({ error: WRONG_CHAIN, code: "UNAVAILABLE" });
    expect(linesOf("w-wrong", wrongChainLine(wrong))).toHaveLength(1);

    // A worker behind "right" instead (its RPC up this time: the id is known at start).
    await workers[0]!.stop();
    workers.push(await startWorker(stack, deployment, { name: "w-right", env: { DEVNET_PORT: new URL(right.url).port }, log }));
    for (const amount of ["14", "15"]) {
      const answer = await prepare(apiRight, amount);
      const body = (await answer.json()) as { data?: { id?: string } };
      expect(answer.status, JSON.stringify(body)).toBe(200);
      expect(body.data?.id).toBeTruthy();
    }
    // api-wrong stays stopped: the id it learned is not asked again until a restart.
    expect((await prepare(apiWrong, "16")).status).toBe(503);
  });
});
