// The prepare pipeline, I/O at the edges: resolve (projections and chain reads, the refusals) → build
// (the pure builder) → money-safety self-check → simulate the whole bundle → store the SignRequest and
// file it for the report card in one transaction → the PrepareResult. Runs in the worker of the
// `prepare` queue, or in the API's process when it has no job client.
import { getAddress, type Address } from "viem";
import { marketRegistryAbi } from "../../abis/index.js";
import { simulateFunded } from "../../adapters/chain/bundle-funds.js";
import { countOpenFilings, storePrepared } from "../../adapters/db/filings.js";
import { LIVE_SIGN_REQUESTS_PER_CLIENT } from "../../contract/sign-request.js";
import { liveSignRequestsOf, newSignRequestId, SIGN_REQUEST_TTL_MS } from "../../adapters/db/sign-requests.js";
import { callKey } from "../../domain/grading/rules.js";
import { allowListOf, figureViolations, ladderRevertDetails, moneySafetyViolations, walletSendCalls, withExtra } from "../../domain/bundles/index.js";
import { ApiError, isErrorCode, rateLimitedUntil } from "../../domain/errors.js";
import { errorStatus } from "../../contract/error-statuses.js";
import { ChainSimulator } from "../../adapters/chain/simulate.js";
import { CHAIN_ID } from "../../domain/chain.js";
import { prepareKindRegistry, TRANSFER_REVERTS } from "../../contract/prepare-kinds.js";
import { CallerGoneError } from "../../adapters/queue/request-reply.js";
import { resolvers } from "./resolvers.js";
import type { PrepareBodies, PrepareContext, PrepareFiler, PrepareKind, PrepareResult, PrepareSetup, Resolved, Resolver } from "./types.js";
import { sameAddress } from "../../domain/address.js";

/**
 * Open (matchable) filings without the owner's session per owner, and any per client: past it the prepare
 * still answers, unfiled. Bounds what one client can make the grading pass carry (issue 30).
 */
export const OPEN_FILINGS_CAP = 1000;

/** Whether one more filing fits under the caps: counts at most CAP+1 rows of the partial indexes. */
async function underCaps(db: PrepareContext["db"], owner: string, filer: PrepareFiler): Promise<boolean> {
  const count = (column: "owner" | "client", value: string, withoutSession: boolean) => countOpenFilings(db, column, value, withoutSession, OPEN_FILINGS_CAP);
  // The owner's own (session) filings are not counted against the owner: strangers cannot use up its room.
  if (!filer.ownerSession && (await count("owner", owner, true)) >= OPEN_FILINGS_CAP) return false;
  if (filer.client && (await count("client", filer.client, false)) >= OPEN_FILINGS_CAP) return false;
  return true;
}

function reportCardNote(filed: boolean, ownerSession: boolean): PrepareResult["reportCard"] {
  const note = !filed
    ? `Not filed for the report card: ${OPEN_FILINGS_CAP} bundles prepared for this owner (or by this client) are still open, unsigned; this action will not be on the report card. The bundle itself is unaffected.`
    : ownerSession
      ? "Filed for the report card as the owner's own (prepared with its session): once mined, it takes the credit."
      : "Filed for the report card without the owner's session: if anyone prepared the same call under another agentTag in the 10 minutes before it is mined, it is credited to none. Prepare with the owner's session (Authorization: Bearer) to make it the owner's own.";
  return { filed, ownerSession, note };
}

/** Body fields that name a receiver or recipient (any spelling, at any depth). */
const RECEIVER_FIELD = /^(receiver|recipient)s?$/i;

/** 422 RECEIVER_NOT_OWNER when a body names a receiver or recipient that is not `owner`. */
export function checkReceivers(body: unknown, owner: string, path = ""): void {
  if (Array.isArray(body)) {
    body.forEach((v, i) => checkReceivers(v, owner, `${path}[${i}]`));
    return;
  }
  if (body === null || typeof body !== "object") return;
  for (const [key, value] of Object.entries(body)) {
    const field = path ? `${path}.${key}` : key;
    if (RECEIVER_FIELD.test(key) && value !== undefined && value !== null && (typeof value !== "string" || !sameAddress(value, owner))) {
      throw new ApiError("RECEIVER_NOT_OWNER", `${field}: every receiver and recipient must be the owner ${getAddress(owner)}`, { field });
    }
    if (typeof value === "object") checkReceivers(value, owner, field);
  }
}

/** The refusals a simulation revert is answered with for `kind` (the resolver answers them too; the projection lagged). */
function revertsOf(kind: PrepareKind): readonly string[] {
  return [...prepareKindRegistry[kind].reverts, ...TRANSFER_REVERTS];
}

/** The zap's and maker's deadline: at most 10 minutes after the bundle is prepared. */
export const DEADLINE_WINDOW_SECONDS = 600;

/**
 * The pipeline's context, made once at start (by the prepare routes of an app, the prepare processor of a
 * worker): its simulator keeps what the chain tells once, and the deployments' allow-list is built once
 * (the check runs on every prepare).
 */
export function prepareContext<S extends PrepareSetup>(setup: S): S & Pick<PrepareContext, "simulator" | "allowList"> {
  return { ...setup, simulator: new ChainSimulator(setup.client), allowList: allowListOf(setup.deployments) };
}

/**
 * The money-safety self-check of every bundle (domain/bundles/decode.ts, all nine rules): the
 * deployments' contracts and tokens with what the resolver adds (`resolved.allow`), deadlines within
 * 10 minutes of the later of the service's clock and the chain time the resolver read. A violation is a
 * builder bug, never the caller's fault: logged, and 500 INTERNAL.
 */
export function checkPrepared(
  ctx: Pick<PrepareContext, "deployments" | "allowList" | "logger" | "now">,
  kind: string,
  owner: Address,
  resolved: Resolved,
): void {
  const { bundle } = resolved;
  const clock = BigInt(Math.floor(ctx.now().getTime() / 1000));
  const now = resolved.chainTime !== undefined && resolved.chainTime > clock ? resolved.chainTime : clock;
  const violations = moneySafetyViolations(bundle, owner, CHAIN_ID, {
    usdg: ctx.deployments.contracts.usdg as Address | undefined,
    allow: withExtra(ctx.allowList, resolved.allow ?? {}),
    deadlineWindow: { now, seconds: DEADLINE_WINDOW_SECONDS },
  });
  // As the typed client checks (issue 32): the amount asked, no minimum output of zero or below the quote's
  // floor at the slippage asked, so the service never answers what its own client refuses.
  violations.push(...figureViolations(bundle.steps, resolved.figures ?? {}));
  if (violations.length > 0) {
    ctx.logger.error({ kind, bundleKind: bundle.kind, violations }, "prepared bundle breaks the money-safety rules; refused");
    throw new ApiError("INTERNAL", "The prepared bundle failed the service's own safety check");
  }
}

/** 429 RATE_LIMITED when the client holds its share of live sign requests (before any work is done for it). */
async function checkLiveSignRequests(ctx: Pick<PrepareContext, "db" | "now" | "signRequestsPerClient">, client: string): Promise<void> {
  const now = ctx.now();
  const cap = ctx.signRequestsPerClient ?? LIVE_SIGN_REQUESTS_PER_CLIENT;
  const live = await liveSignRequestsOf(ctx.db, client, now, cap);
  if (live.count < cap) return;
  throw rateLimitedUntil(
    now,
    live.firstExpiry,
    (wait) =>
      `This client holds ${cap} prepared bundles that have not expired (each lives ${SIGN_REQUEST_TTL_MS / 60_000} minutes): the next fits in ${wait} s`,
  );
}

export async function runPrepare<K extends PrepareKind>(
  ctx: PrepareContext,
  kind: K,
  body: PrepareBodies[K],
  filer: PrepareFiler = { ownerSession: false, client: null },
): Promise<PrepareResult> {
  const resolver = resolvers[kind] as Resolver<K> | undefined;
  if (!resolver) throw new ApiError("NOT_FOUND", `prepare kind ${kind} is not served`);
  checkReceivers(body, body.owner);
  const owner = getAddress(body.owner);
  if (filer.client) await checkLiveSignRequests(ctx, filer.client);
  const resolved: Resolved = await resolver(ctx, body, owner);
  const { bundle } = resolved;

  // Self-check: a builder bug must never reach a wallet.
  checkPrepared(ctx, kind, owner, resolved);

  // The filing's chain price does not depend on the simulation: read it alongside (one round trip
  // less on the critical path); it is used only when the simulation passes. A short balance is no
  // refusal: it is simulated over and answered in `issues` (agents prepare first and fund second).
  const [{ simulation, issues }, chainPrice] = await Promise.all([
    simulateFunded(ctx.simulator, owner, bundle.steps, resolved.spends),
    resolved.priceToken
      ? ctx.client
          .readContract({
            address: getAddress(ctx.deployments.contracts.markets!),
            abi: marketRegistryAbi,
            functionName: "priceX18",
            args: [resolved.priceToken],
          })
          .catch(() => null)
      : Promise.resolve(null),
  ]);
  if (!simulation.ok) {
    const code = simulation.reason.split(" ")[0]!;
    const message = `step ${simulation.step + 1} of ${bundle.steps.length} would revert: ${simulation.reason} (simulated with ${simulation.method})`;
    if (resolved.refuseRevert) throw resolved.refuseRevert(simulation.reason, simulation.step);
    // A ladder open's per-part refusal keeps its details from the contract's error.
    if (revertsOf(kind).includes(code) && isErrorCode(code) && errorStatus[code] === 422)
      throw new ApiError(code, message, ladderRevertDetails(simulation.reason, bundle.params));
    throw new ApiError("SIMULATION_FAILED", message);
  }

  const id = newSignRequestId();
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + SIGN_REQUEST_TTL_MS);
  const steps = bundle.steps.map((s) => ({ to: getAddress(s.to), data: s.data, value: "0" as const }));
  const filed = await underCaps(ctx.db, owner.toLowerCase(), filer);
  const result: PrepareResult = {
    id,
    kind: bundle.kind,
    owner,
    steps,
    params: { ...bundle.params, ...resolved.params, ...(body.agentTag ? { agentTag: body.agentTag } : {}) },
    signUrl: `${ctx.baseUrl.replace(/\/+$/, "")}/sign/${id}`,
    expiresAt: expiresAt.toISOString(),
    walletSendCalls: walletSendCalls(bundle, owner),
    simulation: { method: simulation.method },
    issues,
    reportCard: reportCardNote(filed, filer.ownerSession),
  };

  // A caller that has gone gets nothing: no sign request or filing is stored for an answer no one reads.
  if (await ctx.callerGone?.()) throw new CallerGoneError("the caller gave up before the bundle was stored");

  const signRequest = { id, owner, kind: bundle.kind, bundle: result as unknown as Record<string, unknown>, now, client: filer.client };
  const filing = filed
    ? {
        owner,
        agentTag: body.agentTag ?? null,
        kind: bundle.kind,
        steps,
        chainPrice,
        callKey: callKey(steps),
        ownerSession: filer.ownerSession,
        client: filer.client,
      }
    : undefined;
  await storePrepared(ctx.db, signRequest, filing);
  return result;
}
