// A TypeScript file that calls every operation of an OpenAPI document with openapi-fetch, as an integrator
// would write it: each call with the least a request may carry (the required path, query and header
// parameters, and a body with only its required fields, examples at the leaves). Beside each call that has
// a required input, the same call without it, under `@ts-expect-error`: the generated types must refuse it.
// So a strict type check of the file fails both when an optional field is typed as required (a default
// made it so) and when a required one is typed as optional.
import { exampleOf } from "../../contract/openapi.js";
import { type JsonSchema, type OpenApiDocument, type OpenApiOperation, resolve } from "../../contract/discovery/catalog.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** A minimal value of `schema`: only the required fields of objects, the first branch of a union that is not null. */
export function minimalOf(doc: OpenApiDocument, schema: JsonSchema | undefined, name = "", depth = 0): unknown {
  const s = resolve(doc, schema);
  if (depth > 20) throw new Error(`a schema nests too deep at ${name}`);
  if (s.allOf?.length) {
    const parts = s.allOf.map((part) => minimalOf(doc, part, name, depth + 1));
    return parts.every((p) => p !== null && typeof p === "object" && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const branches = s.anyOf ?? s.oneOf;
  if (branches?.length) return minimalOf(doc, branches.find((b) => resolve(doc, b).type !== "null") ?? branches[0], name, depth + 1);
  if (s.properties) {
    const out: Record<string, unknown> = {};
    for (const key of s.required ?? []) out[key] = minimalOf(doc, s.properties[key], key, depth + 1);
    return out;
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("array") && s.items) {
    const item = minimalOf(doc, s.items, name, depth + 1);
    return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => item);
  }
  return exampleOf(doc, s, name);
}

export type OperationInput = {
  method: string;
  path: string;
  operationId: string;
  /** The init argument of the openapi-fetch call, or undefined when the call needs none. */
  init?: { params?: Record<string, Record<string, unknown>>; body?: unknown };
  /** The same init less one required input, and what it lacks (undefined when nothing is required). */
  lacking?: { init: Record<string, unknown>; what: string };
};

/** Every operation's minimal input, and one without a required part. */
export function operationInputs(doc: OpenApiDocument): OperationInput[] {
  const out: OperationInput[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, OpenApiOperation | undefined>)[method];
      if (!op) continue;
      const params: Record<string, Record<string, unknown>> = {};
      for (const p of op.parameters ?? []) {
        if (!p.required) continue;
        params[p.in] ??= {};
        params[p.in]![p.name] = minimalOf(doc, p.schema, p.name);
      }
      const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
      const init: NonNullable<OperationInput["init"]> = {};
      if (Object.keys(params).length) init.params = params;
      if (op.requestBody?.required) init.body = minimalOf(doc, bodySchema);
      const entry: OperationInput = { method, path, operationId: op.operationId ?? `${method} ${path}` };
      if (Object.keys(init).length) entry.init = init;
      const requiredField = resolve(doc, bodySchema).required?.[0];
      if (init.body && requiredField) {
        const { [requiredField]: _, ...body } = init.body as Record<string, unknown>;
        entry.lacking = { init: { ...init, body }, what: `body.${requiredField}` };
      } else if (init.params) {
        const [where, values] = Object.entries(init.params)[0]!;
        const [first, ...rest] = Object.keys(values);
        const less = { ...init.params, [where]: Object.fromEntries(rest.map((k) => [k, values[k]])) };
        entry.lacking = { init: { ...init, params: less }, what: `${where}.${first}` };
      }
      out.push(entry);
    }
  }
  return out;
}

/** The source of a module that calls every operation (see the head of this file); `types` is the generated module's specifier. */
export function callsSource(inputs: OperationInput[], types: string): string {
  const lines = [
    `import createClient from "openapi-fetch";`,
    `import type { paths } from "${types}";`,
    "",
    `const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" });`,
    "",
    "export async function callEveryOperation(): Promise<number> {",
    "  let answered = 0;",
  ];
  for (const input of inputs) {
    const call = `client.${input.method.toUpperCase()}(${JSON.stringify(input.path)}${input.init ? `, ${JSON.stringify(input.init)}` : ""})`;
    lines.push(`  // ${input.operationId}`, `  if ((await ${call}).response.ok) answered++;`);
    if (input.lacking) {
      lines.push(
        `  // @ts-expect-error ${input.lacking.what} is required`,
        `  await client.${input.method.toUpperCase()}(${JSON.stringify(input.path)}, ${JSON.stringify(input.lacking.init)});`,
      );
    }
  }
  lines.push("  return answered;", "}", "");
  return lines.join("\n");
}
