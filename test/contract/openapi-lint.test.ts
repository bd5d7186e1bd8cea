// The served OpenAPI document against the standard tools: Redocly's linter (the `recommended` rules of
// redocly.yaml) finds no error in it, and openapi-typescript generates one entry of `operations` per
// operationId. The document's own promises are checked too: an operationId on every operation (the MCP
// tool's and the typed client's name), `security` on every operation (`[]` when public, the session where
// the route takes it), an example on every JSON answer, a license.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import openapiTS from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOperationIds, prepareOperationId } from "../../client/agent-client.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import { agentTools } from "../../mcp/server.js";
import { json, testApp, useApiFixture } from "../api/support.js";

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

  it("gives openapi-typescript one entry of `operations` per operationId", async () => {
    const nodes = await openapiTS(structuredClone(doc) as never, { silent: true });
    const declaration = nodes.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === "operations");
    expect(declaration, "an `operations` interface").toBeDefined();
    const generated = declaration!.members.map((member) => (member.name as ts.Identifier | ts.StringLiteral).text).sort();
    const ids = operations()
      .map(({ op }) => op.operationId!)
      .sort();
    expect(ids.length).toBeGreaterThan(40);
    expect(generated).toEqual(ids);
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
    for (const tool of await agentTools(t.app)) expect(tool.name, `${tool.method} ${tool.path}`).toBe(byRoute.get(`${tool.method} ${tool.path}`));
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
