// Validates answers against the served OpenAPI document (GET /v1/agent/openapi.json): the 200 schema
// of the route is compiled with ajv's JSON Schema 2020-12 validator (OpenAPI 3.1 schemas are JSON
// Schema 2020-12; ajv is already installed, via @apidevtools/swagger-parser). `$ref`s point into the
// document's components, so each schema is compiled with those components beside it.
//
// Strict by default: every object schema that lists its properties also refuses others, so a field an
// answer carries but the document does not describe fails validation too (see closeObjects; a
// component used as an `allOf` member stays open everywhere, its compositions are closed instead).
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

type Json = Record<string, unknown>;
export type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, Json>>; components?: Json };

/** Fetches the OpenAPI document from an app (anything with Hono's `request`). */
export async function fetchOpenApi(app: { request(path: string): Response | Promise<Response> }): Promise<OpenApiDocument> {
  const res = await app.request("/v1/agent/openapi.json");
  if (res.status !== 200) throw new Error(`openapi.json answered ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}

/** Names of the components that some `allOf` lists directly (`{allOf: [{$ref: ".../X"}, ...]}`). */
function allOfMembers(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => allOfMembers(n, found));
  else if (node && typeof node === "object") {
    const o = node as Json;
    if (Array.isArray(o.allOf)) for (const m of o.allOf as Json[]) if (typeof m?.$ref === "string") found.add(m.$ref.split("/").pop()!);
    Object.values(o).forEach((v) => allOfMembers(v, found));
  }
  return found;
}

/**
 * A deep copy in which every object schema that lists its properties refuses any other: with
 * `additionalProperties: false`, or `unevaluatedProperties: false` where it is composed with `allOf`
 * (whose members, evaluated on their own, stay open, so the composition is judged as a whole).
 */
function closeObjects(schema: unknown, open = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closeObjects(s, open));
  if (schema === null || typeof schema !== "object") return schema;
  const o = schema as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "example" || k === "examples") out[k] = v;
    else if (k === "allOf" && Array.isArray(v)) out[k] = v.map((m) => closeObjects(m, true));
    else out[k] = closeObjects(v);
  }
  if (open || "additionalProperties" in o || "unevaluatedProperties" in o) return out;
  if (o.allOf) out.unevaluatedProperties = false;
  else if (o.properties && !o.anyOf && !o.oneOf) out.additionalProperties = false;
  return out;
}

/** The document's components, closed (see closeObjects) except those used as `allOf` members. */
function closeComponents(doc: OpenApiDocument): Json {
  const members = allOfMembers(doc);
  const schemas = ((doc.components ?? {}) as { schemas?: Record<string, unknown> }).schemas ?? {};
  const closed = Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, closeObjects(s, members.has(name))]));
  return { ...(doc.components ?? {}), schemas: closed };
}

/** The path template of `doc` that `path` matches, e.g. /v1/agent/vaults/0xab… → /v1/agent/vaults/{vault}. */
export function matchPathTemplate(doc: OpenApiDocument, path: string): string | undefined {
  const parts = path.split("?")[0]!.split("/");
  const params = (t: string) => t.split("/").filter((p) => p.startsWith("{")).length;
  return Object.keys(doc.paths)
    .filter((t) => {
      const tparts = t.split("/");
      return tparts.length === parts.length && tparts.every((p, i) => (p.startsWith("{") ? parts[i] !== "" : p === parts[i]));
    })
    .sort((a, b) => params(a) - params(b))[0]; // the most literal template wins
}

export type ResponseValidator = {
  /** Errors of `body` against the `status` answer of `method path` (a concrete path), or [] when valid. */
  errors(method: string, path: string, status: number, body: unknown): string[];
};

export function responseValidator(doc: OpenApiDocument, { strict = true } = {}): ResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const components = strict ? closeComponents(doc) : (doc.components ?? {});
  const compiled = new Map<string, ValidateFunction>();

  const compile = (method: string, template: string, status: number): ValidateFunction => {
    const key = `${method} ${template} ${status}`;
    let validate = compiled.get(key);
    if (validate) return validate;
    const operation = doc.paths[template]?.[method.toLowerCase()] as { responses?: Record<string, Json> } | undefined;
    if (!operation) throw new Error(`the document has no ${method.toUpperCase()} ${template}`);
    const response = operation.responses?.[String(status)] as { content?: Record<string, { schema?: Json }> } | undefined;
    const schema = response?.content?.["application/json"]?.schema;
    if (!schema) throw new Error(`the document has no ${status} JSON answer for ${method.toUpperCase()} ${template}`);
    validate = ajv.compile({ ...(strict ? (closeObjects(schema) as Json) : schema), components });
    compiled.set(key, validate);
    return validate;
  };

  return {
    errors(method, path, status, body) {
      const template = matchPathTemplate(doc, path);
      if (!template) return [`the document has no path matching ${path}`];
      const validate = compile(method, template, status);
      if (validate(body)) return [];
      return (validate.errors ?? []).slice(0, 20).map((e: ErrorObject) => {
        const extra = (e.params as { additionalProperty?: string; unevaluatedProperty?: string }) ?? {};
        const name = extra.additionalProperty ?? extra.unevaluatedProperty;
        return `${e.instancePath || "/"} ${e.message ?? "is invalid"}${name ? `: ${name}` : ""}`;
      });
    },
  };
}
