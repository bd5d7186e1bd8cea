// Discovery documents: skill.md and llms.txt are generated from the OpenAPI document the app serves
// and the error catalog (every path and every code in them), and the reference page is one HTML
// page with no URL of any host and no external asset.
import { Script } from "node:vm";
import SwaggerParser from "@apidevtools/swagger-parser";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenApiDocument } from "../../contract/discovery/catalog.js";
import { renderLlmsTxt } from "../../contract/discovery/llms-txt.js";
import { renderSkillMd } from "../../contract/discovery/skill-md.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { errorCodes } from "../../domain/errors.js";
import { errorAnswers, errorStatus } from "../../contract/error-statuses.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "../api/support.js";

let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
const prefix = randomPrefix();
let t: ReturnType<typeof testApp>;
let doc: OpenApiDocument;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  t = testApp({ db, redis, rateLimit: { keyPrefix: `${prefix}:rl` } });
  doc = await json(await t.app.request("/v1/agent/openapi.json"));
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

const paths = () => Object.keys(doc.paths ?? {});

describe("the route catalog of the discovery documents", () => {
  it("is the document the app serves at /v1/agent/openapi.json", async () => {
    expect(paths()).toEqual(
      expect.arrayContaining([
        "/v1/agent/accounts/{owner}",
        "/v1/agent/accounts/{owner}/activity",
        "/v1/agent/skill.md",
        "/v1/agent/llms.txt",
        "/v1/agent/reference",
      ]),
    );
  });

  it("is a valid OpenAPI 3.1 document with the discovery and account routes in it", async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
    const ops = doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    expect(Object.keys(ops["/v1/agent/skill.md"]!.get!.responses["200"]!.content!)).toEqual(["text/markdown"]);
    expect(Object.keys(ops["/v1/agent/llms.txt"]!.get!.responses["200"]!.content!)).toEqual(["text/plain"]);
    expect(Object.keys(ops["/v1/agent/reference"]!.get!.responses["200"]!.content!)).toEqual(["text/html"]);
    expect(ops["/v1/agent/accounts/{owner}/activity"]!.get!.responses["404"]).toBeDefined();
  });
});

describe("GET /v1/agent/skill.md", () => {
  it("is Markdown naming every path of the served OpenAPI document and every error code", async () => {
    const response = await t.app.request("/v1/agent/skill.md");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = await response.text();
    expect(text).toBe(renderSkillMd(doc, errorAnswers));
    expect(text).toMatch(/^---\nname: agent-interface\ndescription: /);
    for (const path of paths()) expect(text, path).toMatch(new RegExp(`^### (GET|POST|PUT|PATCH|DELETE) ${path.replace(/[{}.]/g, "\\$&")}$`, "m"));
    for (const code of errorCodes) expect(text, code).toContain(`\`${code}\``);
    for (const fact of ["never holds keys", "sign link", "10 minutes", "estimates, not quotes", "14 days", "CURSOR_NOT_FOUND", "reorged"])
      expect(text).toContain(fact);
    // The activity route's semantics come from its OpenAPI description.
    expect(text).toContain("**Reorgs.**");
  });

  it("follows the document: a route added to it appears, with its parameters and codes", () => {
    const extra: OpenApiDocument = {
      ...doc,
      paths: {
        ...doc.paths,
        "/v1/agent/new/{thing}": {
          post: {
            summary: "A new route",
            parameters: [{ name: "thing", in: "path", required: true, schema: { type: "string", pattern: "^x$" } }],
            requestBody: {
              required: true,
              content: { "application/json": { schema: { type: "object", required: ["a"], properties: { a: { type: "integer", minimum: 1, maximum: 9 } } } } },
            },
            responses: { "422": { description: "`NO_CANDLES`: No price history" } },
          },
        },
      },
    };
    const text = renderSkillMd(extra, errorAnswers);
    expect(text).toContain("### POST /v1/agent/new/{thing}");
    expect(text).toContain("- `thing` (path, required, string matching ^x$)");
    expect(text).toContain("- `a` (body, required, integer 1-9)");
    expect(text).toContain("Answers: 422 NO_CANDLES.");
    expect(renderLlmsTxt(extra, errorAnswers)).toContain(
      "- POST /v1/agent/new/{thing}: A new route. Parameters: thing (path: string matching ^x$); a (body: integer 1-9). Errors: NO_CANDLES.",
    );
  });
});

describe("funding a wallet: the devnet's faucet in skill.md and llms.txt", () => {
  const faucetUrl = "http://127.0.0.1:8547";

  it("is named, with how to call it, where the service runs on its devnet", async () => {
    const onDevnet = testApp({ db, redis, devnetFaucetUrl: faucetUrl, rateLimit: { keyPrefix: `${prefix}:rl-faucet` } });
    const skill = await (await onDevnet.app.request("/v1/agent/skill.md")).text();
    expect(skill).toContain("## Funding a wallet on the devnet");
    expect(skill).toContain(`\`POST ${faucetUrl}/fund\``);
    expect(skill).toContain("npm run fund -- <address> [USDG amount]");
    for (const path of ["/v1/agent/llms.txt", "/llms.txt"]) expect(await (await onDevnet.app.request(path)).text()).toContain(`POST ${faucetUrl}/fund`);
  });

  it("is absent on a real chain (no faucet URL): nothing there names a faucet", async () => {
    for (const path of ["/v1/agent/skill.md", "/v1/agent/llms.txt", "/llms.txt"])
      expect(await (await t.app.request(path)).text(), path).not.toMatch(/faucet|npm run fund/i);
  });
});

describe("the prepare answers' issues (0x Swap API v2's shape)", () => {
  it("the OpenAPI document's PrepareResult requires issues {balance, allowance, simulationIncomplete}; skill.md says what they mean", async () => {
    const schemas = (
      doc as { components: { schemas: Record<string, { required?: string[]; properties?: Record<string, { type?: unknown; required?: string[] }> }> } }
    ).components.schemas;
    expect(schemas.PrepareResult!.required).toContain("issues");
    const issues = schemas.PrepareIssues!;
    expect(issues.required).toEqual(["balance", "allowance", "simulationIncomplete"]);
    expect(issues.properties!.balance).toMatchObject({ type: ["object", "null"], required: ["token", "actual", "expected"] });
    expect(issues.properties!.allowance).toMatchObject({ type: ["object", "null"], required: ["spender", "actual"] });
    expect(issues.properties!.simulationIncomplete!.type).toBe("boolean");
    const text = await (await t.app.request("/v1/agent/skill.md")).text();
    expect(text).toContain("`issues.balance` names the token");
    expect(text).toContain("`issues.balance` {token, actual, expected} when the owner holds less than the bundle spends");
    expect(text).toMatch(/### POST \/v1\/agent\/prepare\/swap[\s\S]*?`issues.simulationIncomplete` true/);
  });
});

describe("skill.md's retryable answers", () => {
  it("names RATE_LIMITED, BUSY and UNAVAILABLE, each with its status and what it asks of an agent", async () => {
    const text = await (await t.app.request("/v1/agent/skill.md")).text();
    const section = text.slice(text.indexOf("Retryable answers"));
    for (const [code, status] of [
      ["RATE_LIMITED", 429],
      ["BUSY", 429],
      ["UNAVAILABLE", 503],
    ] as const)
      expect(section).toMatch(new RegExp(`^- \`${code}\` \\(${status}\\): .*Retry-After`, "m"));
    expect(text).toContain("429 RATE_LIMITED or BUSY");
  });
});

describe("GET /v1/agent/llms.txt", () => {
  it("is plain text naming every path of the served OpenAPI document and every error code", async () => {
    const response = await t.app.request("/v1/agent/llms.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await response.text();
    expect(text).toBe(renderLlmsTxt(doc, errorAnswers));
    expect(text).toMatch(/^# Agent interface\n\n> /);
    for (const path of paths()) expect(text, path).toMatch(new RegExp(`^- (GET|POST|PUT|PATCH|DELETE) ${path.replace(/[{}.]/g, "\\$&")}: `, "m"));
    for (const code of errorCodes) expect(text, code).toMatch(new RegExp(`^- ${code} \\(${errorStatus[code]}\\): `, "m"));
    expect(text).toContain("(http://agent.test/v1/agent/openapi.json)");
  });
});

describe("GET /v1/agent/reference", () => {
  it("is Swagger UI served from this origin (no URL of any host, no CDN), under a strict CSP with a nonce", async () => {
    const response = await t.app.request("/v1/agent/reference");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?\s*\/\//i); // no protocol-relative URLs
    expect(html).not.toMatch(/@import|url\(/i);
    const csp = response.headers.get("content-security-policy")!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-(eval|inline)/);
    // Every script and stylesheet carries the nonce; the assets are relative to the page, beside it.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(2);
    for (const [, attrs] of scripts) expect(attrs).toContain(`nonce="${nonce}"`);
    const { readFileSync } = await import("node:fs");
    const version = (JSON.parse(readFileSync("node_modules/swagger-ui-dist/package.json", "utf8")) as { version: string }).version;
    expect(scripts[0]![1]).toContain(`src="reference/swagger-ui-bundle.js?v=${version}"`);
    expect(() => new Script(scripts[1]![2]!)).not.toThrow();
    expect(scripts[1]![2]).toContain('url: "openapi.json"');
    expect(scripts[1]![2]).toContain("validatorUrl: null");
    expect(html).toContain(`<link rel="stylesheet" href="reference/swagger-ui.css?v=${version}" nonce="${nonce}">`);
    expect(new URL("openapi.json", "http://agent.test/v1/agent/reference").pathname).toBe("/v1/agent/openapi.json");
    expect(new URL("reference/swagger-ui.css", "http://agent.test/v1/agent/reference").pathname).toBe("/v1/agent/reference/swagger-ui.css");
    // A new nonce per answer.
    const again = (await t.app.request("/v1/agent/reference")).headers.get("content-security-policy");
    expect(again).not.toBe(csp);
  });

  it("serves swagger-ui-dist's script and stylesheet from node_modules, and nothing else under reference/", async () => {
    const { readFileSync } = await import("node:fs");
    for (const [name, type] of [
      ["swagger-ui-bundle.js", "text/javascript"],
      ["swagger-ui.css", "text/css"],
    ] as const) {
      const response = await t.app.request(`/v1/agent/reference/${name}?v=1`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get("content-type")).toBe(`${type}; charset=utf-8`);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(`node_modules/swagger-ui-dist/${name}`))).toBe(true);
    }
    for (const path of ["index.html", "package.json", "..%2Fpackage.json", "swagger-ui-bundle.js.map"])
      expect((await t.app.request(`/v1/agent/reference/${path}`)).status, path).toBe(404);
  });
});

describe("paying for long runs (x402)", () => {
  it("skill.md explains the flow in five lines, and the paid routes declare 402 PAYMENT_REQUIRED with the price", async () => {
    const text = await (await t.app.request("/v1/agent/skill.md")).text();
    const section = /## Paying for runs past 30 days \(x402\)\n\n((?:\d\. .*\n)+)/.exec(text)?.[1];
    const lines = section!.trim().split("\n");
    expect(lines).toHaveLength(5);
    for (const words of [
      "PAYMENT-REQUIRED",
      "PAYMENT-SIGNATURE",
      "PAYMENT-RESPONSE",
      "EIP-3009",
      "eip155:4663",
      "503 UNAVAILABLE",
      "EIP-7702",
      "ERC-1271",
      "ERC-6492",
      "`remedy`",
    ])
      expect(section).toContain(words);
    for (const [method, path] of [
      ["post", "/v1/agent/backtest/grid"],
      ["post", "/v1/agent/backtest/ladder"],
      ["get", "/v1/agent/ranges"],
    ] as const) {
      const op = (doc.paths as any)[path][method];
      expect(op.responses["402"].description, path).toContain("`PAYMENT_REQUIRED`");
      expect(op.responses["402"].headers["PAYMENT-REQUIRED"], path).toBeDefined();
      expect(op.description, path).toContain("0.01 USDG a day past 30 (60 days: 0.3 USDG)");
    }
  });
});

describe("the MCP face and the root documents", () => {
  it("skill.md and llms.txt name /mcp (Streamable HTTP, stateless, JSON answers), npm run mcp and an mcpServers block", async () => {
    for (const route of ["/v1/agent/skill.md", "/v1/agent/llms.txt"]) {
      const text = await (await t.app.request(route)).text();
      expect(text, route).toContain("http://agent.test/mcp");
      expect(text, route).toMatch(/Streamable HTTP: POST http:\/\/agent\.test\/mcp/);
      expect(text, route).toContain("stateless");
      expect(text, route).toContain("JSON answers");
      expect(text, route).toContain("`npm run mcp`");
      // The client configuration parses and names both ways in.
      const block = /```json\n([\s\S]*?)\n```/.exec(text)?.[1];
      const config = JSON.parse(block!) as { mcpServers: Record<string, { url?: string; command?: string; args?: string[] }> };
      expect(config.mcpServers["agent-interface"]).toEqual({ type: "streamable-http", url: "http://agent.test/mcp" });
      expect(config.mcpServers["agent-interface-stdio"]!.args).toEqual(expect.arrayContaining(["run", "--silent", "mcp"]));
      // Each route names its operationId, the MCP tool's name.
      expect(text, route).toMatch(/prepare_vault_deposit/);
    }
  });

  it("GET /llms.txt answers 200 with the text of /v1/agent/llms.txt", async () => {
    const root = await t.app.request("/llms.txt");
    expect(root.status).toBe(200);
    expect(root.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await root.text()).toBe(await (await t.app.request("/v1/agent/llms.txt")).text());
  });

  it("GET / answers 200 with where the documents and the MCP server are", async () => {
    const response = await t.app.request("/");
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.docs).toEqual({
      openapi: "http://agent.test/v1/agent/openapi.json",
      reference: "http://agent.test/v1/agent/reference",
      skill: "http://agent.test/v1/agent/skill.md",
      llms: "http://agent.test/llms.txt",
    });
    expect(body.mcp.url).toBe("http://agent.test/mcp");
    // Every document it names is served.
    for (const url of [...Object.values(body.docs as Record<string, string>)]) expect((await t.app.request(url)).status, url).toBe(200);
  });
});
