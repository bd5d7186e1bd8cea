// The stored sign requests as answers: GET /v1/agent/sign-requests/{id} (live only: unknown, malformed and
// expired ids all answer 404) and the view of the sign page (it knows an expired request, to say so).
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { getAddress, isAddress, type Address } from "viem";
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
  params?: { account?: unknown };
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
};

/** What the sign page shows for `id`, expired or not; undefined when no such request was stored. */
export async function signPageView(db: Kysely<Database>, deployments: Deployments, id: string, now: Date): Promise<SignPageView | undefined> {
  if (!SIGN_REQUEST_ID.test(id)) return undefined;
  const row = await findSignRequest(db, id);
  if (!row) return undefined;
  const bundle = row.bundle as StoredBundle;
  const calls = bundle.walletSendCalls?.calls ?? bundle.steps ?? [];
  const owner = getAddress(row.owner);
  const account = typeof bundle.params?.account === "string" && isAddress(bundle.params.account) ? (bundle.params.account as Address) : undefined;
  const secondsLeft = Math.floor((row.expires_at.getTime() - now.getTime()) / 1000);
  return {
    id: row.id,
    kind: row.kind,
    owner,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    secondsLeft,
    steps: describeSteps(calls, namesFromDeployments(deployments, owner, account)),
    walletSendCalls: secondsLeft > 0 ? bundle.walletSendCalls : undefined,
  };
}
