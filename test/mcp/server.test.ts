// The MCP server over /mcp with the SDK's own client, the app run in process (its fetch), on real
// Postgres and Redis but no chain: the tools are the document's JSON routes with the routes' zod
// schemas and the catalog's descriptions, and a call answers exactly what the route answers.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, testApp, useApiFixture } from "../api/support.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createChallenge, exchangeChallenge } from "../../usecases/sessions.js";
import { toolName } from "../../mcp/tools.js";

const api = useApiFixture();
/** A tool error's body: its text content, the route's {error, code, details?}. */
const errorOf = (answer: object) => JSON.parse((answer as { content: { text: string }[] }).content[0]!.text) as { code: string };
let t: ReturnType<typeof testApp>;
let client: Client;

beforeAll(async () => {
  t = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl` } });
  client = new Client({ name: "test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("http://agent.test/mcp"), { fetch: async (url, init) => t.app.request(String(url), init) });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

describe("MCP over /mcp", () => {
  it("names tools after their paths", () => {
    expect(toolName("GET", "/v1/agent/vaults/{vault}/prices")).toBe("vaults_prices");
    expect(toolName("GET", "/v1/agent/vaults/{vault}")).toBe("vaults_vault");
    expect(toolName("POST", "/v1/agent/prepare/vault-deposit")).toBe("prepare_vault_deposit");
    expect(toolName("GET", "/v1/tokens")).toBe("tokens");
  });

  it("lists one tool per JSON route of the served document, every prepare kind among them, with the routes' schemas and catalog descriptions", async () => {
    const doc = await json(await t.app.request("/v1/agent/openapi.json"));
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const kind of prepareKinds) expect(names).toContain(`prepare_${kind.replace(/-/g, "_")}`);
    for (const name of ["products", "vaults", "vaults_vault", "accounts_owner", "accounts_activity", "sign_requests_id"]) expect(names).toContain(name);
    expect(names).not.toContain("skill.md");
    // Every JSON GET/POST route under /v1 is a tool.
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      ["get", "post"].filter((m) => item[m] && !/(openapi\.json|skill\.md|llms\.txt|reference)$/.test(path)).map((m) => `${m} ${path}`),
    );
    expect(tools.length).toBe(routes.length);

    const deposit = tools.find((tool) => tool.name === "prepare_vault_deposit")!;
    expect(deposit.inputSchema.required).toEqual(expect.arrayContaining(["owner", "vault", "amount"]));
    expect((deposit.inputSchema.properties as Record<string, { pattern?: string; description?: string }>).owner).toMatchObject({
      pattern: "^0x[0-9a-fA-F]{40}$",
      description: expect.stringMatching(/signing wallet/),
    });
    expect(deposit.description).toMatch(/nothing is signed or sent/);
    expect(deposit.description).toMatch(/^Free \(a rate-limit point\)\.$/m);
    expect(deposit.description).toMatch(/^Docs: http:\/\/agent\.test\/v1\/agent\/skill\.md$/m);
    // Every tool has the route's answer as its output schema, {data}.
    for (const tool of tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: "object", properties: { data: {} }, required: ["data"] });
    const activity = tools.find((tool) => tool.name === "accounts_activity")!;
    expect((activity.inputSchema.properties as Record<string, { maximum?: number }>).waitMs).toMatchObject({ maximum: 30000 });
    expect(activity.annotations?.readOnlyHint).toBe(true);
  });

  it("a call answers what the route answers: validation errors, catalog errors, data", async () => {
    const bad = await client.callTool({ name: "accounts_owner", arguments: { owner: "nope" } });
    // The SDK validates against the route's schema before the route does.
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/owner/);

    const missing = await client.callTool({ name: "sign_requests_id", arguments: { id: "no-such-request" } });
    const http = await t.app.request("/v1/agent/sign-requests/no-such-request");
    // A tool error: the route's error body as the text, no structured content (it is no {data}).
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    expect(errorOf(missing)).toEqual(await http.json());
    expect(errorOf(missing).code).toBe("NOT_FOUND");
  });

  it("arguments the tool does not take are a tool error {error, code: INVALID_REQUEST, details}, as the instructions say; an unknown tool is JSON-RPC -32602", async () => {
    const owner = "0x000000000000000000000000000000000000dEaD";
    const instructions = client.getInstructions();
    expect(instructions).toContain("otherwise a tool error (isError) whose text is {error, code, details?}");
    // A type the tool does not advertise, a number given as a string among them.
    for (const closedDays of ["1.", "+1", "2", true, [1]]) {
      const answer = await client.callTool({ name: "accounts_owner", arguments: { owner, closedDays } });
      expect(answer.isError, String(closedDays)).toBe(true);
      expect(errorOf(answer)).toMatchObject({ code: "INVALID_REQUEST", details: { field: "closedDays" } });
      expect(JSON.stringify(answer.content)).not.toContain("MCP error");
    }
    // An extra argument: the prepare tool takes exactly its documented fields.
    const extra = await client.callTool({
      name: "prepare_vault_deposit",
      arguments: { owner, vault: owner, amount: "1", surprise: 1 },
    });
    expect(extra.isError).toBe(true);
    expect(extra.structuredContent).toBeUndefined();
    expect(errorOf(extra)).toMatchObject({
      error: expect.stringMatching(/^Invalid arguments: surprise: is not allowed/),
      code: "INVALID_REQUEST",
      details: { field: "surprise", issues: [{ field: "surprise", message: expect.stringMatching(/is not allowed/) }] },
    });
    expect(JSON.stringify(extra.content)).not.toContain("MCP error");
    // A bad value is the same kind of answer.
    const bad = await client.callTool({ name: "accounts_owner", arguments: { owner: "nope" } });
    expect(errorOf(bad)).toMatchObject({ code: "INVALID_REQUEST", details: { field: "owner" } });
    // An integer passes the checks and reaches the route (which answers as it can without an index here).
    const passed = await client.callTool({ name: "accounts_owner", arguments: { owner, closedDays: 1 } });
    expect(JSON.stringify(passed.content)).not.toMatch(/closedDays/);
    // A tool that does not exist is a protocol error.
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it("the report-card tools take the owner's session: required on the private card, optional on the public one, which needs it when AGENT_REPORT_CARDS_READS=owner", async () => {
    const owned = testApp({ db: api.db, redis: api.redis, reportCards: { enabled: true, reads: "owner" }, rateLimit: { keyPrefix: `${api.prefix}:rl-owner` } });
    const ownedClient = new Client({ name: "test-owner", version: "1.0.0" });
    await ownedClient.connect(
      new StreamableHTTPClientTransport(new URL("http://agent.test/mcp"), { fetch: async (url, init) => owned.app.request(String(url), init) }),
    );
    try {
      const { tools } = await ownedClient.listTools();
      const card = tools.find((tool) => tool.name === "report_card_owner")!;
      const privateCard = tools.find((tool) => tool.name === "report_card_private")!;
      expect(Object.keys(card.inputSchema.properties ?? {})).toContain("sessionToken");
      expect(card.inputSchema.required ?? []).not.toContain("sessionToken");
      expect(privateCard.inputSchema.required).toContain("sessionToken");

      const wallet = privateKeyToAccount(generatePrivateKey());
      const without = await ownedClient.callTool({ name: "report_card_owner", arguments: { owner: wallet.address } });
      expect([without.isError, errorOf(without).code]).toEqual([true, "SESSION_REQUIRED"]);
      const challenge = await createChallenge(api.db, { owner: wallet.address, now: owned.clock.now(), origin: "http://agent.test" });
      const { token } = await exchangeChallenge(api.db, {
        owner: wallet.address,
        challengeId: challenge.challengeId,
        signature: await wallet.signMessage({ message: challenge.message }),
        now: owned.clock.now(),
      });
      const withToken = await ownedClient.callTool({ name: "report_card_owner", arguments: { owner: wallet.address, sessionToken: token } });
      expect(withToken.isError ?? false).toBe(false);
      expect(withToken.structuredContent).toMatchObject({ data: { owner: wallet.address, view: "public", hitRate: null } });
      // A token that cannot be a header (not printable ASCII) is an argument refused by name, not an internal error.
      const unsendable = await ownedClient.callTool({ name: "report_card_owner", arguments: { owner: wallet.address, sessionToken: "tok\u{1F600}en" } });
      expect([unsendable.isError, errorOf(unsendable).code, (errorOf(unsendable) as { details?: { field?: string } }).details?.field]).toEqual([
        true,
        "INVALID_REQUEST",
        "sessionToken",
      ]);
      // The public mode still answers without one.
      const open = await client.callTool({ name: "report_card_owner", arguments: { owner: wallet.address } });
      expect(open.isError ?? false).toBe(false);
    } finally {
      await ownedClient.close();
    }
  });

  it("every tool whose route takes the session has sessionToken: the finder's backtest (optional) among them", async () => {
    const doc = await json(await t.app.request("/v1/agent/openapi.json"));
    const { tools } = await client.listTools();
    const takes = Object.entries(doc.paths as Record<string, Record<string, { security?: object[] }>>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.security?.some((s) => "session" in s))
        .map(([method]) => toolName(method.toUpperCase(), path)),
    );
    expect(takes).toContain("strategy_finder_backtest");
    const withToken = tools.filter((tool) => "sessionToken" in (tool.inputSchema.properties ?? {})).map((tool) => tool.name);
    expect(withToken.sort()).toEqual(takes.sort());
    const finder = tools.find((tool) => tool.name === "strategy_finder_backtest")!;
    expect(finder.inputSchema.required ?? []).not.toContain("sessionToken");
  });

  it("GET and DELETE /mcp answer 405 (stateless server)", async () => {
    expect((await t.app.request("/mcp")).status).toBe(405);
    expect((await t.app.request("/mcp", { method: "DELETE" })).status).toBe(405);
  });
});
