// Issue 55, on the running stack (devnet + indexer): an agent account short of funds gets its bundle with
// issues.balance naming the account (200), and a revert read over the devnet's JSON-RPC names its error;
// a body over 64 KiB and a body in another media type are 400 INVALID_REQUEST; builder refusals name the
// request's own field; a refusal's unit is the paid token's; a swap route shows an unlisted hop by address;
// skill.md names BUSY among the retryable answers. Keys of its own (random, funded here by the admin, wallet 10).
import { formatUnits, getAddress, parseEther, type Address, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { agentAccountFactoryAbi, ladderStrategyAbi, marketRegistryAbi } from "../../abis/index.js";
import { ChainSimulator } from "../../adapters/chain/simulate.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { getData, postChecked, until } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { mintAt, publicClientAt, sendEthAt, sendStepAt, tokenIn, writeAt } from "../helpers/wallets.js";

const stack = inject("stack");
const [owner, agent] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
const USDG = 10n ** 6n;

let opened: StackApp;
let d: Deployments;
let chain: PublicClient;
let local: ReturnType<typeof testApp>;
let validator: ResponseValidator;

beforeAll(async () => {
  opened = await openStackApp(stack);
  ({ d, chain, app: local, validator } = opened);
});

afterAll(() => opened?.close());

const prepare = (kind: string, body: Record<string, unknown>, from: Address = owner.address) =>
  postChecked(local.app, validator, `/v1/agent/prepare/${kind}`, { owner: from, ...body });
const spotOf = (symbol: string) =>
  chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [tokenIn(d, symbol).address] });

describe("an agent account short of funds", () => {
  it("answers 200 with issues.balance naming the account, and a revert read over JSON-RPC names ERC20InsufficientBalance", async () => {
    const usdg = getAddress(d.contracts.usdg!);
    const factory = d.contracts.agentAccountFactory!;
    const spot = await spotOf("WIF2");
    await sendEthAt(stack.rpcUrl, chain, owner.address, parseEther("1"));
    const limits = { floorX18: spot / 2n, ceilingX18: spot * 2n, budgetUsdg: 100n * USDG, feeCapBps: 100, minSpreadBps: 500 };
    await writeAt(stack.rpcUrl, chain, owner, { address: factory, abi: agentAccountFactoryAbi, functionName: "create", args: [agent.address, limits] });
    const account = await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accountOf", args: [owner.address] });
    await mintAt(stack.rpcUrl, chain, usdg, account, 60n * USDG);
    await until("the indexed agent account", () =>
      opened.reads
        .selectFrom("agentAccount")
        .select("address")
        .where("address", "=", account.toLowerCase() as Address)
        .executeTakeFirst(),
    );

    // 70 USDG, inside the 100 USDG budget, from an account holding 60.
    const price = (factor: bigint) => formatUnits((spot * factor) / 10n, 18);
    const body = { action: "open", token: "WIF2", legs: [{ buyPrice: price(8n), sellPrice: price(9n), amount: "70" }], via: "account" };
    const short = await prepare("ladder-strategy", body, agent.address);
    expect(short.status, JSON.stringify(short.body)).toBe(200);
    expect(short.body.data.kind).toBe("account-agent-call");
    expect(short.body.data.issues).toEqual({
      balance: { token: usdg, holder: account, actual: (60n * USDG).toString(), expected: (70n * USDG).toString() },
      allowance: null,
      simulationIncomplete: false,
    });

    // The same call simulated without the grant, over the devnet's HTTP JSON-RPC (a -32603 whose revert
    // data is nested in its `data` and quoted in its text): the reason is the token's own error.
    const step = short.body.data.steps[0] as { to: Address; data: `0x${string}` };
    const http = publicClientAt(stack.rpcUrl);
    const unfunded = await new ChainSimulator(http).simulate(agent.address, [{ to: step.to, data: step.data }]);
    expect(unfunded).toMatchObject({ ok: false, step: 0, reason: `ERC20InsufficientBalance ${account} ${60n * USDG} ${70n * USDG}` });

    // Funded, the same request carries no issue, and the agent key's bundle opens the ladder.
    await mintAt(stack.rpcUrl, chain, usdg, account, 10n * USDG);
    const funded = await prepare("ladder-strategy", body, agent.address);
    expect(funded.body.data.issues.balance).toBeNull();
    await sendEthAt(stack.rpcUrl, chain, agent.address, parseEther("1"));
    const next = await chain.readContract({ address: d.contracts.ladderStrategy!, abi: ladderStrategyAbi, functionName: "nextId" });
    const sent = funded.body.data.steps[0] as { to: Address; data: `0x${string}` };
    await sendStepAt(stack.rpcUrl, chain, agent, { to: sent.to, data: sent.data }, "the account's LADDER call");
    expect(await chain.readContract({ address: d.contracts.ladderStrategy!, abi: ladderStrategyAbi, functionName: "ladders", args: [next] })).toMatchObject({
      owner: account,
    });
  });
});

describe("invalid requests are the spec's 400 INVALID_REQUEST", () => {
  const path = "/v1/agent/prepare/vault-deposit";
  const send = async (headers: Record<string, string>, body: string) => {
    const res = await local.app.request(path, { method: "POST", headers, body });
    const answer = (await res.json()) as any;
    expect(validator.errors("post", path, res.status, answer), "against the OpenAPI document").toEqual([]);
    return { status: res.status, body: answer };
  };

  it("a body sent as text/plain names content-type and the media type expected", async () => {
    const answer = await send({ "content-type": "text/plain" }, JSON.stringify({ owner: owner.address }));
    expect(answer).toEqual({
      status: 400,
      body: {
        error: "content-type: must be application/json, not text/plain",
        code: "INVALID_REQUEST",
        details: { field: "content-type", issues: [{ field: "content-type", message: "must be application/json, not text/plain" }] },
      },
    });
  });

  it("a body over 64 KiB names the body, its size and the limit", async () => {
    const big = JSON.stringify({ owner: owner.address, pad: "x".repeat(70 * 1024) });
    const answer = await send({ "content-type": "application/json", "content-length": String(big.length) }, big);
    const message = `is ${big.length} bytes: at most 65536 bytes (64 KiB)`;
    expect(answer).toEqual({
      status: 400,
      body: { error: `body: ${message}`, code: "INVALID_REQUEST", details: { field: "body", issues: [{ field: "body", message }] } },
    });
  });
});

describe("refusals in the request's own fields and units", () => {
  it("setRepeat and collect with mask 0 on a live ladder name mask", async () => {
    const ladder = await until("a seeded open ladder", () =>
      opened.reads.selectFrom("ladder").select(["id", "owner"]).where("state", "!=", "closed").orderBy("id").executeTakeFirst(),
    );
    for (const action of ["setRepeat", "collect"]) {
      const r = await prepare("ladder-strategy", { action, id: ladder.id.toString(), mask: 0 }, getAddress(ladder.owner));
      expect([r.status, r.body]).toEqual([
        400,
        {
          error: "mask: must be an integer from 1 to 3",
          code: "INVALID_REQUEST",
          details: { field: "mask", issues: [{ field: "mask", message: "must be an integer from 1 to 3" }] },
        },
      ]);
    }
  });

  it("vault-withdraw mode queue on a merged vault without a redeem queue names mode, not the queue's parameter", async () => {
    const vault = d.vaults.find((v) => v.family === "merged" && !v.redeemQueue && v.agent);
    expect(vault, "a merged vault without a redeem queue").toBeDefined();
    const r = await prepare("vault-withdraw", { vault: vault!.address, shares: "1", mode: "queue" });
    expect(r.status).toBe(400);
    expect(r.body.details.field).toBe("mode");
    expect(r.body.error).toBe("mode: queue is not offered by this vault: it has no redeem queue (use mode usdg or in-kind)");
  });

  it("NOTHING_TO_WITHDRAW names the vault, no share amount as a minimum", async () => {
    const vault = d.vaults.find((v) => v.family === "merged" && v.agent)!;
    const r = await prepare("vault-withdraw", { vault: vault.address, shares: "5", mode: "in-kind" });
    expect([r.status, r.body.code]).toEqual([422, "NOTHING_TO_WITHDRAW"]);
    expect(r.body.details).toEqual({ token: getAddress(vault.address) });
    expect(r.body.error).toMatch(/holds 0 shares of this vault \(0 base units\), fewer than the 5 asked/);
  });

  it("basket-buy of 0 names the minimum in the paid token's unit: USDG for USDG, token for WETH", async () => {
    const usdg = await prepare("basket-buy", { basket: "BLUE", amount: "0" });
    expect([usdg.status, usdg.body.code, usdg.body.details]).toEqual([422, "AMOUNT_TOO_SMALL", { minimum: "1", unit: "USDG" }]);
    const weth = await prepare("basket-buy", { basket: "BLUE", amount: "0", payWith: "WETH" });
    expect([weth.status, weth.body.code, weth.body.details]).toEqual([422, "AMOUNT_TOO_SMALL", { minimum: "1", unit: "token" }]);
  });
});

describe("unlisted tokens by address", () => {
  it("a swap quote's route shows an unlisted hop by its address, never its own symbol", async () => {
    const scam = tokenIn(d, "SCAM").address;
    const quote = await getData(local.app, validator, `/v1/agent/swap/quote?tokenIn=USDG&tokenOut=${scam}&amount=10`);
    expect(quote.tokenOut).toMatchObject({ address: getAddress(scam), symbol: null, listed: false });
    expect(quote.route).toEqual(["USDG", getAddress(scam)]);
    // Listed hops keep their listed symbols, through USDG.
    const listed = await getData(local.app, validator, `/v1/agent/swap/quote?tokenIn=WETH&tokenOut=${scam}&amount=0.01`);
    expect(listed.route).toEqual(["WETH", "USDG", getAddress(scam)]);
  });
});

describe("skill.md", () => {
  it("names BUSY with RATE_LIMITED and UNAVAILABLE among the retryable answers", async () => {
    const text = await (await local.app.request("/v1/agent/skill.md")).text();
    expect(text).toMatch(/^- `RATE_LIMITED` \(429\): .*Retry-After/m);
    expect(text).toMatch(/^- `BUSY` \(429\): .*Retry-After/m);
    expect(text).toMatch(/^- `UNAVAILABLE` \(503\): .*Retry-After/m);
  });
});
