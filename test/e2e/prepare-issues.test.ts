// Agents prepare first and fund second: a wallet that holds nothing (test wallet 24) prepares a vault
// deposit, a limit order, a swap and a basket buy. Each answers 200 with the bundle, its sign request and
// filing, and `issues.balance` naming the token it lacks and both amounts. Once the admin (wallet 10)
// has funded it, the same requests carry `balance: null`, and every bundle executes, signed and sent with
// viem. Every answer is validated against the served OpenAPI document.
import type { Kysely } from "kysely";
import { decodeFunctionData, encodeFunctionData, erc20Abi, formatUnits, parseEther, type Address, type Hex, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { marketRegistryAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { postChecked } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { balanceAt, sendStepAt, testAccount, tokenIn } from "../helpers/wallets.js";

const stack = inject("stack");
const wallet = testAccount(24);
const admin = testAccount(10);
const owner = wallet.address;
const USDG = 10n ** 6n;

let opened: StackApp;
let db: Kysely<Database>;
let d: Deployments;
let chain: PublicClient;
let local: ReturnType<typeof testApp>;
let validator: ResponseValidator;

const tokenBy = (symbol: string) => tokenIn(d, symbol);
const balanceOf = (token: Address) => balanceAt(chain, token, owner);

beforeAll(async () => {
  opened = await openStackApp(stack);
  ({ db, d, chain, app: local, validator } = opened);
});

afterAll(() => opened?.close());

type Step = { to: Address; data: Hex; value: string };
type Issues = {
  balance: { token: Address; actual: string; expected: string } | null;
  allowance: { spender: Address; actual: string } | null;
  simulationIncomplete: boolean;
};
type Prepared = { id: string; steps: Step[]; issues: Issues };

async function prepared(kind: string, body: Record<string, unknown>): Promise<Prepared> {
  const { status, body: answer } = await postChecked(local.app, validator, `/v1/agent/prepare/${kind}`, { owner, ...body });
  expect(status, `${kind}: ${JSON.stringify(answer).slice(0, 600)}`).toBe(200);
  return answer.data as Prepared;
}

const send = (from: typeof wallet, tx: { to: Address; data?: Hex; value?: bigint }) => sendStepAt(stack.rpcUrl, chain, from, tx, `transaction to ${tx.to}`);

/** The spender and amount of the bundle's (first) approve. */
const approvalOf = (result: Prepared) => {
  const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data: result.steps[0]!.data });
  expect(functionName).toBe("approve");
  return { token: result.steps[0]!.to, spender: args[0] as Address, amount: args[1] as bigint };
};

describe("issues: prepare first, fund second", () => {
  it("an unfunded wallet gets each bundle with issues.balance; funded, the same requests carry balance null and execute", async () => {
    const usdg = d.contracts.usdg! as Address;
    const link = tokenBy("LINK");
    expect(await balanceOf(usdg)).toBe(0n);
    expect(await balanceOf(link.address)).toBe(0n);

    // A sell of about 50 USDG of LINK, its line 30% above the market (it rests).
    const spot = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [link.address] });
    const step = 10n ** BigInt(Math.max(link.decimals - 4, 0));
    const linkAmount = ((50n * 10n ** 18n * 10n ** BigInt(link.decimals)) / spot / step) * step;
    const merged = d.vaults.find((v) => v.family === "merged" && v.token.toLowerCase() === tokenBy("WBTC").address.toLowerCase())!;
    const requests: { kind: string; body: Record<string, unknown>; token: Address; expected: bigint }[] = [
      { kind: "vault-deposit", body: { vault: merged.address, amount: "100" }, token: usdg, expected: 100n * USDG },
      {
        kind: "limit-order",
        body: { token: "LINK", side: "sell", amount: formatUnits(linkAmount, link.decimals), price: formatUnits((spot * 13n) / 10n, 18) },
        token: link.address,
        expected: linkAmount,
      },
      { kind: "swap", body: { tokenIn: "USDG", tokenOut: "WETH", amount: "100" }, token: usdg, expected: 100n * USDG },
      { kind: "basket-buy", body: { basket: "BLUE", amount: "100" }, token: usdg, expected: 100n * USDG },
    ];

    for (const r of requests) {
      const result = await prepared(r.kind, r.body);
      const approval = approvalOf(result);
      expect(approval.token.toLowerCase(), r.kind).toBe(r.token.toLowerCase());
      expect(result.issues, r.kind).toEqual({
        balance: { token: approval.token, actual: "0", expected: r.expected.toString() },
        allowance: { spender: approval.spender, actual: "0" },
        simulationIncomplete: false,
      });
      expect(BigInt(result.issues.balance!.actual)).toBeLessThan(BigInt(result.issues.balance!.expected));
      // Stored and filed like any bundle: the sign link shows it, the report card has it.
      const stored = await local.app.request(`/v1/agent/sign-requests/${result.id}`);
      expect(stored.status).toBe(200);
      expect(((await stored.json()) as { data: Prepared }).data.issues).toEqual(result.issues);
      const filing = await db.selectFrom("filing").selectAll().where("sign_request_id", "=", result.id).executeTakeFirstOrThrow();
      expect(filing.owner).toBe(owner.toLowerCase());
    }

    // The admin funds the wallet: gas, USDG and LINK.
    await send(admin, { to: owner, value: parseEther("1") });
    await send(admin, { to: usdg, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [owner, 1_000n * USDG] }) });
    await send(admin, { to: link.address, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [owner, linkAmount] }) });

    for (const r of requests) {
      // The swap's router is approved beforehand: then the allowance is no issue either.
      if (r.kind === "swap") {
        const before = approvalOf(await prepared(r.kind, r.body));
        await send(wallet, { to: usdg, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [before.spender, r.expected] }) });
      }
      const result = await prepared(r.kind, r.body);
      expect(result.issues.balance, r.kind).toBeNull();
      expect(result.issues.simulationIncomplete).toBe(false);
      expect(result.issues.allowance, r.kind).toEqual(r.kind === "swap" ? null : { spender: approvalOf(result).spender, actual: "0" });
      for (const s of result.steps) {
        expect(s.value).toBe("0");
        await send(wallet, { to: s.to, data: s.data });
      }
    }
    // Every bundle spent what it said it would (the basket zap hands back what its legs leave: cents).
    const left = await balanceOf(usdg);
    expect(left).toBeGreaterThanOrEqual(700n * USDG);
    expect(left).toBeLessThan(701n * USDG);
    expect(await balanceOf(link.address)).toBe(0n);
  });
});
