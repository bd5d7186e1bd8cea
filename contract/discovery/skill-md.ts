// skill.md: instructions for agents in Markdown (with the YAML front matter of an agent skill),
// generated from the OpenAPI document the app serves and the error catalog, behind a fixed
// preface. A pure function: the same document and catalog give the same text.
import { codesByStatusOf, operationsOf, type ErrorCatalog, type Field, type OpenApiDocument } from "./catalog.js";
import { MCP_CONFIG_NOTE, mcpConfigBlock, mcpLines, MCP_PATH } from "./links.js";
import { devnetFunding, PAYMENT_FLOW, RULES, SERVICE_NAME, SUMMARY, WORKFLOW, X402_CLIENT_EXAMPLE } from "./preface.js";
import { FILL_RULES } from "../../domain/backtest/fill-rules.js";

/** Markdown table cell: no pipes or line breaks. */
/** The answers an agent retries unchanged, and what each asks of it. */
const RETRYABLE = [
  [
    "RATE_LIMITED",
    "this client (or session) used its share of the window: wait the Retry-After seconds, then send again; sending sooner only extends the wait",
  ],
  [
    "BUSY",
    "the service's own capacity (its job queue, or the aggregator's route budget shared by quotes, plans and prepares) had no turn for the request: wait the Retry-After seconds (1 s) and send again, backing off if it repeats; nothing was run or stored",
  ],
  [
    "UNAVAILABLE",
    "a dependency (database, queue, chain RPC) or the index is not ready: wait the Retry-After seconds (without it: a few seconds), then send again; nothing was run or stored",
  ],
] as const;

const cell = (text: string) =>
  text
    .replace(/\|/g, "\\|")
    .replace(/\s*\n+\s*/g, " ")
    .trim();

function fieldLines(fields: Field[]): string[] {
  return fields.map((f) => `- \`${f.name}\` (${f.in}, ${f.required ? "required" : "optional"}, ${f.type})${f.description ? `: ${cell(f.description)}` : ""}`);
}

/** `faucetUrl`: the devnet's faucet, given only where the service runs on its devnet. */
export function renderSkillMd(doc: OpenApiDocument, catalog: ErrorCatalog, { faucetUrl }: { faucetUrl?: string } = {}): string {
  const title = doc.info?.title ?? "Agent interface";
  const base = (doc.servers?.[0]?.url ?? "").replace(/\/$/, "");
  const operations = operationsOf(doc, catalog);
  const out: string[] = [];

  out.push("---", `name: ${SERVICE_NAME}`, `description: ${JSON.stringify(SUMMARY)}`, "---", "");
  out.push(`# ${title}: skill for agents`, "");
  out.push(SUMMARY, "");
  if (base)
    out.push(
      `Base URL: ${base}. Every path below is relative to it. OpenAPI ${doc.openapi ?? "3.1"} description (version ${doc.info?.version ?? "1.0.0"}): ${base}/v1/agent/openapi.json.`,
      "",
    );

  out.push("## Rules", "");
  RULES.forEach((rule, i) => out.push(`${i + 1}. ${rule}`));
  out.push("");

  out.push("## How to work with it", "");
  WORKFLOW.forEach((step, i) => out.push(`${i + 1}. ${step}`));
  out.push("", "Only the routes listed under Endpoints are served by this deployment.", "");
  if (faucetUrl) {
    out.push("## Funding a wallet on the devnet", "");
    for (const text of devnetFunding(faucetUrl)) out.push(`- ${text}`);
    out.push("");
  }

  out.push(`## MCP server (\`${MCP_PATH}\`)`, "");
  for (const text of mcpLines(base)) out.push(`- ${text}`);
  out.push("", MCP_CONFIG_NOTE, "", ...mcpConfigBlock(base), "");

  // The backtest fill rules are in each backtest route's description; skill.md gives them once.
  const hasFillRules = operations.some((op) => op.description?.includes(FILL_RULES));
  if (hasFillRules) out.push("## Backtest fill rules", "", FILL_RULES, "");

  // Where a route answers 402, how to pay it (x402 v2), in five lines.
  if (operations.some((op) => op.answers.some((a) => a.status === "402"))) {
    out.push("## Paying for runs past 30 days (x402)", "");
    PAYMENT_FLOW.forEach((line, i) => out.push(`${i + 1}. ${line}`));
    out.push("", "With x402's own fetch client (USDG must be allowed in its spend controls, or it refuses to pay):", "", ...X402_CLIENT_EXAMPLE, "");
  }

  out.push("## Endpoints", "");
  out.push("| Method | Path | Summary |", "|---|---|---|");
  for (const op of operations) out.push(`| ${op.method} | \`${op.path}\` | ${cell(op.summary)} |`);
  out.push("");

  for (const op of operations) {
    out.push(`### ${op.method} ${op.path}`, "");
    if (op.summary) out.push(`**${op.summary}.**`, "");
    if (op.operationId) out.push(`operationId (and MCP tool): \`${op.operationId}\``, "");
    if (op.description) out.push(op.description.replace(FILL_RULES, "(Fill rules: see Backtest fill rules above.)").trim(), "");
    if (op.parameters.length) out.push("Parameters:", "", ...fieldLines(op.parameters), "");
    if (op.body) {
      out.push(`Body (${op.body.contentType}, ${op.body.required ? "required" : "optional"}): ${op.body.type}`, "");
      if (op.body.fields.length) out.push(...fieldLines(op.body.fields), "");
    }
    const answers = op.answers.map((a) => (a.codes.length ? `${a.status} ${a.codes.join(", ")}` : `${a.status} ${cell(a.description).split(". ")[0]}`));
    if (answers.length) out.push(`Answers: ${answers.join("; ")}.`, "");
  }

  out.push("## Errors", "", "Every error answers `{error, code, details?}`. The codes:", "");
  out.push("| Status | Code | Message | When |", "|---|---|---|---|");
  for (const [status, codes] of codesByStatusOf(catalog)) {
    for (const code of codes) out.push(`| ${status} | \`${code}\` | ${cell(catalog[code]!.message)} | ${cell(catalog[code]!.when)} |`);
  }
  out.push("");
  out.push(
    "Retryable answers, the same request unchanged:",
    "",
    ...RETRYABLE.map(([code, asks]) => `- \`${code}\` (${catalog[code]?.status ?? "?"}): ${asks}`),
    "",
    "Do not retry 400, 404 or 422 unchanged: fix the request (the `error` text and `details.field` name the problem).",
    "",
  );
  return out.join("\n");
}
