// The stored sign requests as answers: GET /v1/agent/sign-requests/{id} (live only: unknown, malformed and
// expired ids all answer 404) and the view of the sign page (it knows an expired request, to say so).
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { getAddress, isAddress, type Address, type PublicClient } from "viem";
import { testTokenAbi } from "../../abis/index.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { findLiveSignRequest, findSignRequest, SIGN_REQUEST_ID } from "../../adapters/db/sign-requests.js";
import { describeSteps, type StepDescription } from "../../domain/bundles/describe.js";
import { ApiError } from "../../domain/errors.js";
import type { SignRequest } from "../../contract/sign-request.js";
import { namesFromDeployments } from "./sign-names.js";

type StoredBundle = {
  walletSendCalls?: { calls?: { to: string; data: string; value: string }[] };
  steps?: { to: string; data: string }[];
  params?: { account?: unknown; quote?: unknown; slippageBps?: unknown };
  issues?: { balance?: { token?: unknown; holder?: unknown; actual?: unknown; expected?: unknown } | null };
};

/** The bundle as prepared, with its walletSendCalls; 404 NOT_FOUND unless live. */
export async function signRequestAnswer(db: Kysely<Database>, id: string, now: Date): Promise<z.infer<typeof SignRequest>> {
  const row = await findLiveSignRequest(db, id, now);
  if (!row) throw new ApiError("NOT_FOUND", "unknown or expired sign request");
  return {
    ...(row.bundle as { walletSendCalls: z.infer<typeof SignRequest>["walletSendCalls"] }),
    id: row.id,
    kind: row.kind,
    owner: getAddress(row.owner),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}

export type SignPageView = {
  id: string;
  kind: string;
  owner: string;
  createdAt: Date;
  expiresAt: Date;
  /** Seconds left at render (server clock); 0 or less: expired. */
  secondsLeft: number;
  steps: StepDescription[];
  /** The stored wallet_sendCalls params; only given while the request is live. */
  walletSendCalls?: unknown;
  /** The prepare's `issues.balance`, its balance read again at render where the chain answers; absent once funded. */
  shortfall?: SignPageShortfall;
  /** A swap's quote: the expected output and the price impact beside the call's minimum. */
  quote?: SignPageQuote;
};

export type SignPageShortfall = {
  token: Address;
  /** Whose balance is short: the owner, or the agent account a via-account bundle spends from. */
  holder: Address;
  holderIsOwner: boolean;
  symbol: string;
  /** Undefined for a token the deployments do not name (amounts then in base units). */
  decimals?: number;
  /** Read on chain for this render where the chain answers, else the prepare's figure. */
  actual: bigint;
  expected: bigint;
};

export type SignPageQuote = { symbol: string; expectedOut: string; minimumOut: string; priceImpactBps: number; slippageBps?: number };

const baseUnits = (x: unknown): bigint | undefined => (typeof x === "string" && /^\d+$/.test(x) ? BigInt(x) : undefined);

/** The stored balance issue, re-read on chain (`client`) so a page opened after funding does not warn. */
async function shortfallOf(bundle: StoredBundle, owner: Address, names: ReturnType<typeof namesFromDeployments>, client?: PublicClient) {
  const issue = bundle.issues?.balance;
  const expected = baseUnits(issue?.expected);
  const stored = baseUnits(issue?.actual);
  if (!issue || typeof issue.token !== "string" || !isAddress(issue.token) || expected === undefined || stored === undefined) return undefined;
  const token = getAddress(issue.token);
  const holder = typeof issue.holder === "string" && isAddress(issue.holder) ? getAddress(issue.holder) : owner;
  const now = client
    ? await client.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [holder] }).catch(() => undefined)
    : undefined;
  const actual = now ?? stored;
  if (actual >= expected) return undefined;
  const known = names.tokens[token.toLowerCase()];
  return { token, holder, holderIsOwner: holder === owner, symbol: known?.symbol ?? `token ${token}`, decimals: known?.decimals, actual, expected };
}

/** A swap's stored quote figures (usecases/prepare/resolve/swap.ts), when the bundle has them. */
function quoteOf(bundle: StoredBundle): SignPageQuote | undefined {
  const q = bundle.params?.quote as { tokenOut?: { symbol?: unknown }; expectedOut?: unknown; minimumOut?: unknown; priceImpactBps?: unknown } | undefined;
  if (!q || typeof q.expectedOut !== "string" || typeof q.minimumOut !== "string" || typeof q.priceImpactBps !== "number") return undefined;
  const slippage = bundle.params?.slippageBps;
  return {
    symbol: typeof q.tokenOut?.symbol === "string" ? q.tokenOut.symbol : "",
    expectedOut: q.expectedOut,
    minimumOut: q.minimumOut,
    priceImpactBps: q.priceImpactBps,
    ...(typeof slippage === "number" ? { slippageBps: slippage } : {}),
  };
}

/** What the sign page shows for `id`, expired or not; undefined when no such request was stored. */
export async function signPageView(
  db: Kysely<Database>,
  deployments: Deployments,
  id: string,
  now: Date,
  client?: PublicClient,
): Promise<SignPageView | undefined> {
  if (!SIGN_REQUEST_ID.test(id)) return undefined;
  const row = await findSignRequest(db, id);
  if (!row) return undefined;
  const bundle = row.bundle as StoredBundle;
  const calls = bundle.walletSendCalls?.calls ?? bundle.steps ?? [];
  const owner = getAddress(row.owner);
  const account = typeof bundle.params?.account === "string" && isAddress(bundle.params.account) ? (bundle.params.account as Address) : undefined;
  const secondsLeft = Math.floor((row.expires_at.getTime() - now.getTime()) / 1000);
  const names = namesFromDeployments(deployments, owner, account);
  const shortfall = secondsLeft > 0 ? await shortfallOf(bundle, owner, names, client) : undefined;
  const quote = quoteOf(bundle);
  return {
    id: row.id,
    kind: row.kind,
    owner,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    secondsLeft,
    steps: describeSteps(calls, names),
    walletSendCalls: secondsLeft > 0 ? bundle.walletSendCalls : undefined,
    ...(shortfall ? { shortfall } : {}),
    ...(quote ? { quote } : {}),
  };
}
