// Requests for fuzzing every route, generated with fast-check from the served OpenAPI document (so a
// route added tomorrow is fuzzed tomorrow): for each operation, invalid requests (values off their
// schema, wrong types, missing fields, malformed JSON, wrong content types, 1 MB bodies, nesting as
// deep as 64 KiB allows, duplicated keys, `__proto__`/`constructor`/`prototype` keys...) and
// valid-but-odd ones (schema-valid values at their edges: odd casing, negative zero, huge amounts,
// unicode, duplicated keys and parameters, extra fields). Also /mcp (JSON-RPC messages) and the sign
// page /sign/{id}, which the document does not list.
//
// `mustRefuse` marks the requests that are certainly invalid whatever the route does with them (the
// fuzz then also demands a 4xx); the others only have to be answered well.
import fc from "fast-check";
import { getAddress } from "viem";
import { MAX_JSON_DEPTH } from "../../api/middleware/json-depth.js";
import { resolve, type JsonSchema, type OpenApiDocument, type OpenApiOperation, type OpenApiParameter } from "../../contract/discovery/catalog.js";

export type FuzzRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  kind: "invalid" | "valid";
  /** Certainly invalid: any 2xx answer is a validation gap. */
  mustRefuse: boolean;
  /** What was done to the request, for failure messages. */
  what: string;
  /** The only statuses the request may get (the sign page's, whose answers are known in advance). */
  allowed?: number[];
};

export type FuzzOperation = { method: string; path: string; parameters: OpenApiParameter[]; body?: JsonSchema; bodyRequired: boolean };

/** Values of the running system that make valid requests reach past the first lookup. */
export type FuzzHints = { addresses: string[]; symbols: string[] };

/**
 * JSON text spliced in as is by `jsonText`: nesting far deeper than JSON.stringify's recursion allows
 * (30,000 levels overflow its stack), built as text.
 */
export class RawJson {
  constructor(
    readonly text: string,
    readonly type: "array" | "object",
    readonly depth: number,
  ) {}
}

/** `depth` nested arrays (2 bytes a level) or objects (`{"":`…`}`, 5 bytes a level) around 1. */
export function deepJson(type: "array" | "object", depth: number): RawJson {
  const text = type === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"":'.repeat(depth)}1${"}".repeat(depth)}`;
  return new RawJson(text, type, depth);
}

/** The deepest value of `type` whose text fits in `bytes`. */
export function deepestWithin(type: "array" | "object", bytes: number): RawJson {
  return deepJson(type, Math.max(1, Math.floor((bytes - 1) / (type === "array" ? 2 : 5))));
}

/**
 * JSON text of `value`, RawJson spliced in. Own keys named `__proto__` are kept (JSON.stringify keeps
 * own ones too; only an object literal's `__proto__:` sets the prototype instead of a key).
 */
export function jsonText(value: unknown, space?: string): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? `\u0000raw${raws.push(v.text) - 1}\u0000` : v), space);
  return raws.length ? text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_, i: string) => raws[Number(i)]!) : text;
}

/** `{...base}` with `key` set as an own data property (even `__proto__`). */
export function withKey(base: unknown, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...((base && typeof base === "object" && !Array.isArray(base) ? base : {}) as object) };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

const ADDRESS_PATTERN = "^0x[0-9a-fA-F]{40}$";
/** Deeper than twice the server's cap is refused whatever the counting convention. */
export const CERTAINLY_TOO_DEEP = 2 * MAX_JSON_DEPTH;
/** Room for a deep value beside a small body, under the 64 KiB body limit. */
const DEEP_BUDGET = 56 * 1024;
/** Keys that name Object.prototype's machinery: sent for real, as own keys of the JSON text. */
const PROTO_KEYS = ["__proto__", "constructor", "prototype"] as const;
const HEX40 = "70997970c51812dc3a010c7d01b50e0d17dc79c8";
const JSON_TYPE = { "content-type": "application/json" };

export function operationsOf(doc: OpenApiDocument): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const op = raw as OpenApiOperation;
      const body = op.requestBody?.content?.["application/json"]?.schema;
      out.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], body, bodyRequired: op.requestBody?.required ?? false });
    }
  }
  return out;
}

// ------------------------------------------------------------------ schema helpers

function typesOf(s: JsonSchema): string[] {
  if (s.type === undefined) return [];
  return Array.isArray(s.type) ? s.type : [s.type];
}

/** The schema's alternatives (anyOf / oneOf), resolved; the schema itself when it has none. */
function alternatives(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema[] {
  const s = resolve(doc, schema);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.flatMap((a) => alternatives(doc, a));
  if (s.allOf) return [mergeAllOf(doc, s)];
  return [s];
}

function mergeAllOf(doc: OpenApiDocument, s: JsonSchema): JsonSchema {
  const parts = (s.allOf ?? []).map((p) => resolve(doc, p));
  return {
    type: "object",
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {}), s.properties ?? {}),
    required: [...new Set(parts.flatMap((p) => p.required ?? []).concat(s.required ?? []))],
  };
}

/** JSON types a value of the schema may have (empty: any). */
function jsonTypes(doc: OpenApiDocument, schema: JsonSchema | undefined): Set<string> {
  const types = new Set<string>();
  for (const alt of alternatives(doc, schema)) {
    const t = typesOf(alt);
    if (t.length === 0) {
      if (alt.properties) types.add("object");
      else if (alt.enum) alt.enum.forEach((v) => types.add(v === null ? "null" : Array.isArray(v) ? "array" : typeof v));
      else if (alt.const !== undefined) types.add(typeof alt.const);
      else return new Set(); // unconstrained
    }
    for (const one of t) types.add(one === "integer" ? "number" : one);
  }
  return types;
}

/** True when a string (a query or path value) certainly breaks the parameter's schema. */
export function stringBreaks(doc: OpenApiDocument, schema: JsonSchema | undefined, value: string): boolean {
  return alternatives(doc, schema).every((s) => {
    if (s.enum) return !s.enum.map(String).includes(value);
    const types = typesOf(s);
    if (types.includes("integer") || types.includes("number")) {
      const n = Number(value);
      if (Number.isNaN(n)) return true;
      if (types.includes("integer") && !types.includes("number") && !Number.isInteger(n)) return true;
      if (s.minimum !== undefined && n < s.minimum) return true;
      if (s.maximum !== undefined && n > s.maximum) return true;
      return false;
    }
    if (types.includes("boolean")) return !["true", "false"].includes(value);
    if (s.pattern && !new RegExp(s.pattern, "u").test(value)) return true;
    if (s.maxLength !== undefined && [...value].length > s.maxLength && value.length > s.maxLength) return true;
    if (s.minLength !== undefined && value.length < s.minLength && [...value].length < s.minLength) return true;
    return false;
  });
}

/** True when a JSON value certainly breaks the schema (conservative: unknown shapes never do). */
function valueBreaks(doc: OpenApiDocument, schema: JsonSchema | undefined, value: unknown): boolean {
  const types = jsonTypes(doc, schema);
  if (types.size === 0) return false;
  const t = value === null ? "null" : value instanceof RawJson ? value.type : Array.isArray(value) ? "array" : typeof value;
  if (!types.has(t)) return true;
  if (t === "string" && types.size === 1) return stringBreaks(doc, schema, value as string);
  if (t === "number" && types.size === 1) {
    return alternatives(doc, schema).every(
      (s) =>
        (s.minimum !== undefined && (value as number) < s.minimum) ||
        (s.maximum !== undefined && (value as number) > s.maximum) ||
        (typesOf(s).includes("integer") && !typesOf(s).includes("number") && !Number.isInteger(value)),
    );
  }
  return false;
}

// ------------------------------------------------------------------ odd but valid values

/** An address in one of its spellings: checksummed, lowercase, or uppercase hex digits. */
function addressArb(hints: FuzzHints): fc.Arbitrary<string> {
  const raw = fc.oneof(
    { weight: 3, arbitrary: hints.addresses.length ? fc.constantFrom(...hints.addresses) : fc.constant(`0x${HEX40}`) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}`) },
    { weight: 1, arbitrary: fc.constantFrom(`0x${"0".repeat(40)}`, `0x${"f".repeat(40)}`, `0x${"F".repeat(40)}`) },
  );
  return fc.tuple(raw, fc.integer({ min: 0, max: 2 })).map(([a, casing]) => {
    const lower = a.toLowerCase();
    return casing === 0 ? getAddress(lower) : casing === 1 ? lower : `0x${lower.slice(2).toUpperCase()}`;
  });
}

const ODD_STRINGS = [
  "0",
  "00",
  "0.0",
  "000001",
  "1.000000000000000000000001",
  "0.000000000000000001",
  "115792089237316195423570985008687907853269984665640564039457584007913129639935",
  "1".padEnd(80, "0"),
  "9".repeat(79),
  "a",
  "A",
  "z9",
  "a.b_c-d",
  "x".repeat(39),
  "weth",
  "WETH",
  "Weth",
  "usdg",
  "ETH",
  "eth",
  "é",
  "ñandú",
  "日本語",
  "🦄",
  "Ｗ",
  "\u200b",
  "ß",
  "İ",
  "2025-01-01T00:00:00.000Z",
  "true",
  "null",
];

function stringArb(doc: OpenApiDocument, s: JsonSchema, name: string, hints: FuzzHints): fc.Arbitrary<string> {
  if (s.pattern === ADDRESS_PATTERN) return addressArb(hints);
  const fits = (v: string) => !stringBreaks(doc, s, v);
  const options: fc.Arbitrary<string>[] = [];
  const odd = ODD_STRINGS.filter(fits);
  if (odd.length) options.push(fc.constantFrom(...odd));
  if (/token|symbol/i.test(name)) {
    const candidates = [
      ...hints.symbols.flatMap((sym) => [sym, sym.toLowerCase()]),
      ...hints.addresses.slice(0, 20).flatMap((a) => [a, a.toLowerCase()]),
    ].filter(fits);
    if (candidates.length) options.push(fc.constantFrom(...candidates));
  }
  if (s.example !== undefined && typeof s.example === "string" && fits(s.example)) options.push(fc.constant(s.example));
  if (s.pattern) {
    const pattern = new RegExp(s.pattern, "u");
    options.push(fc.stringMatching(pattern).filter((v) => fits(v)));
  } else if (s.format === "date-time") {
    options.push(fc.date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString()));
  } else {
    const maxLength = Math.min(s.maxLength ?? 64, 64);
    options.push(fc.string({ unit: "grapheme", minLength: s.minLength ?? 0, maxLength }).filter(fits));
  }
  return fc.oneof(...options);
}

function numberArb(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 1e-9) : integer ? -(2 ** 31) : -1e12);
  const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : 1e-9) : integer ? 2 ** 31 : 1e12);
  const edges = [lo, hi, Math.ceil(lo), Math.floor(hi), 0, -0, 1, Number.MAX_SAFE_INTEGER, 1e15, 5e-324].filter(
    (v) => v >= lo && v <= hi && (!integer || Number.isInteger(v)),
  );
  const main = integer
    ? fc.integer({ min: Math.max(Math.ceil(lo), Number.MIN_SAFE_INTEGER), max: Math.min(Math.floor(hi), Number.MAX_SAFE_INTEGER) })
    : fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
  return edges.length ? fc.oneof(main, fc.constantFrom(...edges)) : main;
}

/** A value the schema accepts, preferring edges and odd spellings. */
export function validValueArb(doc: OpenApiDocument, schema: JsonSchema | undefined, name: string, hints: FuzzHints, depth = 0): fc.Arbitrary<unknown> {
  const alts = alternatives(doc, schema);
  if (alts.length > 1) return fc.oneof(...alts.map((a) => validValueArb(doc, a, name, hints, depth)));
  const s = alts[0]!;
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  const types = typesOf(s).filter((t) => t !== "null");
  const nullable = typesOf(s).includes("null");
  const one = (t: string | undefined): fc.Arbitrary<unknown> => {
    switch (t) {
      case "string":
        return stringArb(doc, s, name, hints);
      case "integer":
        // Long polls: keep the fuzz's valid waits short (the route's limit is tested elsewhere).
        return numberArb(/wait/i.test(name) ? { ...s, maximum: Math.min(s.maximum ?? 500, 500) } : s, true);
      case "number":
        return numberArb(s, false);
      case "boolean":
        return fc.boolean();
      case "array":
        if (depth > 4) return fc.constant([]);
        return fc.array(validValueArb(doc, s.items, name, hints, depth + 1), {
          minLength: s.minItems ?? 0,
          maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 6)),
        });
      default:
        if (s.properties || t === "object") return objectArb(doc, s, hints, depth);
        return fc.oneof(fc.string({ maxLength: 8 }), fc.integer());
    }
  };
  const arb = types.length > 1 ? fc.oneof(...types.map(one)) : one(types[0]);
  return nullable ? fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) }) : arb;
}

function objectArb(doc: OpenApiDocument, s: JsonSchema, hints: FuzzHints, depth: number): fc.Arbitrary<Record<string, unknown>> {
  if (depth > 4) return fc.constant({});
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, value] of Object.entries(props)) model[key] = validValueArb(doc, value, key, hints, depth + 1);
  const requiredKeys = Object.keys(props).filter((k) => required.has(k));
  const base = fc.record(model, { requiredKeys });
  // Extra fields where the schema allows them (zod's default: unknown keys are stripped).
  if (s.additionalProperties === false) return base;
  // `__proto__`, `constructor` and `prototype` among them, as own keys really sent.
  const extraKey = fc
    .oneof(fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }), fc.constantFrom(...PROTO_KEYS))
    .filter((k) => !Object.hasOwn(props, k));
  const extras = fc.option(fc.array(fc.tuple(extraKey, fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 }), { freq: 3 });
  return fc
    .tuple(base, extras)
    .map(([o, extra]) => (extra ?? []).reduce<Record<string, unknown>>((acc, [k, v]) => (Object.hasOwn(o, k) ? acc : withKey(acc, k, v)), { ...o }));
}

// ------------------------------------------------------------------ bad values

const BAD_STRINGS: string[] = [
  `0x${HEX40.slice(0, 39)}`, // 39 hex
  `0x${HEX40}a`, // 41 hex
  `0x${HEX40.slice(0, 39)}g`,
  `0X${HEX40}`,
  HEX40,
  ` 0x${HEX40}`,
  `0x${HEX40}\n`,
  `0x${HEX40.slice(0, 38)}０`,
  "",
  " ",
  "\t\n",
  "\u0000",
  "\u202e",
  "\ud800",
  "null",
  "undefined",
  "[object Object]",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "-1",
  "1e309",
  "1e-400",
  "0x10",
  "1_000",
  "1,5",
  "1.",
  ".5",
  "+1",
  "１２３",
  "٣",
  "9".repeat(400),
  "x".repeat(10_000),
  "💥".repeat(500),
  "../../etc/passwd",
  "' OR 1=1 --",
  '"; drop table x; --',
  "%00",
  "%2e%2e%2f",
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "__proto__",
  "constructor",
];

const BAD_NUMBERS: number[] = [-1, -0, 0, 0.5, 1.5, -1e308, 1e308, 2 ** 53 + 2, 2 ** 64, 5e-324, -2147483649, 4294967296];

function deepArray(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const BAD_VALUES: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...BAD_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(...BAD_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [1, 2], { owner: `0x${HEX40}` }, [`0x${HEX40}`]) },
  // Nesting from just past the cap to as deep as fits beside a small body in 64 KiB.
  { weight: 1, arbitrary: fc.integer({ min: 33, max: Math.floor(DEEP_BUDGET / 2) }).map((d) => deepJson("array", d)) },
  { weight: 1, arbitrary: fc.integer({ min: 33, max: Math.floor(DEEP_BUDGET / 5) }).map((d) => deepJson("object", d)) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS).map((k) => withKey({}, k, { owner: `0x${HEX40}`, isAdmin: true, polluted: 1 })) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 5000 }, (_, i) => i)) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const BAD_PARAMS: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...BAD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_NUMBERS.map((n) => (Object.is(n, -0) ? "-0" : String(n)))) },
);

// ------------------------------------------------------------------ serialising

const isTooDeep = (value: unknown): boolean => value instanceof RawJson && value.depth >= CERTAINLY_TOO_DEEP;

/** A value in a failure message. */
export function shown(value: unknown): string {
  if (value instanceof RawJson) return `${value.type}s nested ${value.depth} deep`;
  return (jsonText(value) ?? String(value)).slice(0, 60);
}

/** A query or path value as text: negative zero stays "-0". */
function asText(value: unknown): string {
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

/** A JSON body text in an odd but valid spelling. */
const oddJson = (value: unknown, style: number): string => {
  switch (style) {
    case 1:
      return JSON.stringify(value, null, "\t");
    case 2: // every non-ASCII character escaped, and spaces around
      return `  ${JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\r\n`;
    case 3: // a duplicated key: a junk value first, the real one last (JSON.parse keeps the last)
      if (value && typeof value === "object" && !Array.isArray(value)) {
        const keys = Object.keys(value);
        if (keys.length) return `{${JSON.stringify(keys[0])}:"junk",${JSON.stringify(value).slice(1)}`;
      }
      return JSON.stringify(value);
    case 4: // negative zero written as such
      return JSON.stringify(value).replace(/:0([,}])/g, ":-0$1");
    default:
      return JSON.stringify(value);
  }
};

const ODD_JSON_TYPES = ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8", "application/json ; charset=utf-8"];
const WRONG_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json5",
  "text/json",
  "application/jsonx",
  "",
  "*/*",
  "application/octet-stream",
];

/** Percent-encodes the UTF-8 bytes of `value` (lone surrogates become U+FFFD, as a client sends them). */
function encode(value: string): string {
  return [...Buffer.from(value, "utf8")]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`))
    .join("");
}

function buildPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => encode(values[key] ?? ""));
}

function queryString(pairs: [string, string][]): string {
  return pairs.length ? `?${pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&")}` : "";
}

// ------------------------------------------------------------------ requests

type Parts = { path: Record<string, string>; query: [string, string][] };

function validPartsArb(doc: OpenApiDocument, op: FuzzOperation, hints: FuzzHints): fc.Arbitrary<Parts> {
  const inPath = op.parameters.filter((p) => p.in === "path");
  const inQuery = op.parameters.filter((p) => p.in === "query");
  const pathArb = fc.record(Object.fromEntries(inPath.map((p) => [p.name, validValueArb(doc, p.schema, p.name, hints).map(asText)])));
  const queryArb = fc.tuple(
    ...inQuery.map((p) => {
      const value = validValueArb(doc, p.schema, p.name, hints).map((v) => [p.name, asText(v)] as [string, string]);
      return p.required ? value.map((v) => [v]) : fc.option(value, { freq: 2 }).map((v) => (v ? [v] : []));
    }),
  );
  return fc.tuple(pathArb, queryArb).map(([path, query]) => ({ path: path as Record<string, string>, query: query.flat() as [string, string][] }));
}

/** Valid-but-odd requests of one operation. */
export function validRequestArb(doc: OpenApiDocument, op: FuzzOperation, hints: FuzzHints): fc.Arbitrary<FuzzRequest> {
  const body = op.body ? validValueArb(doc, op.body, "body", hints) : fc.constant(undefined);
  return fc
    .tuple(validPartsArb(doc, op, hints), body, fc.integer({ min: 0, max: 4 }), fc.constantFrom(...ODD_JSON_TYPES), fc.integer({ min: 0, max: 3 }))
    .map(([parts, value, style, type, queryOddity]) => {
      let query = parts.query;
      let what = `valid: json style ${style}`;
      if (queryOddity === 1 && query.length) {
        query = [...query, query[0]!]; // the same parameter twice
        what += ", a parameter repeated";
      } else if (queryOddity === 2) {
        query = [...query, ["Ünknown", "✓"]];
        what += ", an unknown parameter";
      }
      const req: FuzzRequest = {
        method: op.method,
        path: buildPath(op.path, parts.path) + queryString(query),
        headers: { accept: queryOddity === 3 ? "text/html;q=0.9, */*;q=0.1" : "application/json" },
        kind: "valid",
        mustRefuse: false,
        what,
      };
      if (op.body && value !== undefined) {
        req.body = oddJson(value, style);
        req.headers["content-type"] = type;
      }
      return req;
    });
}

/** Invalid requests of one operation. */
export function invalidRequestArb(doc: OpenApiDocument, op: FuzzOperation, hints: FuzzHints): fc.Arbitrary<FuzzRequest> {
  const parts = validPartsArb(doc, op, hints);
  const body = op.body ? validValueArb(doc, op.body, "body", hints) : fc.constant(undefined);
  const base = fc.tuple(parts, body);
  const make = (p: Parts, b: string | undefined, headers: Record<string, string>, mustRefuse: boolean, what: string, method = op.method): FuzzRequest => ({
    method,
    path: buildPath(op.path, p.path) + queryString(p.query),
    headers,
    body: b,
    kind: "invalid",
    mustRefuse,
    what,
  });
  const jsonOf = (value: unknown) => (op.body && value !== undefined ? JSON.stringify(value) : undefined);
  const bodyHeaders = op.body ? JSON_TYPE : {};
  const mutations: fc.Arbitrary<FuzzRequest>[] = [];
  const params = op.parameters.filter((p) => p.in === "path" || p.in === "query");

  if (params.length) {
    // A parameter replaced by a bad value.
    mutations.push(
      fc.tuple(base, fc.constantFrom(...params), BAD_PARAMS).map(([[p, b], param, bad]) => {
        const next: Parts = { path: { ...p.path }, query: p.query.filter(([k]) => k !== param.name) };
        if (param.in === "path") next.path[param.name] = bad;
        else next.query.push([param.name, bad]);
        // A path value with a "/" changes the route (404), with "" too: both refused all the same.
        const refused = stringBreaks(doc, param.schema, bad) || (param.in === "path" && (bad === "" || bad.includes("/")));
        return make(next, jsonOf(b), { ...bodyHeaders }, refused, `${param.in} ${param.name} = ${JSON.stringify(bad).slice(0, 60)}`);
      }),
    );
    const required = op.parameters.filter((p) => p.in === "query" && p.required);
    if (required.length) {
      mutations.push(
        fc
          .tuple(base, fc.constantFrom(...required))
          .map(([[p, b], param]) =>
            make({ ...p, query: p.query.filter(([k]) => k !== param.name) }, jsonOf(b), { ...bodyHeaders }, true, `query ${param.name} missing`),
          ),
      );
    }
  }

  if (op.body) {
    const schema = alternatives(doc, op.body)[0]!;
    const props = Object.keys(schema.properties ?? {});
    if (props.length) {
      // A field replaced by a bad value (or a bad value added under an unknown name).
      mutations.push(
        fc.tuple(base, fc.constantFrom(...props), BAD_VALUES, fc.boolean()).map(([[p, b], field, bad, duplicated]) => {
          const object = { ...((b as Record<string, unknown>) ?? {}), [field]: bad };
          const refused = valueBreaks(doc, schema.properties![field], bad);
          // Sometimes the bad value comes as a duplicated key after a good one: the last one counts.
          const text = duplicated
            ? `{${JSON.stringify(field)}:${JSON.stringify((b as Record<string, unknown>)?.[field] ?? "x")},${jsonText(object).slice(1)}`
            : jsonText(object);
          return make(p, text, { ...JSON_TYPE }, refused || isTooDeep(bad), `body ${field} = ${shown(bad)}${duplicated ? " (duplicated key)" : ""}`);
        }),
      );
      const required = props.filter((k) => (schema.required ?? []).includes(k));
      if (required.length) {
        mutations.push(
          fc.tuple(base, fc.constantFrom(...required)).map(([[p, b], field]) => {
            const { [field]: _gone, ...rest } = (b as Record<string, unknown>) ?? {};
            return make(p, JSON.stringify(rest), { ...JSON_TYPE }, true, `body ${field} missing`);
          }),
          // The required field under a prototype key instead: code that copies the body with
          // Object.assign or a merge would find it through the prototype; a parser must not.
          fc.tuple(base, fc.constantFrom(...required), fc.constantFrom(...PROTO_KEYS)).map(([[p, b], field, key]) => {
            const { [field]: value, ...rest } = (b as Record<string, unknown>) ?? {};
            const under = key === "__proto__" ? { [field]: value } : { prototype: { [field]: value }, [field]: value };
            return make(p, jsonText(withKey(rest, key, under)), { ...JSON_TYPE }, true, `body ${field} moved under ${key}`);
          }),
        );
      }
    }
    // The body as a whole: not an object, not JSON, not JSON's content type, too large, too deep.
    mutations.push(
      fc
        .tuple(parts, fc.constantFrom<unknown>(null, [], [{}], "owner", 1, -0, true, deepArray(3)))
        .map(([p, v]) => make(p, JSON.stringify(v), { ...JSON_TYPE }, op.bodyRequired || v !== null, `body = ${JSON.stringify(v)}`)),
      fc
        .tuple(
          base,
          fc.constantFrom(
            '{"owner": ',
            '{"a":1,}',
            "{'a':1}",
            "{a:1}",
            '{"a":NaN}',
            '{"a":1} // c',
            "\ufeff{}",
            '{"a":"\\x"}',
            '{"a":"\u0000"',
            "",
            "[",
            "nul",
            '{"a":1}{"b":2}',
          ),
        )
        .map(([[p], text]) => make(p, text, { ...JSON_TYPE }, op.bodyRequired || text !== "", `malformed JSON ${JSON.stringify(text)}`)),
      fc
        .tuple(base, fc.constantFrom(...WRONG_TYPES))
        .map(([[p, b], type]) =>
          make(p, JSON.stringify(b ?? {}), type ? { "content-type": type } : {}, op.bodyRequired, `content type ${JSON.stringify(type)}`),
        ),
      // Nesting up to the body limit: the whole body, or one extra field of a valid body, as deep
      // as fits in 64 KiB (30,000 arrays); an unclosed one too.
      fc
        .tuple(
          base,
          fc.constantFrom("array", "object", "unclosed") as fc.Arbitrary<"array" | "object" | "unclosed">,
          fc.boolean(),
          fc.double({ min: 0.002, max: 1, noNaN: true }),
        )
        .map(([[p, b], type, asField, share]) => {
          if (type === "unclosed") return make(p, "[".repeat(60_000), { ...JSON_TYPE }, true, "60,000 unclosed [");
          const around = asField ? jsonText(b ?? {}).length + 16 : 0;
          const deepest = deepestWithin(type, 65_536 - around - 64);
          const deep = deepJson(type, Math.max(CERTAINLY_TOO_DEEP, Math.round(deepest.depth * share)));
          const text = asField ? jsonText(withKey(b, "extra", deep)) : deep.text;
          return make(p, text, { ...JSON_TYPE }, true, `${asField ? "a field" : "the body"}: ${shown(deep)} (${text.length} bytes)`);
        }),
      // Prototype keys beside valid fields: sent as own keys, with payloads aimed at pollution.
      fc
        .tuple(
          base,
          fc.constantFrom(...PROTO_KEYS),
          fc.constantFrom<unknown>({ polluted: 1, isAdmin: true }, { prototype: { polluted: 1 } }, { owner: `0x${HEX40}` }, null, 1, "x", []),
        )
        .map(([[p, b], key, payload]) =>
          make(p, jsonText(withKey(b, key, payload)), { ...JSON_TYPE }, schema.additionalProperties === false, `body + ${key} = ${JSON.stringify(payload)}`),
        ),
    );
    // 1 MB bodies, rarely (each costs a megabyte over loopback).
    mutations.push(
      fc.tuple(base, fc.boolean()).map(([[p, b], valid]) => {
        const pad = "x".repeat(1024 * 1024);
        const text = valid ? JSON.stringify({ ...((b as object) ?? {}), pad }) : pad;
        return make(p, text, { ...JSON_TYPE }, true, "a 1 MB body");
      }),
    );
  } else {
    // No body here: send one anyway, or use the wrong method.
    mutations.push(
      fc
        .tuple(parts, fc.constantFrom(...WRONG_TYPES, "application/json"))
        .map(([p, type]) =>
          make(
            p,
            op.method === "GET" ? undefined : '{"a":1}',
            type ? { "content-type": type } : {},
            false,
            `content type ${JSON.stringify(type)} on a bodiless route`,
          ),
        ),
      fc
        .tuple(parts, fc.constantFrom("POST", "PUT", "PATCH", "DELETE"))
        .map(([p, method]) => make(p, method === "DELETE" ? undefined : '{"owner":"0x"}', { ...JSON_TYPE }, method !== op.method, `method ${method}`, method)),
    );
  }

  // The path itself: junk appended, odd casing, encoded traversal.
  mutations.push(
    fc.tuple(parts, fc.constantFrom("/x", "/", "//", "/..", "/%2e%2e", "/%00", "/é", ".json", "%20")).map(([p, suffix]) => {
      const r = make(p, undefined, {}, false, `path + ${JSON.stringify(suffix)}`, "GET");
      r.path = buildPath(op.path, p.path) + suffix + queryString(p.query);
      return r;
    }),
    fc.tuple(parts, fc.constantFrom("upper", "title")).map(([p, casing]) => {
      const r = make(p, jsonOf(undefined), {}, false, `path in ${casing} case`, op.method === "GET" ? "GET" : op.method);
      const path = buildPath(op.path, p.path);
      r.path = (casing === "upper" ? path.toUpperCase() : path.replace(/\/([a-z])/g, (_, c: string) => `/${c.toUpperCase()}`)) + queryString(p.query);
      if (op.body) Object.assign(r, { body: "{}", headers: { ...JSON_TYPE } });
      return r;
    }),
    // Junk query parameters (unknown names are ignored: answered, not refused).
    fc
      .tuple(base, fc.array(fc.tuple(fc.string({ unit: "binary", maxLength: 20 }), BAD_PARAMS), { minLength: 1, maxLength: 5 }))
      .map(([[p, b], junk]) =>
        make(
          { ...p, query: [...p.query, ...junk.filter(([k]) => !op.parameters.some((q) => q.name === k))] },
          jsonOf(b),
          { ...bodyHeaders },
          false,
          "junk query parameters",
        ),
      ),
  );
  return fc.oneof(...mutations);
}

// ------------------------------------------------------------------ /mcp (JSON-RPC)

/** A tool as tools/list lists it. */
export type McpTool = { name: string; inputSchema: JsonSchema };

export const MCP_PATH = "/mcp";
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const PROTOCOL_VERSION = "2025-06-18";

/** Request ids: the odd-but-valid ones (JSON-RPC allows a string or an integer). */
const ODD_IDS: fc.Arbitrary<string | number> = fc.oneof(
  fc.integer(),
  fc.constantFrom<string | number>(0, -1, Number.MAX_SAFE_INTEGER, 2 ** 64, 1e300, "", "0", "x".repeat(2_000), "日本語🦄", "__proto__", "constructor"),
  fc.string({ maxLength: 20 }),
);
/** Ids JSON-RPC does not allow. */
const BAD_IDS: unknown[] = [1.5, -0.5, {}, [], true, 1e-300];

type Rpc = { value: unknown /** A request (has an id) whose answer must be an error. */; fails: boolean; what: string };

const rpcOf = (method: unknown, params: unknown, id: unknown): Record<string, unknown> => {
  const out: Record<string, unknown> = { jsonrpc: "2.0", method };
  if (params !== undefined) out.params = params;
  if (id !== undefined) out.id = id;
  return out;
};

function toolArgsArb(doc: OpenApiDocument, tool: McpTool, hints: FuzzHints): fc.Arbitrary<Record<string, unknown>> {
  return validValueArb(doc, { ...tool.inputSchema, type: "object" }, "arguments", hints).map((v) => (v ?? {}) as Record<string, unknown>);
}

/** JSON-RPC messages that are well formed: initialize, ping, tools/list, tools/call with schema-valid arguments, a notification. */
function goodRpcArb(doc: OpenApiDocument, tools: McpTool[], hints: FuzzHints): fc.Arbitrary<Rpc> {
  const call = fc.constantFrom(...tools).chain((tool) => toolArgsArb(doc, tool, hints).map((args) => ({ tool, args })));
  return fc.oneof(
    fc.tuple(ODD_IDS, fc.constantFrom(PROTOCOL_VERSION, "2025-03-26", "2024-11-05", "1999-01-01", "")).map(([id, version]) => ({
      value: rpcOf("initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "fuzz", version: "0" } }, id),
      fails: false,
      what: `initialize ${version}`,
    })),
    ODD_IDS.map((id) => ({ value: rpcOf("ping", undefined, id), fails: false, what: "ping" })),
    ODD_IDS.map((id) => ({ value: rpcOf("tools/list", {}, id), fails: false, what: "tools/list" })),
    {
      arbitrary: fc.tuple(ODD_IDS, call).map(([id, { tool, args }]) => ({
        value: rpcOf("tools/call", { name: tool.name, arguments: args }, id),
        fails: false,
        what: `tools/call ${tool.name} (valid arguments)`,
      })),
      weight: 4,
    },
    fc.constant({ value: rpcOf("notifications/initialized", undefined, undefined), fails: false, what: "a notification" }),
  );
}

/** JSON-RPC messages that certainly fail (`fails`), or are odd enough to fail or not. */
function badRpcArb(doc: OpenApiDocument, tools: McpTool[], hints: FuzzHints): fc.Arbitrary<Rpc> {
  const id = ODD_IDS;
  const named = (tool: McpTool) => Object.keys(resolve(doc, tool.inputSchema).properties ?? {});
  return fc.oneof(
    // Unknown methods, Object.prototype's names among them.
    fc
      .tuple(
        id,
        fc.constantFrom(
          "tools/cal",
          "resources/list",
          "prompts/get",
          "",
          "__proto__",
          "constructor",
          "toString",
          "hasOwnProperty",
          "tools/list/",
          "TOOLS/LIST",
          "x".repeat(5_000),
        ),
      )
      .map(([i, m]) => ({ value: rpcOf(m, {}, i), fails: true, what: `method ${JSON.stringify(m.slice(0, 40))}` })),
    // Unknown tools.
    fc
      .tuple(
        id,
        fc.constantFrom("nope", "", "__proto__", "constructor", "toString", ...tools.map((t) => t.name.toUpperCase()), ...tools.map((t) => `${t.name} `)),
      )
      .map(([i, name]) => ({ value: rpcOf("tools/call", { name, arguments: {} }, i), fails: true, what: `tools/call unknown ${JSON.stringify(name)}` })),
    // A real tool, one argument off its schema (or a deep one, or a prototype key).
    fc.tuple(id, fc.constantFrom(...tools), BAD_VALUES, fc.nat()).chain(([i, tool, bad, n]) =>
      toolArgsArb(doc, tool, hints).map((args) => {
        const fields = named(tool);
        const field = fields.length ? fields[n % fields.length]! : "extra";
        const schema = resolve(doc, tool.inputSchema);
        // null for an optional argument may be read as leaving it out (a query parameter's tool does): not certainly wrong.
        const optionalNull = bad === null && !(schema.required ?? []).includes(field);
        const fails = fields.length > 0 && !optionalNull && valueBreaks(doc, schema.properties?.[field], bad);
        return {
          value: rpcOf("tools/call", { name: tool.name, arguments: withKey(args, field, bad) }, i),
          fails,
          what: `tools/call ${tool.name} ${field} = ${shown(bad)}`,
        };
      }),
    ),
    // A real tool, a required argument missing.
    fc.tuple(id, fc.constantFrom(...tools.filter((t) => (resolve(doc, t.inputSchema).required ?? []).length > 0))).chain(([i, tool]) =>
      toolArgsArb(doc, tool, hints).map((args) => {
        const field = resolve(doc, tool.inputSchema).required![0]!;
        const { [field]: _gone, ...rest } = args;
        return {
          value: rpcOf("tools/call", { name: tool.name, arguments: withKey(rest, "__proto__", { [field]: args[field] }) }, i),
          fails: true,
          what: `tools/call ${tool.name} ${field} under __proto__`,
        };
      }),
    ),
    // Odd argument containers and params.
    fc.tuple(id, fc.constantFrom(...tools), fc.constantFrom<unknown>([], "x", 1, true, deepArray(3))).map(([i, tool, args]) => ({
      value: rpcOf("tools/call", { name: tool.name, arguments: args }, i),
      fails: true,
      what: `tools/call ${tool.name} arguments = ${shown(args)}`,
    })),
    fc
      .tuple(id, fc.constantFrom("tools/call", "tools/list", "initialize", "ping"), fc.constantFrom<unknown>([], "x", 1, null, [1, 2]))
      .map(([i, m, params]) => ({ value: rpcOf(m, params, i), fails: m === "tools/call" || m === "initialize", what: `${m} params = ${shown(params)}` })),
    // Deep params, as deep as 64 KiB allows.
    fc
      .tuple(
        id,
        fc.constantFrom("tools/call", "initialize", "ping"),
        fc.constantFrom("array", "object") as fc.Arbitrary<"array" | "object">,
        fc.double({ min: 0.002, max: 1, noNaN: true }),
      )
      .map(([i, m, type, share]) => {
        const deep = deepJson(type, Math.max(CERTAINLY_TOO_DEEP, Math.round(deepestWithin(type, 65_000).depth * share)));
        const params = m === "tools/call" ? { name: tools[0]!.name, arguments: { deep } } : { deep };
        return { value: rpcOf(m, params, i), fails: true, what: `${m} with ${shown(deep)}` };
      }),
    // Not JSON-RPC 2.0: the transport refuses the message.
    fc.tuple(id, fc.constantFrom<unknown>("1.0", "2", 2, null, undefined, "2.0 ")).map(([i, version]) => {
      const value = rpcOf("ping", undefined, i);
      if (version === undefined) delete value.jsonrpc;
      else value.jsonrpc = version;
      return { value, fails: true, what: `jsonrpc ${JSON.stringify(version)}` };
    }),
    fc.constantFrom<unknown>(...BAD_IDS).map((i) => ({ value: rpcOf("ping", undefined, i), fails: false, what: `id ${shown(i)}` })),
    fc.tuple(id, fc.constantFrom<unknown>(1, null, {}, ["ping"])).map(([i, m]) => ({ value: rpcOf(m, undefined, i), fails: true, what: `method ${shown(m)}` })),
  );
}

const mcpRequest = (
  body: string | undefined,
  headers: Record<string, string>,
  mustRefuse: boolean,
  what: string,
  kind: "invalid" | "valid",
  method = "POST",
  path = MCP_PATH,
): FuzzRequest => ({
  method,
  path,
  headers,
  body,
  kind,
  mustRefuse,
  what: `mcp: ${what}`,
});

/** A batch (or a single message) as a request: refused when every message in it fails. */
function batchRequest(messages: Rpc[], kind: "invalid" | "valid", style = 0): FuzzRequest {
  const single = messages.length === 1 && style !== 1;
  const value = single ? messages[0]!.value : messages.map((m) => m.value);
  return mcpRequest(
    jsonText(value),
    { ...MCP_HEADERS },
    messages.every((m) => m.fails),
    `${single ? "" : `batch of ${messages.length}: `}${messages.map((m) => m.what).join("; ")}`.slice(0, 300),
    kind,
  );
}

/** Valid /mcp requests: one well-formed message each (MCP 2025-06-18 has no batches). */
export function mcpValidRequestArb(doc: OpenApiDocument, tools: McpTool[], hints: FuzzHints): fc.Arbitrary<FuzzRequest> {
  return goodRpcArb(doc, tools, hints).map((m) => batchRequest([m], "valid"));
}

/** Invalid /mcp requests: bad messages and batches, and refusals at the HTTP level. */
export function mcpInvalidRequestArb(doc: OpenApiDocument, tools: McpTool[], hints: FuzzHints): fc.Arbitrary<FuzzRequest> {
  const bad = badRpcArb(doc, tools, hints);
  const good = goodRpcArb(doc, tools, hints);
  const ping = jsonText(rpcOf("ping", undefined, 1));
  return fc.oneof(
    { weight: 8, arbitrary: bad.map((m) => batchRequest([m], "invalid")) },
    // Batches (refused whole, or each message answered): good and bad messages mixed.
    { weight: 1, arbitrary: fc.array(fc.oneof(bad, good), { minLength: 1, maxLength: 6 }).map((ms) => batchRequest(ms, "invalid", 1)) },
    // Batches: empty (the SDK answers 202, as for notifications only), nested, over the SDK's 100.
    fc
      .constantFrom<[string, string]>(
        ["[]", "empty batch"],
        [`[[${ping}]]`, "nested batch"],
        [`[${Array(101).fill(ping).join(",")}]`, "101 pings"],
        [`[${Array(1_000).fill('{"jsonrpc":"2.0","method":"notifications/initialized"}').join(",")}]`, "1,000 notifications"],
      )
      .map(([text, what]) => mcpRequest(text, { ...MCP_HEADERS }, text !== "[]", what, "invalid")),
    // Not JSON, not JSON's type, not accepting JSON, unsupported protocol header, too large.
    fc
      .constantFrom('{"jsonrpc":"2.0",', "", "nul", "{'a':1}", '{"jsonrpc":"2.0","method":"ping","id":1}{"x":1}', '"ping"', "1", "null")
      .map((text) => mcpRequest(text, { ...MCP_HEADERS }, true, `body ${JSON.stringify(text.slice(0, 40))}`, "invalid")),
    fc.constant(mcpRequest(`\ufeff${ping}`, { ...MCP_HEADERS }, false, "a byte-order mark first", "invalid")),
    fc
      .constantFrom(...WRONG_TYPES)
      .map((type) =>
        mcpRequest(ping, { accept: MCP_HEADERS.accept, ...(type ? { "content-type": type } : {}) }, true, `content type ${JSON.stringify(type)}`, "invalid"),
      ),
    fc
      .constantFrom("application/json", "text/event-stream", "*/*", "", "text/html")
      .map((accept) =>
        mcpRequest(ping, { "content-type": "application/json", ...(accept ? { accept } : {}) }, true, `accept ${JSON.stringify(accept)}`, "invalid"),
      ),
    fc
      .constantFrom("1999-01-01", "", "latest", "2025-06-18 ", "x".repeat(500))
      .map((v) =>
        mcpRequest(
          ping,
          { ...MCP_HEADERS, "mcp-protocol-version": v },
          v !== "" && v !== "2025-06-18 ",
          `mcp-protocol-version ${JSON.stringify(v.slice(0, 20))}`,
          "invalid",
        ),
      ),
    fc
      .constantFrom("nope", "", "00000000-0000-0000-0000-000000000000")
      .map((v) => mcpRequest(ping, { ...MCP_HEADERS, "mcp-session-id": v }, false, `mcp-session-id ${JSON.stringify(v)}`, "invalid")),
    fc
      .boolean()
      .map((json) =>
        mcpRequest(
          json ? jsonText(rpcOf("ping", { pad: "x".repeat(1024 * 1024) }, 1)) : "x".repeat(1024 * 1024),
          { ...MCP_HEADERS },
          true,
          "a 1 MB body",
          "invalid",
        ),
      ),
    // Other methods and paths.
    fc
      .constantFrom("GET", "DELETE", "PUT", "PATCH", "OPTIONS")
      .map((method) =>
        mcpRequest(
          method === "GET" || method === "DELETE" || method === "OPTIONS" ? undefined : ping,
          { ...MCP_HEADERS },
          true,
          `method ${method}`,
          "invalid",
          method,
        ),
      ),
    fc
      .constantFrom("/mcp/", "/mcp/x", "/MCP", "//mcp", "/mcp?x=%00", "/mcp/..", "/mcp%2f")
      .map((path) => mcpRequest(ping, { ...MCP_HEADERS }, false, `path ${path}`, "invalid", "POST", path)),
  );
}

// ------------------------------------------------------------------ /sign/{id}

/** The sign page's known ids: one live (200) and one expired (410); any other id is unknown (404). */
export type SignIds = { live: string; expired: string };

const SIGN_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** Requests of the sign page: odd ids, path junk, other methods; `allowed` lists the statuses each may get. */
export function signRequestArb(ids: SignIds): fc.Arbitrary<FuzzRequest> {
  const page = (path: string, what: string, allowed: number[], method = "GET", body?: string, headers: Record<string, string> = {}): FuzzRequest => ({
    method,
    path,
    headers: { accept: "text/html", ...headers },
    body,
    kind: "invalid",
    mustRefuse: !allowed.some((s) => s < 300),
    allowed,
    what: `sign page: ${what}`,
  });
  const wellFormed = fc.string({ unit: fc.constantFrom(...SIGN_ID_CHARS), minLength: 22, maxLength: 64 });
  const known = fc.constantFrom<[string, number]>([ids.live, 200], [ids.expired, 410]);
  return fc.oneof(
    // Ids of the right shape nobody issued; near misses of real ones; the real ones in odd spellings.
    { weight: 3, arbitrary: wellFormed.map((id) => page(`/sign/${id}`, "unknown well-formed id", [404])) },
    fc.tuple(known, fc.constantFrom("upper", "lower", "cut", "longer", "space", "slash", "query", "dot")).map(([[id, status], how]) => {
      const odd: Record<string, [string, number[]]> = {
        upper: [id.toUpperCase(), id.toUpperCase() === id ? [status] : [404]],
        lower: [id.toLowerCase(), id.toLowerCase() === id ? [status] : [404]],
        cut: [id.slice(0, -1), [404]],
        longer: [`${id}A`, [404]],
        space: [`${id}%20`, [404]],
        slash: [`${id}/`, [404, status]],
        query: [`${id}?id=${id}&x=%00&x[]=1`, [status]],
        dot: [`${id}.json`, [404]],
      };
      const [path, allowed] = odd[how]!;
      return page(`/sign/${path}`, `known id, ${how}`, allowed);
    }),
    known.map(([id, status]) => page(`/sign/${id}`, `known id (${status})`, [status])),
    // Ids of the wrong shape.
    fc
      .oneof(
        fc.constantFrom(...BAD_STRINGS.filter((s) => s.length < 6_000)),
        fc.string({ unit: "binary", maxLength: 80 }),
        fc.string({ maxLength: 21 }),
        fc.string({ minLength: 65, maxLength: 300 }),
      )
      .map((id) => page(`/sign/${encode(id)}`, `id ${JSON.stringify(id.slice(0, 40))}`, [400, 404])),
    fc
      .constantFrom(
        "/sign",
        "/sign/",
        "/sign//",
        // ("/sign/%2e%2e" is "/" once parsed as a URL, as the server parses it: the root's answer, not the sign page's.)
        "/sign/..%2fhealth",
        "/sign/%00",
        "/SIGN/x",
        "/sign/x/y",
        "/sign/%2F",
        `/sign/${"a".repeat(6_000)}`,
      )
      .map((path) => page(path, `path ${path.slice(0, 40)}`, [400, 404])),
    // Other methods (no route: 404), a body on GET (never read: a GET's fetch Request has none), odd headers.
    fc.tuple(fc.constantFrom("POST", "PUT", "PATCH", "DELETE", "OPTIONS"), known).map(([method, [id]]) =>
      page(`/sign/${id}`, `method ${method}`, [404, 405], method, method === "DELETE" || method === "OPTIONS" ? undefined : "{}", {
        "content-type": "application/json",
      }),
    ),
    fc.tuple(known, fc.boolean()).map(([[id, status], large]) =>
      page(`/sign/${id}`, `GET with a ${large ? "1 MB" : "small"} body`, [status, 400], "GET", large ? "x".repeat(1024 * 1024) : "{}", {
        "content-type": "application/json",
      }),
    ),
    fc
      .tuple(known, fc.constantFrom("application/json", "*/*", "", "text/html;q=0, application/xml"))
      .map(([[id, status], accept]) => page(`/sign/${id}`, `accept ${JSON.stringify(accept)}`, [status], "GET", undefined, { accept })),
  );
}
