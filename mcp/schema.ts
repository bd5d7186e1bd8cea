// The JSON Schema of a tool as tools/list gives it: what the SDK makes of the route's zod schemas, in
// the spelling every client reads alike (the MCP Inspector's portability rules), and small enough that
// the whole list stays under 64 KB:
// - a nullable field's `type: ["number", "null"]` becomes `anyOf` branches of one type each, and an
//   open object's `additionalProperties: {}` (the empty schema) becomes `true`: the same values validate;
// - no `$schema` (draft-07 keywords only, which the MCP default dialect reads the same);
// - an answer's schema is its outline: `{data}` and the types of data's fields (of each item's, for a
//   list), without words or `additionalProperties: false` (an answer's objects may gain fields). The
//   whole shape is the route's answer in the OpenAPI document (the same contract/ schema); the SDK's
//   server still checks every answer against it.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = { [key: string]: Json };

const isNode = (value: Json | undefined): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Keywords whose value is a map of names to schemas (the names are no keywords). */
const MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const WORDS = new Set(["description", "examples", "example", "title", "default"]);
/** What an answer's schema keeps below the outline's depth: the types. */
const OUTLINE = new Set(["type", "const", "enum", "anyOf", "oneOf"]);
/** The answer's levels given in full: the answer (0), `data` (1), data's fields, or a list's items (2). */
const ANSWER_DEPTH = 2;

/** `schema` made portable; `answer`: an output schema (its outline). */
export const portableSchema = <T extends object>(schema: T, answer: boolean): T => portable(schema as Json, answer, 0) as T;

function portable(schema: Json, answer: boolean, depth: number): Json {
  if (Array.isArray(schema)) return schema.map((item) => portable(item, answer, depth));
  if (!isNode(schema)) return schema;
  const out: Node = {};
  const outline = answer && depth >= ANSWER_DEPTH;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema" || (answer && WORDS.has(key)) || (outline && !OUTLINE.has(key))) continue;
    if (MAPS.has(key) && isNode(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, portable(sub, answer, depth + 1)]));
    } else if (key === "type" && Array.isArray(value)) {
      if (schema.anyOf !== undefined) throw new Error(`a type union beside anyOf: ${JSON.stringify(schema).slice(0, 200)}`);
      out.anyOf = value.map((type) => ({ type }));
    } else if (key === "additionalProperties" && isNode(value) && Object.keys(value).length === 0) {
      out[key] = true;
    } else if (key === "additionalProperties" && value === false && answer) {
    } else if (key === "items" || key === "additionalProperties") {
      out[key] = portable(value, answer, depth + (Array.isArray(value) ? 0 : 1));
    } else {
      out[key] = portable(value, answer, depth);
    }
  }
  return out;
}
