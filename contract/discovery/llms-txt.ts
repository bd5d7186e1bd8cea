// llms.txt: a plain-text guide in the llms.txt layout (a title, a one-paragraph summary, notes,
// then sections of links and one-line entries), generated from the OpenAPI document the app
// serves and the error catalog, behind a fixed preface. A pure function.
import { codesByStatusOf, operationsOf, type ErrorCatalog, type OpenApiDocument } from "./catalog.js";
import { LLMS_PATH, MCP_CONFIG_NOTE, mcpConfigBlock, mcpLines, OPENAPI_PATH, REFERENCE_PATH, ROOT_LLMS_PATH, SKILL_PATH } from "./links.js";
import { devnetFunding, PAYMENT_FLOW, RULES, SUMMARY, USDG_SPEND_CONTROL, WORKFLOW } from "./preface.js";

const line = (text: string) => text.replace(/\s*\n+\s*/g, " ").trim();

/** The first sentence of a text (descriptions can run long; llms.txt keeps one line per entry). */
function firstSentence(text: string): string {
  const flat = line(text.replace(/\*\*/g, ""));
  const end = flat.search(/\.(\s|$)/);
  return end === -1 ? flat : flat.slice(0, end + 1);
}

/** `faucetUrl`: the devnet's faucet, given only where the service runs on its devnet. */
export function renderLlmsTxt(doc: OpenApiDocument, catalog: ErrorCatalog, { faucetUrl }: { faucetUrl?: string } = {}): string {
  const title = doc.info?.title ?? "Agent interface";
  const base = (doc.servers?.[0]?.url ?? "").replace(/\/$/, "");
  const operations = operationsOf(doc, catalog);
  const out: string[] = [];

  out.push(`# ${title}`, "", `> ${SUMMARY}`, "");
  for (const rule of RULES) out.push(`- ${rule}`);
  out.push("");
  out.push("How to work with it:");
  WORKFLOW.forEach((step, i) => out.push(`${i + 1}. ${step}`));
  out.push("");
  if (faucetUrl) {
    out.push("Funding a wallet on the devnet:");
    for (const text of devnetFunding(faucetUrl)) out.push(`- ${text}`);
    out.push("");
  }

  out.push("## Docs", "");
  out.push(`- [OpenAPI 3.1 description](${base}${OPENAPI_PATH}): every request and answer shape; each operation's operationId is its MCP tool's name`);
  out.push(`- [Skill for agents](${base}${SKILL_PATH}): the same guide in Markdown, with every route in full`);
  out.push(`- [API reference](${base}${REFERENCE_PATH}): an interactive page that renders the OpenAPI description`);
  out.push(`- [llms.txt](${base}${ROOT_LLMS_PATH}): this guide (also at ${base}${LLMS_PATH})`);
  out.push(`- [MCP server](${base}/mcp): the same routes as MCP tools (below)`);
  out.push("");

  out.push("## MCP", "");
  for (const text of mcpLines(base)) out.push(`- ${text}`);
  out.push("", MCP_CONFIG_NOTE, "", ...mcpConfigBlock(base), "");

  if (operations.some((op) => op.answers.some((a) => a.status === "402"))) {
    out.push("## Paying for runs past 30 days (x402)", "");
    PAYMENT_FLOW.forEach((step, i) => out.push(`${i + 1}. ${step}`));
    out.push(
      "",
      `A stock x402 client (@x402/fetch) pays USDG only when allowed: ${USDG_SPEND_CONTROL} (USDG: contracts.usdg of ${base}/v1/agent/policies/privy).`,
      "",
    );
  }

  out.push("## Endpoints", "");
  for (const op of operations) {
    const params = [...op.parameters, ...(op.body?.fields ?? [])].map((f) => `${f.name}${f.required ? "" : "?"} (${f.in}: ${f.type})`);
    const codes = op.codes.length ? ` Errors: ${op.codes.join(", ")}.` : "";
    const summary = op.summary ? `${op.summary}.` : "";
    const detail = op.description ? ` ${firstSentence(op.description)}` : "";
    const id = op.operationId ? ` operationId: ${op.operationId}.` : "";
    out.push(`- ${op.method} ${op.path}: ${summary}${detail}${params.length ? ` Parameters: ${params.join("; ")}.` : ""}${codes}${id}`);
  }
  out.push("");

  out.push("## Errors", "", "Every error answers {error, code, details?}.", "");
  for (const [status, codes] of codesByStatusOf(catalog)) {
    for (const code of codes) out.push(`- ${code} (${status}): ${line(catalog[code]!.message)}. When: ${line(catalog[code]!.when)}.`);
  }
  out.push("");
  return out.join("\n");
}
