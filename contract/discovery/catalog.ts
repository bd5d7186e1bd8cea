// The route catalog as the discovery documents see it: the operations of an OpenAPI 3.1 document
// (method, path, summary, description, parameters, body fields, answers and their error codes),
// flattened for rendering. Pure: no I/O.
import type { ErrorCode } from "../../domain/errors.js";
import { errorAnswers } from "../error-statuses.js";

/** The parts of a JSON Schema the documents describe. */
export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  description?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  example?: unknown;
  format?: string;
  nullable?: boolean;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
};

export type OpenApiParameter = { name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema };
export type OpenApiResponse = { description?: string; content?: Record<string, { schema?: JsonSchema }> };
export type OpenApiOperation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, OpenApiResponse>;
};

/** The parts of an OpenAPI 3.1 document the discovery documents read. */
export type OpenApiDocument = {
  openapi?: string;
  info?: { title?: string; version?: string; description?: string };
  servers?: { url: string }[];
  paths?: Record<string, Record<string, OpenApiOperation | unknown>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

export type ErrorCatalog = Record<string, { status: number; message: string; when: string }>;

export type Field = { name: string; in: string; required: boolean; type: string; description: string };
export type Answer = { status: string; description: string; codes: string[] };

export type Operation = {
  method: string;
  path: string;
  /** The document's operationId (contract/openapi.ts), also the operation's MCP tool name; "" when it has none. */
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: Field[];
  body: { contentType: string; required: boolean; fields: Field[]; type: string } | null;
  answers: Answer[];
  /** Every catalog code the operation declares, in catalog order. */
  codes: string[];
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The schema a $ref points at (components/schemas only), or the schema itself. */
export function resolve(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema {
  let current = schema ?? {};
  for (let depth = 0; current.$ref && depth < 10; depth++) {
    const name = current.$ref.replace(/^#\/components\/schemas\//, "");
    current = doc.components?.schemas?.[name] ?? {};
  }
  return current;
}

const refName = (schema: JsonSchema | undefined) => schema?.$ref?.replace(/^#\/components\/schemas\//, "");

/** A short words-and-symbols type of a schema: "string matching ^0x[0-9a-fA-F]{40}$", "integer 1-500 (default 500)". */
export function describeType(doc: OpenApiDocument, schema: JsonSchema | undefined): string {
  const name = refName(schema);
  const s = resolve(doc, schema);
  if (name && (s.type === "object" || s.properties)) return name;
  const parts: string[] = [];
  const types = Array.isArray(s.type) ? s.type.filter((t) => t !== "null") : s.type ? [s.type] : [];
  const nullable = (Array.isArray(s.type) && s.type.includes("null")) || s.nullable === true;
  if (s.enum) parts.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  else if (s.const !== undefined) parts.push(JSON.stringify(s.const));
  else if (s.anyOf || s.oneOf) parts.push((s.anyOf ?? s.oneOf)!.map((x) => describeType(doc, x)).join(" or "));
  else if (types[0] === "array") parts.push(`array of ${describeType(doc, s.items)}`);
  else parts.push(types.join(" or ") || (s.properties ? "object" : "any"));
  const low = s.minimum ?? s.exclusiveMinimum;
  const high = s.maximum ?? s.exclusiveMaximum;
  if (low !== undefined && high !== undefined) parts.push(`${low}-${high}`);
  else if (low !== undefined) parts.push(`at least ${low}`);
  else if (high !== undefined) parts.push(`at most ${high}`);
  if (s.minLength !== undefined || s.maxLength !== undefined) parts.push(`${s.minLength ?? 0}-${s.maxLength ?? "∞"} characters`);
  if (s.minItems !== undefined || s.maxItems !== undefined) parts.push(`${s.minItems ?? 0}-${s.maxItems ?? "∞"} items`);
  if (s.pattern) parts.push(`matching ${s.pattern}`);
  if (s.format) parts.push(`(${s.format})`);
  // A query parameter with a default reads as nullable in the generated schema; it is simply optional.
  if (nullable && s.default === undefined) parts.push("or null");
  if (s.default !== undefined) parts.push(`(default ${JSON.stringify(s.default)})`);
  return parts.join(" ");
}

/** The catalog codes named (as `CODE`) in a text, in catalog order. */
export function codesIn(text: string | undefined, catalog: ErrorCatalog): string[] {
  if (!text) return [];
  const named = new Set([...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
  return Object.keys(catalog).filter((code) => named.has(code));
}

/** Every operation of the document, in path order, methods in a fixed order. */
export function operationsOf(doc: OpenApiDocument, catalog: ErrorCatalog = errorAnswers): Operation[] {
  const operations: Operation[] = [];
  for (const path of Object.keys(doc.paths ?? {}).sort()) {
    const item = doc.paths![path]!;
    for (const method of METHODS) {
      const op = item[method] as OpenApiOperation | undefined;
      if (!op) continue;
      const parameters: Field[] = (op.parameters ?? []).map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        type: describeType(doc, p.schema),
        description: p.description ?? resolve(doc, p.schema).description ?? "",
      }));
      let body: Operation["body"] = null;
      const content = op.requestBody?.content;
      if (content) {
        const [contentType, media] = Object.entries(content)[0] ?? ["application/json", {}];
        const schema = resolve(doc, media?.schema);
        const required = new Set(schema.required ?? []);
        body = {
          contentType,
          required: op.requestBody?.required === true,
          type: describeType(doc, media?.schema),
          fields: Object.entries(schema.properties ?? {}).map(([name, field]) => ({
            name,
            in: "body",
            required: required.has(name),
            type: describeType(doc, field),
            description: field.description ?? resolve(doc, field).description ?? "",
          })),
        };
      }
      const answers: Answer[] = Object.entries(op.responses ?? {}).map(([status, response]) => ({
        status,
        description: response.description ?? "",
        codes: codesIn(response.description, catalog),
      }));
      const declared = new Set(answers.flatMap((a) => a.codes));
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId ?? "",
        summary: op.summary ?? "",
        description: op.description ?? "",
        tags: op.tags ?? [],
        parameters,
        body,
        answers,
        codes: Object.keys(catalog).filter((code) => declared.has(code)),
      });
    }
  }
  return operations;
}

/** The codes of the catalog grouped by status, in catalog order. */
export function codesByStatusOf(catalog: ErrorCatalog): [number, string[]][] {
  const groups = new Map<number, string[]>();
  for (const [code, entry] of Object.entries(catalog)) groups.set(entry.status, [...(groups.get(entry.status) ?? []), code]);
  return [...groups].sort(([a], [b]) => a - b);
}

export type { ErrorCode };
