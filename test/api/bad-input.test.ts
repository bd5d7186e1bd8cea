// Bad requests across every route the app serves when this runs: the cases are generated from the
// served OpenAPI document (so routes added later are covered as they arrive) plus fixed cases for
// cursors, bodies and unknown routes. Each bad request gets its expected status and code; none gets
// a 5xx; every error body is {error, code, details?} with a code from the catalog.
//
// The app reads no projections here (every projection query answers no rows) and has no chain
// client: what is exercised is the refusal of bad input, before any data matters.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRouteGroups } from "../../api/routes/index.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { CURSOR_TTL_MS } from "../../contract/accounts.js";
import { isErrorCode } from "../../domain/errors.js";
import { errorStatus } from "../../contract/error-statuses.js";
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from "../../contract/discovery/catalog.js";
import { resolve } from "../../contract/discovery/catalog.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "./support.js";
import { testRoutes } from "./test-routes.js";

const VALID = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
/** A well-formed address no vault, basket or token has. */
const UNKNOWN = "0x00000000000000000000000000000000DeaDBeef";
const HEX39 = "70997970c51812dc3a010c7d01b50e0d17dc79c";

/** Malformed addresses, each with what is wrong with it. */
const BAD_ADDRESSES: [string, string][] = [
  ["0x + 39 hex", `0x${HEX39}`],
  ["0x + 41 hex", `0x${HEX39}8a`],
  ["no 0x", `${HEX39}8`],
  ["0X prefix", `0X${HEX39}8`],
  ["a non-hex letter", `0x${HEX39}g`],
  ["unicode é", `0x${HEX39}é`],
  ["fullwidth digit", `0x${HEX39}０`],
  ["an ENS name", "vitalik.eth"],
];

type Case = {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  code: string;
  /** Any of these codes (e.g. a route declaring several 404s). */
  codes?: string[];
};

let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
const prefix = randomPrefix();
let t: ReturnType<typeof testApp>;
let doc: OpenApiDocument;
const cases: Case[] = [];

/** A value the schema accepts (for the parameters a case does not break). */
function validValue(name: string, schema: JsonSchema | undefined): string {
  const s = resolve(doc, schema);
  if (s.pattern === "^0x[0-9a-fA-F]{40}$" || /owner|vault|pool|address|wallet/.test(name)) return VALID;
  if (s.example !== undefined && typeof s.example !== "object") return String(s.example);
  if (s.default !== undefined) return String(s.default);
  if (s.enum?.length) return String(s.enum[0]);
  if (s.type === "integer" || s.type === "number") return String(s.minimum ?? 1);
  return "abc";
}

/** Bad values of a parameter, from its schema. */
function badValues(_name: string, schema: JsonSchema | undefined, inPath: boolean): [string, string][] {
  const s = resolve(doc, schema);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const bad: [string, string][] = [];
  if (s.pattern === "^0x[0-9a-fA-F]{40}$") bad.push(...BAD_ADDRESSES);
  else if (s.pattern) bad.push(["off the pattern", "~~~"]);
  if (types.includes("integer") || types.includes("number")) {
    bad.push(["not a number", "abc"], ["fullwidth digit", "７"]);
    if (types.includes("integer")) bad.push(["a fraction", "1.5"]);
    if (s.minimum !== undefined) bad.push(["below the minimum", String(s.minimum - 1)]);
    if (s.maximum !== undefined) bad.push(["above the maximum", String(s.maximum + 1)]);
  }
  if (s.enum?.length) bad.push(["not one of the values", "no-such-value"]);
  if (s.maxLength !== undefined) bad.push([`longer than ${s.maxLength}`, "x".repeat(s.maxLength + 1)]);
  if (s.minLength !== undefined && s.minLength > 0 && !inPath) bad.push(["empty", ""]);
  return bad;
}

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(values[key] ?? VALID));
}

function operationCases(path: string, method: string, op: OpenApiOperation): Case[] {
  const out: Case[] = [];
  const params = op.parameters ?? [];
  const pathValues = Object.fromEntries(params.filter((p) => p.in === "path").map((p) => [p.name, validValue(p.name, p.schema)]));
  const requiredQuery = Object.fromEntries(params.filter((p) => p.in === "query" && p.required).map((p) => [p.name, validValue(p.name, p.schema)]));
  const query = (extra: Record<string, string>) => {
    const q = new URLSearchParams({ ...requiredQuery, ...extra }).toString();
    return q ? `?${q}` : "";
  };
  const upper = method.toUpperCase();
  const declared404 = Object.entries(op.responses ?? {})
    .filter(([status]) => status === "404")
    .flatMap(([, r]) => [...(r.description ?? "").matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!));

  for (const p of params) {
    if (p.in !== "path" && p.in !== "query") continue;
    for (const [what, value] of badValues(p.name, p.schema, p.in === "path")) {
      const target = p.in === "path" ? fill(path, { ...pathValues, [p.name]: value }) + query({}) : fill(path, pathValues) + query({ [p.name]: value });
      out.push({ name: `${upper} ${path}: ${p.in} ${p.name} ${what}`, method: upper, path: target, status: 400, code: "INVALID_REQUEST" });
    }
    if (p.in === "query" && p.required) {
      const { [p.name]: _omitted, ...rest } = requiredQuery;
      const q = new URLSearchParams(rest).toString();
      out.push({
        name: `${upper} ${path}: query ${p.name} missing`,
        method: upper,
        path: fill(path, pathValues) + (q ? `?${q}` : ""),
        status: 400,
        code: "INVALID_REQUEST",
      });
    }
  }
  // A well-formed address that names nothing, on a route that declares the 404 for it.
  const addressParams = params.filter((p) => p.in === "path" && resolve(doc, p.schema).pattern === "^0x[0-9a-fA-F]{40}$");
  const subject = addressParams.find((p) => p.name !== "owner");
  if (subject && declared404.length) {
    out.push({
      name: `${upper} ${path}: unknown ${subject.name}`,
      method: upper,
      path: fill(path, { ...pathValues, [subject.name]: UNKNOWN }) + query({}),
      status: 404,
      code: declared404[0]!,
      codes: declared404,
    });
  }
  const content = op.requestBody?.content?.["application/json"];
  if (content) out.push(...bodyCases(upper, fill(path, pathValues) + query({}), content.schema));
  return out;
}

/** Bad bodies of a JSON-body route. */
function bodyCases(method: string, target: string, schema: JsonSchema | undefined): Case[] {
  const s = resolve(doc, schema);
  const jsonHeaders = { "content-type": "application/json" };
  const base = { method, path: target };
  const out: Case[] = [
    { ...base, name: `${method} ${target}: malformed JSON`, headers: jsonHeaders, body: '{"owner": ', status: 400, code: "INVALID_REQUEST" },
    { ...base, name: `${method} ${target}: JSON with a trailing comma`, headers: jsonHeaders, body: '{"owner": "x",}', status: 400, code: "INVALID_REQUEST" },
    {
      ...base,
      name: `${method} ${target}: text/plain`,
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ owner: VALID }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      ...base,
      name: `${method} ${target}: a form`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `owner=${VALID}`,
      status: 400,
      code: "INVALID_REQUEST",
    },
    { ...base, name: `${method} ${target}: no content type`, headers: {}, body: JSON.stringify({ owner: VALID }), status: 400, code: "INVALID_REQUEST" },
    {
      ...base,
      name: `${method} ${target}: 70 KiB`,
      headers: jsonHeaders,
      body: JSON.stringify({ owner: VALID, pad: "x".repeat(70 * 1024) }),
      status: 400,
      code: "INVALID_REQUEST",
    },
    { ...base, name: `${method} ${target}: a JSON array`, headers: jsonHeaders, body: "[]", status: 400, code: "INVALID_REQUEST" },
    { ...base, name: `${method} ${target}: JSON null`, headers: jsonHeaders, body: "null", status: 400, code: "INVALID_REQUEST" },
  ];
  if ((s.required ?? []).length)
    out.push({ ...base, name: `${method} ${target}: an empty object`, headers: jsonHeaders, body: "{}", status: 400, code: "INVALID_REQUEST" });
  for (const [name, field] of Object.entries(s.properties ?? {})) {
    if (resolve(doc, field).pattern !== "^0x[0-9a-fA-F]{40}$") continue;
    for (const [what, value] of BAD_ADDRESSES.slice(0, 4)) {
      out.push({
        ...base,
        name: `${method} ${target}: body ${name} ${what}`,
        headers: jsonHeaders,
        body: JSON.stringify({ [name]: value }),
        status: 400,
        code: "INVALID_REQUEST",
      });
    }
  }
  return out;
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  t = testApp({ db, redis, rateLimit: { keyPrefix: `${prefix}:rl` } });
  doc = await json(await t.app.request("/v1/agent/openapi.json"));

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) cases.push(...operationCases(path, method, op as OpenApiOperation));
  }
  // Body refusals need a JSON-body route: every real one is covered above; while the catalog has none
  // (no prepare routes yet), the foundation's test echo route stands in.
  const hasBodyRoute = Object.values(doc.paths ?? {}).some((item) => Object.values(item).some((op) => (op as OpenApiOperation).requestBody));
  if (!hasBodyRoute) {
    const echo = testApp({ db, redis, rateLimit: { keyPrefix: `${prefix}:rl:echo` }, options: { agentRoutes: [...agentRouteGroups, testRoutes()] } });
    const echoDoc: OpenApiDocument = await json(await echo.app.request("/v1/agent/openapi.json"));
    const op = echoDoc.paths!["/v1/agent/test/echo"]!.post as OpenApiOperation;
    const previous = doc;
    doc = echoDoc;
    for (const c of bodyCases("POST", "/v1/agent/test/echo", op.requestBody!.content!["application/json"]!.schema))
      cases.push({ ...c, name: `[test echo] ${c.name}` });
    doc = previous;
    echoApp = echo.app;
  }

  // Cursors: expired, another owner's, garbage.
  const baseline = async (owner: string) => (await json(await t.app.request(`/v1/agent/accounts/${owner}/activity`))).data.cursor as string;
  const mine = await baseline(VALID);
  const theirs = await baseline(OTHER);
  expiredCursor = await baseline(VALID);
  const activity = (owner: string, cursor: string) => `/v1/agent/accounts/${owner}/activity?cursor=${encodeURIComponent(cursor)}`;
  cases.push(
    { name: "activity: another owner's cursor", method: "GET", path: activity(VALID, theirs), status: 404, code: "CURSOR_NOT_FOUND" },
    { name: "activity: my cursor on another owner", method: "GET", path: activity(OTHER, mine), status: 404, code: "CURSOR_NOT_FOUND" },
    { name: "activity: my cursor, owner lowercased, still mine (control)", method: "GET", path: activity(VALID.toLowerCase(), mine), status: 200, code: "" },
    {
      name: "activity: a random-looking unknown cursor",
      method: "GET",
      path: activity(VALID, "q8kVb2n5TzY1xW0aP3mL7rS9dF4gH6jK"),
      status: 404,
      code: "CURSOR_NOT_FOUND",
    },
    { name: "activity: garbage cursor", method: "GET", path: activity(VALID, "not a cursor"), status: 404, code: "CURSOR_NOT_FOUND" },
    { name: "activity: SQL in the cursor", method: "GET", path: activity(VALID, "' OR '1'='1"), status: 404, code: "CURSOR_NOT_FOUND" },
    { name: "activity: unicode cursor", method: "GET", path: activity(VALID, "cürsör-ünïcode"), status: 404, code: "CURSOR_NOT_FOUND" },
    { name: "activity: expired cursor", method: "GET", path: activity(VALID, expiredCursor), status: 404, code: "CURSOR_NOT_FOUND" },
    // Routing.
    { name: "an unknown route", method: "GET", path: "/v1/agent/no-such-route", status: 404, code: "NOT_FOUND" },
    { name: "a wrong method", method: "DELETE", path: `/v1/agent/accounts/${VALID}`, status: 404, code: "NOT_FOUND" },
    {
      name: "a POST to a read route",
      method: "POST",
      path: `/v1/agent/accounts/${VALID}`,
      headers: { "content-type": "application/json" },
      body: "{}",
      status: 404,
      code: "NOT_FOUND",
    },
    {
      name: "an oversized body to a read route",
      method: "POST",
      path: `/v1/agent/accounts/${VALID}`,
      headers: { "content-type": "application/json", "content-length": String(70 * 1024) },
      body: "x".repeat(70 * 1024),
      status: 400,
      code: "INVALID_REQUEST",
    },
    { name: "a path with an encoded slash", method: "GET", path: `/v1/agent/accounts/${VALID}%2Factivity`, status: 400, code: "INVALID_REQUEST" },
  );
});

let echoApp: ReturnType<typeof testApp>["app"] | undefined;
let expiredCursor = "";

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

describe("bad input, across every route served", () => {
  it("has at least 100 cases over every path of the OpenAPI document that takes input", () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    const withInput = Object.entries(doc.paths ?? {})
      .filter(([, item]) => Object.values(item).some((op) => ((op as OpenApiOperation).parameters ?? []).length || (op as OpenApiOperation).requestBody))
      .map(([path]) => path);
    for (const path of withInput)
      expect(
        cases.some((c) => c.name.includes(` ${path}:`)),
        path,
      ).toBe(true);
  });

  it("answers each with its status and code, never a 5xx, always {error, code} from the catalog", async () => {
    // The expired cursor: 14 days after its issue.
    const failures: string[] = [];
    const moved = t.clock.now().getTime();
    for (const c of cases) {
      const app = c.name.startsWith("[test echo]") ? echoApp! : t.app;
      const expiring = c.name === "activity: expired cursor";
      if (expiring) t.clock.set(new Date(moved + CURSOR_TTL_MS + 1000));
      const response = await app.request(c.path, { method: c.method, headers: c.headers, body: c.body });
      if (expiring) t.clock.set(new Date(moved));
      const text = await response.text();
      const where = `${c.name} → ${response.status} ${text.slice(0, 200)}`;
      if (response.status >= 500) {
        failures.push(`5xx: ${where}`);
        continue;
      }
      if (c.status === 200) {
        if (response.status !== 200) failures.push(`expected 200: ${where}`);
        continue;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        failures.push(`not JSON: ${where}`);
        continue;
      }
      const keys = Object.keys(body).sort();
      const shapeOk =
        typeof body.error === "string" &&
        (body.error as string).length > 0 &&
        isErrorCode(body.code) &&
        (keys.join() === "code,error" || keys.join() === "code,details,error");
      if (!shapeOk) failures.push(`not {error, code} of the catalog: ${where}`);
      const codes = c.codes ?? [c.code];
      if (response.status !== c.status || !codes.includes(body.code as string)) failures.push(`expected ${c.status} ${codes.join("|")}: ${where}`);
      else if (isErrorCode(body.code) && errorStatus[body.code] !== response.status) failures.push(`status differs from the catalog's: ${where}`);
    }
    expect(failures).toEqual([]);
  });
});
