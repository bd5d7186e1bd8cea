// The discovery documents under /v1/agent (skill.md, llms.txt, the reference page), declared (served by
// api/routes/discovery.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../fields.js";

const text = (description: string, type: string) => ({ description, content: { [type]: { schema: z.string() } } });

export const getSkill = createRoute({
  method: "get",
  path: "/skill.md",
  tags: ["Discovery"],
  summary: "Markdown instructions for agents",
  description:
    "What the service does and its rules, how to work with it, every route of the OpenAPI description with its parameters and error codes, and the error catalog. Generated from the OpenAPI description and the error catalog at request time.",
  responses: { 200: text("The skill document (text/markdown)", "text/markdown"), ...errorResponses() },
});

export const getLlms = createRoute({
  method: "get",
  path: "/llms.txt",
  tags: ["Discovery"],
  summary: "Plain-text guide",
  description: "The same guide as skill.md in the llms.txt layout: summary, rules, links, one line per route, the error codes. Generated at request time.",
  responses: { 200: text("The guide (text/plain)", "text/plain"), ...errorResponses() },
});

export const getReference = createRoute({
  method: "get",
  path: "/reference",
  tags: ["Discovery"],
  summary: "Interactive API reference",
  description:
    "An HTML page (Swagger UI, served by this API with its script and stylesheet, no external assets) that renders the OpenAPI description: every route, its parameters and answer shapes, and a form to try it from the browser.",
  responses: { 200: text("The reference page (text/html)", "text/html"), ...errorResponses() },
});
