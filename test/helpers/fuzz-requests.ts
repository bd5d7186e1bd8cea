// Requests for fuzzing every route, generated with fast-check from the served OpenAPI document (so a
// route added tomorrow is fuzzed tomorrow): for each operation, invalid requests (values off their
// schema, wrong types, missing fields, malformed JSON, wrong content types, 1 MB bodies, deep
// nesting, duplicated keys...) and valid-but-odd ones (schema-valid values at their edges: odd
// casing, negative zero, huge amounts, unicode, duplicated keys and parameters, extra fields).
//
// `mustRefuse` marks the requests that are certainly invalid whatever the route does with them (the
// fuzz then also demands a 4xx); the others only have to be answered well.
import fc from "fast-check";
import { getAddress } from "viem";
import { resolve, type JsonSchema, type OpenApiDocument, type OpenApiOperation, type OpenApiParameter } from "../../api/discovery/catalog.js";

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
};

export type FuzzOperation = { method: string; path: string; parameters: OpenApiParameter[]; body?: JsonSchema; bodyRequired: boolean };

/** Values of the running system that make valid requests reach past the first lookup. */
export type FuzzHints = { addresses: string[]; symbols: string[] };

const ADDRESS_PATTERN = "^0x[0-9a-fA-F]{40}$";
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
  const t = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
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
  "0", "00", "0.0", "000001", "1.000000000000000000000001", "0.000000000000000001",
  "115792089237316195423570985008687907853269984665640564039457584007913129639935",
  "1".padEnd(80, "0"), "9".repeat(79), "a", "A", "z9", "a.b_c-d", "x".repeat(39),
  "weth", "WETH", "Weth", "usdg", "ETH", "eth", "é", "ñandú", "日本語", "🦄", "Ｗ", "\u200b", "ß", "İ",
  "2025-01-01T00:00:00.000Z", "true", "null",
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
    options.push(
      fc.stringMatching(pattern).filter((v) => fits(v)),
    );
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
      case "object":
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
  return fc.tuple(base, fc.option(fc.dictionary(fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).filter((k) => !(k in props) && k !== "__proto__"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), { freq: 3 })).map(([o, extra]) => ({ ...(extra ?? {}), ...o }));
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
  "", " ", "\t\n", "\u0000", "\u202e", "\ud800", "null", "undefined", "[object Object]", "NaN", "Infinity", "-Infinity",
  "-0", "-1", "1e309", "1e-400", "0x10", "1_000", "1,5", "1.", ".5", "+1", "１２３", "٣", "9".repeat(400),
  "x".repeat(10_000), "💥".repeat(500), "../../etc/passwd", "' OR 1=1 --", "\"; drop table x; --", "%00", "%2e%2e%2f",
  "<script>alert(1)</script>", "${jndi:ldap://x}", "{{7*7}}", "__proto__", "constructor",
];

const BAD_NUMBERS: number[] = [-1, -0, 0, 0.5, 1.5, -1e308, 1e308, 2 ** 53 + 2, 2 ** 64, 5e-324, -2147483649, 4294967296];

function deepArray(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
function deepObject(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const BAD_VALUES: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...BAD_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(...BAD_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [1, 2], { owner: `0x${HEX40}` }, [`0x${HEX40}`]) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 2000 }).map((d) => deepArray(d)) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 2000 }).map((d) => deepObject(d)) },
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

/** A query or path value as text: negative zero stays "-0". */
function asText(value: unknown): string {
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  return typeof value === "string" ? value : JSON.stringify(value) ?? "";
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
const WRONG_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/json5", "text/json", "application/jsonx", "", "*/*", "application/octet-stream"];

/** Percent-encodes the UTF-8 bytes of `value` (lone surrogates become U+FFFD, as a client sends them). */
function encode(value: string): string {
  return [...Buffer.from(value, "utf8")].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`)).join("");
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
        fc.tuple(base, fc.constantFrom(...required)).map(([[p, b], param]) =>
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
          const text = duplicated ? `{${JSON.stringify(field)}:${JSON.stringify((b as Record<string, unknown>)?.[field] ?? "x")},${JSON.stringify(object).slice(1)}` : JSON.stringify(object);
          return make(p, text, { ...JSON_TYPE }, refused, `body ${field} = ${JSON.stringify(bad).slice(0, 60)}${duplicated ? " (duplicated key)" : ""}`);
        }),
      );
      const required = props.filter((k) => (schema.required ?? []).includes(k));
      if (required.length) {
        mutations.push(
          fc.tuple(base, fc.constantFrom(...required)).map(([[p, b], field]) => {
            const { [field]: _gone, ...rest } = (b as Record<string, unknown>) ?? {};
            return make(p, JSON.stringify(rest), { ...JSON_TYPE }, true, `body ${field} missing`);
          }),
        );
      }
    }
    // The body as a whole: not an object, not JSON, not JSON's content type, too large, too deep.
    mutations.push(
      fc.tuple(parts, fc.constantFrom<unknown>(null, [], [{}], "owner", 1, -0, true, deepArray(3))).map(([p, v]) => make(p, JSON.stringify(v), { ...JSON_TYPE }, op.bodyRequired || v !== null, `body = ${JSON.stringify(v)}`)),
      fc.tuple(base, fc.constantFrom('{"owner": ', '{"a":1,}', "{'a':1}", "{a:1}", '{"a":NaN}', '{"a":1} // c', "\ufeff{}", '{"a":"\\x"}', '{"a":"\u0000"', "", "[", "nul", '{"a":1}{"b":2}')).map(([[p], text]) =>
        make(p, text, { ...JSON_TYPE }, op.bodyRequired || text !== "", `malformed JSON ${JSON.stringify(text)}`),
      ),
      fc.tuple(base, fc.constantFrom(...WRONG_TYPES)).map(([[p, b], type]) =>
        make(p, JSON.stringify(b ?? {}), type ? { "content-type": type } : {}, op.bodyRequired, `content type ${JSON.stringify(type)}`),
      ),
      fc.tuple(parts, fc.integer({ min: 1, max: 3 })).map(([p, depth]) => {
        const text = depth === 1 ? "[".repeat(20_000) + "]".repeat(20_000) : depth === 2 ? '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000) : "[".repeat(60_000);
        return make(p, text, { ...JSON_TYPE }, true, `deep nesting (${text.length} bytes)`);
      }),
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
      fc.tuple(parts, fc.constantFrom(...WRONG_TYPES, "application/json")).map(([p, type]) =>
        make(p, op.method === "GET" ? undefined : '{"a":1}', type ? { "content-type": type } : {}, false, `content type ${JSON.stringify(type)} on a bodiless route`),
      ),
      fc.tuple(parts, fc.constantFrom("POST", "PUT", "PATCH", "DELETE")).map(([p, method]) =>
        make(p, method === "DELETE" ? undefined : '{"owner":"0x"}', { ...JSON_TYPE }, method !== op.method, `method ${method}`, method),
      ),
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
    fc.tuple(base, fc.array(fc.tuple(fc.string({ unit: "binary", maxLength: 20 }), BAD_PARAMS), { minLength: 1, maxLength: 5 })).map(([[p, b], junk]) =>
      make({ ...p, query: [...p.query, ...junk.filter(([k]) => !op.parameters.some((q) => q.name === k))] }, jsonOf(b), { ...bodyHeaders }, false, "junk query parameters"),
    ),
  );
  return fc.oneof(...mutations);
}
