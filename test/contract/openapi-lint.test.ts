// The served OpenAPI document against the standard tools: Redocly's linter (the `recommended` rules of
// redocly.yaml) finds no error in it, and the types openapi-typescript generates with its default flags let
// openapi-fetch make a strict call of every operation with only its required inputs (and refuse one without them). The document's own promises are checked too: an operationId on every operation (the MCP
// tool's and the typed client's name), `security` on every operation (`[]` when public, the session where
// the route takes it), an example on every JSON answer, a license.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOperationIds, prepareOperationId } from "../../client/agent-client.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import { json, testApp, useApiFixture } from "../api/support.js";
import { callsSource, operationInputs } from "../helpers/openapi-calls.js";

const REPO = join(import.meta.dirname, "../..");
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

type Answer = { description?: string; content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> };
type Operation = { operationId?: string; security?: Record<string, string[]>[]; responses: Record<string, Answer> };
type Document = { info: { license?: { name?: string } }; paths: Record<string, Record<string, Operation>> };

const api = useApiFixture();
let t: ReturnType<typeof testApp>;
let doc: Document;
let dir: string;
let file: string;

beforeAll(async () => {
  t = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl` } });
  doc = await json(await t.app.request("/v1/agent/openapi.json"));
  dir = await mkdtemp(join(tmpdir(), "openapi-lint-"));
  file = join(dir, "openapi.json");
  await writeFile(file, JSON.stringify(doc, null, 2));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The strict type errors of a module calling every operation of `document` (test/helpers/openapi-calls.ts)
 * through openapi-fetch, with the types openapi-typescript generates with its default flags, in dir/<name>/.
 */
async function typeErrors(document: unknown, name: string): Promise<string[]> {
  const at = join(dir, name);
  await mkdir(join(at, "node_modules"), { recursive: true });
  // openapi-fetch as an integrator has it, linked from this checkout (its own dependencies resolve from there).
  await symlink(join(REPO, "node_modules/openapi-fetch"), join(at, "node_modules/openapi-fetch"), "dir");
  await writeFile(join(at, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(join(at, "schema.ts"), astToString(await openapiTS(structuredClone(document) as never, { silent: true })));
  await writeFile(join(at, "calls.ts"), callsSource(operationInputs(document as never), "./schema.js"));
  const program = ts.createProgram([join(at, "calls.ts")], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    // The libraries' own declarations are theirs to check; the generated module and the calls are ours.
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(at.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : "";
    return `${where}TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n").slice(0, 400)}`;
  });
}

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((method) => item[method]).map((method) => ({ method, path, op: item[method]! })));

type LintProblem = { ruleId: string; severity: "error" | "warn"; message: string; location?: { pointer?: string }[] };

describe("the served OpenAPI document", () => {
  it("passes Redocly's recommended rules with no error", { timeout: 120_000 }, async () => {
    const redocly = join(REPO, "node_modules/.bin/redocly");
    const run = await promisify(execFile)(redocly, ["lint", file, "--config", join(REPO, "redocly.yaml"), "--format", "json"], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
      // No usage data sent to Redocly, no update check: the test runs offline.
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    }).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? "", stderr: error.stderr ?? "" }));
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
    const show = (p: LintProblem) => `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer ?? "?"}: ${p.message}`;
    console.log(`redocly lint (recommended): ${report.totals.errors} errors, ${report.totals.warnings} warnings`);
    for (const problem of report.problems.filter((p) => p.severity === "warn")) console.log(`  ${show(problem)}`);
    expect(report.problems.filter((p) => p.severity === "error").map(show)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it("gives openapi-typescript, with its default flags, types under which openapi-fetch compiles a strict call of every operation", {
    timeout: 120_000,
  }, async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(40);
    const inputs = operationInputs(doc as never);
    expect(inputs.map((i) => i.operationId).sort()).toEqual(ops.map(({ op }) => op.operationId!).sort());
    // The calls leave out every optional field: the prepare bodies' slippageBps, the backtests' repeat and days.
    const swap = inputs.find((i) => i.operationId === "prepare_swap")!;
    expect(Object.keys(swap.init!.body as object).sort()).toEqual(["amount", "owner", "tokenIn", "tokenOut"]);
    expect(inputs.find((i) => i.operationId === "backtest_grid")!.init!.body).not.toHaveProperty("repeat");
    expect(inputs.filter((i) => i.lacking).length).toBeGreaterThan(25);
    expect(await typeErrors(doc, "served")).toEqual([]);
  });

  it("would not compile if a request body with a default were a named component (the check can fail)", { timeout: 120_000 }, async () => {
    // openapi-typescript reads a component's `default` as "always present" (true of answers), so such a body's
    // defaulted fields come out required: the form the document had before its request bodies were made inline.
    const named = structuredClone(doc) as Document & { components: { schemas: Record<string, unknown> } };
    const media = (named.paths["/v1/agent/prepare/swap"]!.post! as unknown as { requestBody: { content: Record<string, { schema: unknown }> } }).requestBody
      .content["application/json"]!;
    named.components.schemas.SwapBody = media.schema;
    media.schema = { $ref: "#/components/schemas/SwapBody" };
    const errors = await typeErrors(named, "named");
    expect(errors.length).toBeGreaterThan(0);
    console.log(errors.join("\n"));
    expect(errors.join("\n")).toMatch(/slippageBps/);
  });

  it("has a unique operationId on every operation, the MCP tool's name and the client's", async () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === "string" && /^[A-Za-z0-9_]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const byRoute = new Map(operations().map(({ method, path, op }) => [`${method.toUpperCase()} ${path}`, op.operationId]));
    expect(byRoute.get("GET /v1/agent/vaults/{vault}/prices")).toBe("vaults_prices");
    expect(byRoute.get("GET /v1/agent/vaults/{vault}")).toBe("vaults_vault");
    expect(byRoute.get("POST /v1/agent/prepare/vault-deposit")).toBe("prepare_vault_deposit");
    expect(byRoute.get("GET /v1/tokens")).toBe("tokens");
    // Every MCP tool is named by its route's operationId.
    for (const tool of await t.app.mcp.tools()) expect(tool.name, `${tool.method} ${tool.path}`).toBe(byRoute.get(`${tool.method} ${tool.path}`));
    // And so is every method of the typed client.
    expect(clientOperationIds).toMatchObject({ vault: "vaults_vault", activity: "accounts_activity", account: "accounts_owner" });
    for (const id of Object.values(clientOperationIds)) expect(ids).toContain(id);
    for (const kind of prepareKinds) expect(ids).toContain(prepareOperationId(kind));
  });

  it("declares security on every operation: none for public ones, the session where a route takes it", () => {
    for (const { method, path, op } of operations()) expect(op.security, `${method} ${path}`).toBeDefined();
    expect(doc.paths["/v1/agent/vaults"]!.get!.security).toEqual([]);
    expect(doc.paths["/v1/agent/prepare/vault-deposit"]!.post!.security).toEqual([{}, { session: [] }]);
    expect(doc.paths["/v1/agent/report-card/{owner}/private"]!.get!.security).toEqual([{ session: [] }]);
    expect(doc.paths["/v1/agent/report-card/{owner}"]!.get!.security).toEqual([{}, { session: [] }]);
  });

  it("has an example on every JSON answer, and a license", () => {
    for (const { method, path, op } of operations()) {
      for (const [status, answer] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(answer.content ?? {})) {
          if (!/json/.test(type)) continue;
          expect(media.example ?? media.examples, `${method} ${path} ${status}`).toBeDefined();
        }
      }
    }
    const refusal = doc.paths["/v1/agent/accounts/{owner}/activity"]!.get!.responses["404"]!.content!["application/json"]!.example;
    expect(refusal).toMatchObject({ code: "CURSOR_NOT_FOUND", error: expect.any(String) });
    expect(doc.info.license?.name).toBeTruthy();
  });
});
