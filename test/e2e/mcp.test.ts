// The MCP server over the running system, driven by the SDK's own client over both transports:
// - Streamable HTTP: the app served on a real port (/mcp), prepares run in process;
// - stdio: `npx tsx scripts/mcp.ts` (what `npm run mcp` runs) spawned with the stack's environment,
//   prepares through a BullMQ worker started here on the same Redis prefix (as `npm run worker`).
// Each lists the tools, calls a read tool and the vault-deposit prepare tool for test wallet 16, and
// gets what the HTTP routes answer: the same data for the read, the same PrepareResult (same steps and
// walletSendCalls for the same body; ids and expiry differ), valid against the served OpenAPI document.
// Then it calls every read tool it can give arguments to (and the session challenge): each success's
// structuredContent validates against the tool's outputSchema (ajv), as it does against the document.
// tools/list stays under 64 KB and its input schemas carry no `additionalProperties: {}`.
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Ajv } from "ajv";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { decodeFunctionData, parseUnits, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mergedVaultAbi } from "../../abis/index.js";
import { createChainClient } from "../../adapters/chain/client.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createDb, migrateToLatest } from "../../adapters/db/connect.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { PREPARE_QUEUE } from "../../usecases/prepare/job.js";
import { prepareProcessor } from "../../workers/processors/prepare.js";
import { connectRedis, deleteKeys, randomPrefix, REDIS_URL, testApp } from "../api/support.js";
import { mintAt, publicClientAt, testAccount } from "../helpers/wallets.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../helpers/openapi-validate.js";
import { freePort } from "../helpers/stack.js";

const stack = inject("stack");
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const owner = testAccount(16).address;
const publicClient = publicClientAt(stack.rpcUrl);
const prefix = randomPrefix();
// The API schema of this file, in the stack's database (the stdio server and the worker share it).
const apiSchema = `agent_api_mcp_${randomBytes(4).toString("hex")}`;

let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let deployments: Deployments;
let server: ServerType;
let base: string;
let t: ReturnType<typeof testApp>;
let worker: Worker;
let validator: ResponseValidator;
const clients: Client[] = [];
let stdioErr = "";

beforeAll(async () => {
  db = createDb({ url: stack.databaseUrl, schema: apiSchema, max: 4 });
  await migrateToLatest(db, apiSchema);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
  redis = await connectRedis();
  deployments = loadDeployments(stack.deploymentsFile);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const chainClient = createChainClient(stack.rpcUrl, { timeoutMs: 15_000 });
  const now = () => new Date();
  t = testApp({ db, redis, reads, deployments, now, client: chainClient, baseUrl: base, rateLimit: { keyPrefix: `${prefix}:rl` } });
  server = serve({ fetch: t.app.fetch, port, hostname: "127.0.0.1" });
  validator = responseValidator(await fetchOpenApi(t.app));
  // The stdio server sends prepares to the workers of its Redis prefix: one runs here.
  worker = new Worker(
    PREPARE_QUEUE,
    prepareProcessor({ db, reads, deployments, client: chainClient, now, baseUrl: base, logger: t.deps.logger, viewsSchema: stack.viewsSchema }),
    {
      connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: `${prefix}:bull`,
    },
  );
  await worker.waitUntilReady();
  // Wallet 16 is not one of the devnet's funded test wallets: the admin mints it USDG (it has ETH).
  await mintAt(stack.rpcUrl, publicClient, deployments.contracts.usdg!, owner, parseUnits("10000", 6));
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await worker?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), reads?.destroy(), redis?.quit()]);
  const admin = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop schema if exists "${apiSchema}" cascade`).catch(() => {});
  await admin.end();
});

async function httpClient(): Promise<Client> {
  const client = new Client({ name: "e2e-http", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  clients.push(client);
  return client;
}

async function stdioClient(): Promise<Client> {
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: "npx",
    args: ["tsx", "scripts/mcp.ts"],
    cwd: repoRoot,
    stderr: "pipe",
    env: {
      ...(process.env as Record<string, string>),
      ...stack.env,
      RPC_URL: "",
      BASE_URL: base,
      API_SCHEMA: apiSchema,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: "warn",
    },
  });
  transport.stderr?.on("data", (chunk: Buffer) => (stdioErr = (stdioErr + chunk.toString()).slice(-4000)));
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The HTTP route's answer body. */
async function route(method: "GET" | "POST", path: string, body?: unknown) {
  const response = await fetch(
    `${base}${path}`,
    body === undefined ? { method } : { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
  );
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { data: any };
}

type ToolAnswer = { isError?: boolean; structuredContent?: any; content?: unknown };

const ajv = new Ajv({ strict: false });
/** Each tool's outputSchema, compiled (set by checkTransport from tools/list). */
let outputValidators = new Map<string, ReturnType<typeof ajv.compile>>();

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const answer = (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as ToolAnswer;
  expect(answer.isError, JSON.stringify(answer.content).slice(0, 500)).toBeFalsy();
  // The text content is the same JSON as the structured content, which the tool's outputSchema describes.
  expect(JSON.parse((answer.content as { text: string }[])[0]!.text)).toEqual(answer.structuredContent);
  const valid = outputValidators.get(name)!;
  expect(valid(answer.structuredContent), `${name}: ${ajv.errorsText(valid.errors)}`).toBe(true);
  return answer;
}

async function checkTransport(client: Client) {
  let lastPrepareId: string | undefined;
  // Lists the tools: every prepare kind, the reads, and the planners/backtests the document has.
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of [
    "products",
    "vaults",
    "vaults_vault",
    "accounts_owner",
    "accounts_activity",
    "prepare_vault_deposit",
    "prepare_limit_order",
    "prepare_grid",
  ]) {
    expect(names).toContain(name);
  }
  const doc = (await (await fetch(`${base}/v1/agent/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
  const jsonRoutes = Object.entries(doc.paths).flatMap(([path, item]) =>
    (["get", "post"] as const)
      .filter((m) => item[m] && !/(openapi\.json|skill\.md|llms\.txt|reference)$/.test(path))
      .map((method) => ({ method, path, operationId: item[method]!.operationId })),
  );
  expect(tools).toHaveLength(jsonRoutes.length);
  // tools/list is under 64 KB (/mcp charges it a point per 16 KiB).
  expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(64 * 1024);
  // Every tool has an output schema; no input schema has an open object's `additionalProperties: {}`.
  outputValidators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema!)]));
  expect(tools.filter((tool) => !tool.outputSchema).map((tool) => tool.name)).toEqual([]);
  expect(JSON.stringify(tools.map((tool) => tool.inputSchema))).not.toMatch(/"additionalProperties":\{\}/);

  // A read tool: the same data as the route.
  const vaults = await callTool(client, "vaults", {});
  const viaHttp = await route("GET", "/v1/agent/vaults");
  expect(validator.errors("get", "/v1/agent/vaults", 200, vaults.structuredContent)).toEqual([]);
  expect(vaults.structuredContent.data.map((v: { address: string }) => v.address)).toEqual(viaHttp.data.map((v: { address: string }) => v.address));

  // A prepare tool: the unsigned bundle and its sign link, as the route answers it for the same body.
  const vault = viaHttp.data.find((v: { family: string; status: string }) => v.family === "merged" && v.status === "open");
  expect(vault, "an open merged vault").toBeDefined();
  const body = { owner, vault: vault.address, amount: "125" };
  // The deposit's minimum shares follow the vault's share price, which the devnet's keeper moves (and
  // which the indexer may catch up on between the two calls): identical answers are expected when
  // nothing moved; otherwise everything but the minimum must match, and the minimum within 1%.
  for (let attempt = 1; ; attempt++) {
    const tool = await callTool(client, "prepare_vault_deposit", body);
    const http = await route("POST", "/v1/agent/prepare/vault-deposit", body);
    const result = tool.structuredContent.data;
    lastPrepareId = result.id;
    expect(validator.errors("post", "/v1/agent/prepare/vault-deposit", 200, tool.structuredContent)).toEqual([]);
    expect(result.signUrl).toBe(`${base}/sign/${result.id}`);
    expect(result.id).not.toBe(http.data.id);
    expect(result.kind).toBe(http.data.kind);
    expect(Object.keys(result).sort()).toEqual(Object.keys(http.data).sort());
    const same = JSON.stringify([result.steps, result.walletSendCalls]) === JSON.stringify([http.data.steps, http.data.walletSendCalls]);
    if (same) break;
    if (attempt < 6) continue;
    type Step = { to: string; data: Hex; value: string };
    const [toolSteps, httpSteps] = [result.steps as Step[], http.data.steps as Step[]];
    expect(toolSteps.map((x) => [x.to, x.value, x.data.slice(0, 10)])).toEqual(httpSteps.map((x) => [x.to, x.value, x.data.slice(0, 10)]));
    expect(toolSteps[0]).toEqual(httpSteps[0]); // the approval: exactly the amount
    const a = decodeFunctionData({ abi: mergedVaultAbi, data: toolSteps.at(-1)!.data }).args as readonly bigint[];
    const b = decodeFunctionData({ abi: mergedVaultAbi, data: httpSteps.at(-1)!.data }).args as readonly bigint[];
    expect([a[0], a[1]]).toEqual([b[0], b[1]]);
    const [x, y] = [a[2]!, b[2]!];
    expect((x > y ? x - y : y - x) * 100n).toBeLessThanOrEqual(y);
    break;
  }
  // The prepare tool only prepares: the sign request is stored, nothing was sent.
  expect(await publicClient.getTransactionCount({ address: owner, blockTag: "pending" })).toBe(await publicClient.getTransactionCount({ address: owner }));

  // An error answer is a tool error whose text is the route's error body (no structured content: it is no {data}).
  const refused = (await client.callTool({ name: "vaults_vault", arguments: { vault: "0x000000000000000000000000000000000000dEaD" } })) as ToolAnswer;
  expect(refused.isError).toBe(true);
  expect(refused.structuredContent).toBeUndefined();
  expect(JSON.parse((refused.content as { text: string }[])[0]!.text)).toMatchObject({ code: "NOT_AGENT_VAULT" });

  // Every read tool (GET) and the session challenge, with arguments from what the stack holds: each
  // answer validates against its outputSchema (in callTool) and against the document.
  const token = ((await callTool(client, "tokens", {})).structuredContent.data as { address: string }[])[0];
  const basket = ((await callTool(client, "baskets", {})).structuredContent.data as { address: string }[])[0];
  const known: Record<string, unknown> = {
    owner,
    vault: vault.address,
    id: lastPrepareId,
    pool: basket?.address,
    token: token?.address,
    tokenIn: "USDG",
    tokenOut: token?.address,
    amount: "10",
  };
  const called: string[] = [];
  const skipped: string[] = [];
  const refusals: string[] = [];
  for (const tool of tools) {
    const get = tool.annotations?.idempotentHint === true;
    if (!get && tool.name !== "report_card_session_challenge") continue;
    const required = (tool.inputSchema.required ?? []) as string[];
    if (required.some((name) => known[name] === undefined)) {
      skipped.push(tool.name);
      continue;
    }
    const args = Object.fromEntries(required.map((name) => [name, known[name]]));
    const tried = (await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: 90_000 })) as ToolAnswer;
    if (tried.isError) {
      refusals.push(`${tool.name} ${JSON.parse((tried.content as { text: string }[])[0]!.text).code}`);
      continue;
    }
    const answer = await callTool(client, tool.name, args);
    const route = jsonRoutes.find((r) => r.operationId === tool.name)!;
    expect(validator.errors(route.method, route.path, 200, answer.structuredContent), tool.name).toEqual([]);
    called.push(tool.name);
  }
  console.log(
    `MCP e2e: ${called.length} tools answered and matched their outputSchema: ${called.join(", ")}; refused: ${refusals.join(", ") || "none"}; no arguments for: ${skipped.join(", ") || "none"}`,
  );
  // No argument at hand: the private card's session token, and a wallet's strategy-finder attempts.
  expect(skipped).toEqual(["report_card_private", "strategy_finder_attempts"]);
  // Refusals are the stack's 503s only (scans not ready; no chain RPC for the stdio server).
  expect(refusals.filter((r) => !/ (SCAN_PREPARING|UNAVAILABLE)$/.test(r))).toEqual([]);
  for (const name of ["sign_requests_id", "accounts_owner", "accounts_activity", "products", "vaults", "vaults_vault", "vaults_prices", "vaults_earnings"])
    expect(called).toContain(name);
  for (const name of ["report_card_session_challenge", "report_card_owner", "policies_privy", "policies_turnkey", "tokens", "baskets", "baskets_pool"])
    expect(called).toContain(name);
  for (const name of ["baskets_history", "baskets_account_owner", "strategy_finder_track_record"]) expect(called).toContain(name);
}

describe("the MCP server, driven by the SDK's client", () => {
  it("over Streamable HTTP at /mcp", async () => {
    await checkTransport(await httpClient());
  });

  it("over stdio (npm run mcp)", async () => {
    let client: Client;
    try {
      client = await stdioClient();
    } catch (error) {
      throw new Error(`${(error as Error).message}\nstderr:\n${stdioErr}`);
    }
    await checkTransport(client);
  }, 180_000);
});
