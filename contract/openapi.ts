// The last touches of the served OpenAPI document, made where the document is made (api/app.ts):
// - an `operationId` on every operation, made from its path by `operationIdOf` (./operation-id.ts, the
//   one home of the name: the MCP tools and the typed client take theirs from it too);
// - `security: []` on every operation that declares none (public: no credential needed; the report-card
//   routes declare the owner's session themselves);
// - an example on every JSON answer that has none: made from the answer's schema (the examples its fields
//   carry, their defaults, enums, bounds and patterns), an error answer's with the catalog's message of
//   the first code it lists;
// - `info.license`.
// Request bodies are not named components: their schemas carry `title` and stay inline in the operation
// (`.openapi({ title })`, not `.openapi("Name")`). A generator cannot tell a component read in an answer from
// one sent in a request, and openapi-typescript, with its default flags, types a component's field that has
// a `default` as always present (true of answers), which made slippageBps, repeat and days required in
// requests; inline under `requestBody`, a default leaves the field optional. test/contract/openapi-lint.test.ts
// generates the types and compiles a call of every operation.
// Pure: no I/O.
import { errorCatalog } from "../domain/errors.js";
import { errorAnswers } from "./error-statuses.js";
import { codesIn, type JsonSchema, type OpenApiDocument } from "./discovery/catalog.js";
import { operationIdOf } from "./operation-id.js";

/**
 * The license the document states. The repository is private and names no license, so none is granted:
 * `LicenseRef-Proprietary` is SPDX's form for terms that are not a listed license. Change it here when the
 * project chooses one.
 */
export const API_LICENSE = { name: "Proprietary: no license is granted", identifier: "LicenseRef-Proprietary" };

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

type MediaType = { schema?: JsonSchema; example?: unknown; examples?: unknown };
type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
};

/** `doc` (as the generator made it) with operationIds, security, answer examples and a license. */
export function completeDocument<D extends OpenApiDocument>(doc: D): D {
  const out = structuredClone(doc) as D & { info?: { license?: unknown } };
  out.info = { ...out.info, license: (out.info as { license?: unknown } | undefined)?.license ?? API_LICENSE };
  const used = new Set<string>();
  const operations: [string, string, Operation][] = [];
  for (const path of Object.keys(out.paths ?? {}).sort()) {
    for (const method of METHODS) {
      const op = out.paths![path]![method] as Operation | undefined;
      if (op) operations.push([method, path, op]);
    }
  }
  // Ids set by a route are kept (and reserved) first; the rest are made from the path.
  for (const [, , op] of operations) if (op.operationId) used.add(op.operationId);
  for (const [method, path, op] of operations) {
    if (!op.operationId) {
      let id = operationIdOf(method, path);
      if (used.has(id)) id = `${method}_${id}`;
      for (let n = 2; used.has(id); n++) id = `${operationIdOf(method, path)}_${n}`;
      op.operationId = id;
      used.add(id);
    }
    op.security ??= [];
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      for (const [type, media] of Object.entries(response.content ?? {})) {
        if (!/json/i.test(type) || media.example !== undefined || media.examples !== undefined || !media.schema) continue;
        const example = exampleOf(out, media.schema);
        media.example = /^2/.test(status) ? example : withCatalogError(example, codesIn(response.description, errorAnswers));
      }
    }
  }
  return out;
}

/** An error body's example: the first listed code, with the catalog's message. */
function withCatalogError(example: unknown, codes: string[]): unknown {
  const code = codes[0];
  if (!code || typeof example !== "object" || example === null || !("code" in example)) return example;
  const { details: _, ...rest } = example as Record<string, unknown>;
  return { ...rest, error: errorCatalog[code as keyof typeof errorCatalog].message, code };
}

const ISO_TIME = "2025-06-01T12:00:00.000Z";
const ADDRESS = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
/** Strings tried, in order, against a string schema's pattern and lengths. */
const CANDIDATES = [ADDRESS, "0xabcd", "125.5", "1000000", "7d", "my-agent", "example"];

type Schema = JsonSchema & {
  examples?: unknown[];
  prefixItems?: JsonSchema[];
  multipleOf?: number;
  minProperties?: number;
};

/** An example of `schema`: valid against it wherever the schema says enough (a pattern no candidate fits gives "example"). */
export function exampleOf(doc: OpenApiDocument, schema: JsonSchema | undefined, name = "", seen: ReadonlySet<string> = new Set()): unknown {
  let s = (schema ?? {}) as Schema;
  let refs = seen;
  if (s.$ref) {
    if (seen.has(s.$ref)) return undefined;
    refs = new Set([...seen, s.$ref]);
    const target = doc.components?.schemas?.[s.$ref.replace(/^#\/components\/schemas\//, "")];
    s = { ...(target as Schema), ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== "$ref")) };
  }
  if (s.example !== undefined) return s.example;
  if (s.examples?.length) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum.find((v) => v !== null) ?? s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (branches?.length) {
    const branch = branches.find((b) => b.type !== "null") ?? branches[0];
    return exampleOf(doc, branch, name, refs);
  }
  if (s.allOf?.length) {
    const parts = s.allOf.map((part) => exampleOf(doc, part, name, refs));
    return parts.every((p) => typeof p === "object" && p !== null && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const type = types.find((t) => t !== "null") ?? (s.properties ? "object" : s.items ? "array" : types[0]);
  switch (type) {
    case "object":
    case undefined: {
      if (!s.properties && type === undefined) return {};
      const value: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(s.properties ?? {})) {
        const example = exampleOf(doc, field, key, refs);
        if (example !== undefined) value[key] = example;
      }
      return value;
    }
    case "array": {
      if (s.prefixItems) return s.prefixItems.map((item) => exampleOf(doc, item, name, refs));
      const item = exampleOf(doc, s.items, name, refs);
      if (item === undefined || s.maxItems === 0) return [];
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => item);
    }
    case "string":
      return stringExample(s, name);
    case "integer":
    case "number":
      return numberExample(s, type === "integer");
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}

function stringExample(s: Schema, name: string): string {
  const fits = (value: string) =>
    (s.minLength === undefined || value.length >= s.minLength) &&
    (s.maxLength === undefined || value.length <= s.maxLength) &&
    (!s.pattern || new RegExp(s.pattern, "u").test(value));
  // A field's name says what a plain string holds; a hint that breaks the schema is not taken.
  const hints: [RegExp, string][] = [
    [/(At|Time|^asOf|^since|^now|^from|^to|^date|^expires)$/, ISO_TIME],
    [/(^owner|^address|^vault|^spender|^wallet|^to|Address)$/, ADDRESS],
    [/^symbol$/, "USDG"],
    [/^(data|calldata)$/, "0x095ea7b3"],
    [/^value$/, "0"],
    [/(Url|^url)$/, "https://agents.example.org/sign/1f0c6b2e"],
  ];
  const hinted = hints.filter(([pattern]) => pattern.test(name)).map(([, value]) => value);
  for (const value of [...hinted, ...(s.pattern ? CANDIDATES : [])]) if (fits(value)) return value;
  if (s.pattern) return "example";
  const base = "example";
  return base.padEnd(s.minLength ?? 0, "x").slice(0, s.maxLength ?? base.length);
}

function numberExample(s: Schema, integer: boolean): number {
  const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 0.5) : undefined);
  const high = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : 0.5) : undefined);
  let value = low !== undefined ? Math.max(low, Math.min(1, high ?? 1)) : Math.min(1, high ?? 1);
  if (integer) value = Math.ceil(value);
  if (s.multipleOf) value = Math.ceil(value / s.multipleOf) * s.multipleOf;
  return value;
}
