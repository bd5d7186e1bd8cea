// A small typed client of the agent API. Its types are the API's own zod schemas (contract/*, the
// ones that generate the OpenAPI document), imported as types only: the client carries no schema
// code at run time, and a shape changed on the server changes the client's types with it. Its methods
// name their operations as the document does (`clientOperationIds`: the same operationIdOf).
//
//   const client = createAgentClient({ baseUrl: "http://127.0.0.1:8080" });
//   const vaults = await client.vaults();
//   const result = await client.prepare("vault-deposit", { owner, vault: vaults[0].address, amount: "250" });
//   await sendPrepared(walletClient, publicClient, result, { allow: deployments }); // ./send-prepared.ts
//   let { cursor } = await client.activity(owner);                      // baseline
//   const next = await client.activity(owner, { cursor, waitMs: 25_000 }); // long poll
//
// Paid runs (backtests and ranges past 30 days, x402 v2): give `pay` a viem account holding USDG (or, for a
// contract wallet, its address and how it signs typed data: ERC-1271, ERC-6492 before deployment) and the
// most one payment may cost; a 402 is then paid by @x402/fetch (an EIP-3009 authorization signed here,
// settled by the service's facilitator) and the run answered, its settlement passed to `onSettlement`.
//   const paying = createAgentClient({ baseUrl, pay: { account, maxAmountUsdg: "0.5", onSettlement: (s) => log(s.transaction) } });
//   const r = await paying.backtestGrid({ token, buyPrice, sellPrice, amountUsd: 200, days: 60 });
import type { z } from "@hono/zod-openapi";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { ClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { parseUnits, type Address, type LocalAccount } from "viem";
import type { GridBacktestBody, LadderBacktestBody, RangesQuery } from "../contract/backtests.js";
import { CAIP2_NETWORK } from "../domain/chain.js";
import { USDG_DECIMALS } from "../domain/price.js";
import type { ErrorDetails } from "../contract/fields.js";
import type { getAccount, getActivity } from "../contract/operations/accounts.js";
import type { backtestOperations } from "../contract/operations/backtests.js";
import type { prepareOperation } from "../contract/operations/prepare.js";
import type { getProducts } from "../contract/operations/products.js";
import type { getSignRequest } from "../contract/operations/sign-requests.js";
import type { getVault, getVaultEarnings, getVaultPrices, listVaults } from "../contract/operations/vaults.js";
import type { prepareKindRegistry } from "../contract/prepare-kinds.js";
import { operationIdOf } from "../contract/operation-id.js";
import { OPENAPI_PATH } from "../contract/discovery/links.js";
import { sameAddress } from "../domain/address.js";

/** The prepare kinds, as the API's routes name them (POST /v1/agent/prepare/{kind}). */
export type PrepareKind = keyof typeof prepareKindRegistry;
/** A prepare body as sent: defaults (slippageBps...) may be left out. */
export type PrepareBody<K extends PrepareKind> = z.input<(typeof prepareKindRegistry)[K]["body"]>;

type Backtests = ReturnType<typeof backtestOperations>;
/** The operations of the client's named methods, as declared (contract/operations/): types only, no schema code. */
type Operations = {
  products: typeof getProducts;
  vaults: typeof listVaults;
  vault: typeof getVault;
  vaultPrices: typeof getVaultPrices;
  vaultEarnings: typeof getVaultEarnings;
  account: typeof getAccount;
  activity: typeof getActivity;
  signRequest: typeof getSignRequest;
  backtestGrid: Backtests["gridBacktest"];
  backtestLadder: Backtests["ladderBacktest"];
  ranges: Backtests["rangesRoute"];
};
/** What an operation answers with 200: the `data` of its declared envelope. */
type AnswerOf<O> = O extends { responses: { 200: { content: { "application/json": { schema: infer S extends z.ZodType } } } } }
  ? z.output<S> extends { data: infer D }
    ? D
    : never
  : never;

export type SignRequest = AnswerOf<Operations["signRequest"]>;
export type AgentProducts = AnswerOf<Operations["products"]>;
export type AgentVaultSummary = AnswerOf<Operations["vaults"]>[number];
export type AgentVaultDetails = AnswerOf<Operations["vault"]>;
export type AgentVaultPrices = AnswerOf<Operations["vaultPrices"]>;
export type AgentVaultEarnings = AnswerOf<Operations["vaultEarnings"]>;
export type AgentAccount = AnswerOf<Operations["account"]>;
export type AgentActivity = AnswerOf<Operations["activity"]>;
export type GridBacktest = AnswerOf<Operations["backtestGrid"]>;
export type LadderBacktest = AnswerOf<Operations["backtestLadder"]>;
export type Ranges = AnswerOf<Operations["ranges"]>;
/** Every kind's prepare answers the same shape. */
export type PrepareResult = AnswerOf<ReturnType<typeof prepareOperation>>;

/** A paid run's settlement, from the answer's PAYMENT-RESPONSE header. */
export type Settlement = { transaction: string; payer?: string; network: string };

export type PayOptions = {
  /**
   * Signs the payments (EIP-3009 authorizations of USDG): a viem local account (a plain or EIP-7702 wallet), or
   * x402's signer shape `{address, signTypedData}` for a contract wallet whose ERC-1271 accepts what it signs.
   */
  account: LocalAccount | ClientEvmSigner;
  /** The most one payment may cost, in whole USDG: a dearer 402 is not paid (it throws 402 PAYMENT_REQUIRED). */
  maxAmountUsdg: string | number;
  /** Called with each payment's settlement. */
  onSettlement?: (settlement: Settlement) => void;
  /** The token paid: USDG's address on this chain. Unset: the first 402's asset, then only that one. */
  asset?: Address;
  /** Who is paid (the service's payee). Unset: the first 402's payTo, then only that one. */
  payTo?: Address;
};

type Accepted = { network: string; amount: string; asset: string; payTo: string };

/**
 * Which of a 402's offers the client pays (issue 32): on this chain, at most the max, and in the asset and to
 * the payee configured, or else those of the first 402 paid, pinned for the client's life, so a 402 changed
 * on the way cannot redirect a payment or swap the token.
 */
export function paymentPolicy(pay: Pick<PayOptions, "maxAmountUsdg" | "asset" | "payTo">) {
  const max = parseUnits(String(pay.maxAmountUsdg), USDG_DECIMALS);
  let asset = pay.asset?.toLowerCase();
  let payTo = pay.payTo?.toLowerCase();
  return <A extends Accepted>(_version: number, accepts: A[]): A[] => {
    const fit = accepts.filter(
      (a) =>
        a.network === CAIP2_NETWORK &&
        BigInt(a.amount) <= max &&
        (asset === undefined || sameAddress(a.asset, asset)) &&
        (payTo === undefined || sameAddress(a.payTo, payTo)),
    );
    const first = fit[0];
    if (first) {
      asset ??= first.asset.toLowerCase();
      payTo ??= first.payTo.toLowerCase();
    }
    return fit.filter((a) => sameAddress(a.asset, asset) && sameAddress(a.payTo, payTo));
  };
}

export type ActivityOptions = {
  /** The cursor last returned; omit it for a baseline. */
  cursor?: string;
  /** Long poll: wait up to this many ms (0-30000) for a change when there is none. */
  waitMs?: number;
  /** Most changes in one answer (1-500). */
  limit?: number;
  signal?: AbortSignal;
};

/** An error answer of the API: `{error, code, details?}` with its HTTP status. */
export class AgentApiError extends Error {
  override name = "AgentApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: z.output<typeof ErrorDetails>,
    /** Seconds to wait before retrying (429), from Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export type AgentClientOptions = {
  /** The service's base URL, e.g. https://agents.example.com (routes are under /v1). */
  baseUrl: string;
  /** fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Allow an http:// base URL that is not loopback (bundles and sessions would travel in clear). Default false. */
  allowInsecureHttp?: boolean;
  /** Pay 402s (x402 v2, USDG on chain 4663) up to a maximum; unset: a 402 throws AgentApiError 402 PAYMENT_REQUIRED. */
  pay?: PayOptions;
};

/** fetch that pays a 402 with `pay.account`, never more than `pay.maxAmountUsdg` on this chain. */
function payingFetch(base: typeof fetch, pay: PayOptions): typeof fetch {
  const client = x402Client.fromConfig({
    schemes: [{ network: CAIP2_NETWORK, client: new ExactEvmScheme(pay.account) }],
    // USDG is no default asset of x402's tables: the cap is ours, in base units, on this chain only.
    spendControls: false,
    policies: [paymentPolicy(pay)],
  });
  const paying = wrapFetchWithPayment(base, client);
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    let response: Response;
    try {
      response = await paying(input, init);
    } catch (error) {
      // No accepted way to pay within the max (or a malformed 402): the caller's limit, said as the API says it.
      throw new AgentApiError(402, "PAYMENT_REQUIRED", `Not paid: ${(error as Error).message} (max ${pay.maxAmountUsdg} USDG)`);
    }
    const header = response.headers.get("PAYMENT-RESPONSE");
    if (header && response.ok) pay.onSettlement?.(decodePaymentResponseHeader(header));
    return response;
  }) as typeof fetch;
}

/** A base URL the client refuses: not http(s), or http:// to a host that is not loopback without allowInsecureHttp. */
export class InsecureBaseUrlError extends Error {
  override name = "InsecureBaseUrlError";
}

/** localhost, 127.0.0.0/8 and ::1: the only hosts plain http may reach by default. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function checkBaseUrl(baseUrl: string, allowInsecureHttp: boolean): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InsecureBaseUrlError(`baseUrl ${baseUrl} is not a URL`);
  }
  if (url.protocol === "https:") return;
  if (url.protocol !== "http:") throw new InsecureBaseUrlError(`baseUrl ${baseUrl}: only https (or http to loopback) is served`);
  if (!isLoopbackHost(url.hostname) && !allowInsecureHttp)
    throw new InsecureBaseUrlError(`baseUrl ${baseUrl} is plain http to a host that is not loopback: use https, or pass allowInsecureHttp: true`);
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * The route each of the client's named methods calls: method and OpenAPI path (`prepare` is one per kind),
 * checked against the operation's declaration: a path or method changed there does not compile here.
 */
const ROUTES = {
  products: ["GET", "/v1/agent/products"],
  vaults: ["GET", "/v1/agent/vaults"],
  vault: ["GET", "/v1/agent/vaults/{vault}"],
  vaultPrices: ["GET", "/v1/agent/vaults/{vault}/prices"],
  vaultEarnings: ["GET", "/v1/agent/vaults/{vault}/earnings"],
  account: ["GET", "/v1/agent/accounts/{owner}"],
  activity: ["GET", "/v1/agent/accounts/{owner}/activity"],
  signRequest: ["GET", "/v1/agent/sign-requests/{id}"],
  backtestGrid: ["POST", "/v1/agent/backtest/grid"],
  backtestLadder: ["POST", "/v1/agent/backtest/ladder"],
  ranges: ["GET", "/v1/agent/ranges"],
} as const satisfies { [N in keyof Operations]: readonly [Uppercase<Operations[N]["method"]>, `/v1/agent${Operations[N]["path"]}`] };

type NamedMethod = keyof typeof ROUTES;

/**
 * The operation each named method calls, by the served document's operationId (also its MCP tool's
 * name): `vault` → `vaults_vault`, `activity` → `accounts_activity`. Made by the same function as the
 * document's (contract/operation-id.ts).
 */
export const clientOperationIds = Object.fromEntries(Object.entries(ROUTES).map(([name, [method, path]]) => [name, operationIdOf(method, path)])) as Record<
  NamedMethod,
  string
>;

/** The operationId of `prepare(kind)`: `prepare_vault_deposit`... */
export const prepareOperationId = (kind: PrepareKind): string => operationIdOf("POST", prepareRoute(kind));

const prepareRoute = (kind: string) => `/v1/agent/prepare/${kind}`;

export type AgentClient = ReturnType<typeof createAgentClient>;

export function createAgentClient(options: AgentClientOptions) {
  checkBaseUrl(options.baseUrl, options.allowInsecureHttp === true);
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.pay ? payingFetch(options.fetch ?? fetch, options.pay) : (options.fetch ?? fetch);

  async function call<T>(
    method: "GET" | "POST",
    path: string,
    { query, body, signal }: { query?: Query; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<T> {
    const url = new URL(`${base}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const response = await doFetch(url, {
      method,
      headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...options.headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    let parsed: { data?: T; error?: string; code?: string; details?: z.output<typeof ErrorDetails> } | undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const retryAfter = response.headers.get("Retry-After");
      throw new AgentApiError(
        response.status,
        parsed?.code ?? "HTTP_ERROR",
        parsed?.error ?? (text.slice(0, 200) || response.statusText),
        parsed?.details,
        retryAfter ? Number(retryAfter) : undefined,
      );
    }
    if (!parsed || !("data" in parsed)) throw new AgentApiError(response.status, "BAD_ANSWER", `${method} ${path} answered no {data}`);
    return parsed.data as T;
  }

  /** A named method's route, path parameters filled in; its answer typed as its operation declares. */
  const route = <N extends NamedMethod>(
    name: N,
    params: Record<string, string> = {},
    options: { query?: Query; body?: unknown; signal?: AbortSignal } = {},
  ) => {
    const [method, template] = ROUTES[name];
    const path = template.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(params[key] ?? ""));
    return call<AnswerOf<Operations[N]>>(method, path, options);
  };

  return {
    /** GET any /v1 route (planners, backtests, public routes...): `get("/v1/agent/ranges", {token})`. */
    get: <T = unknown>(path: string, query?: Query, signal?: AbortSignal) => call<T>("GET", path, { query, signal }),
    /** POST any /v1 route with a JSON body. */
    post: <T = unknown>(path: string, body: unknown, signal?: AbortSignal) => call<T>("POST", path, { body, signal }),

    products: () => route("products"),
    vaults: () => route("vaults"),
    vault: (vault: string) => route("vault", { vault }),
    vaultPrices: (vault: string) => route("vaultPrices", { vault }),
    vaultEarnings: (vault: string) => route("vaultEarnings", { vault }),
    account: (owner: string) => route("account", { owner }),
    /** The change feed: a baseline without `cursor`; with it, the changes after it (long poll with `waitMs`). */
    activity: (owner: string, { cursor, waitMs, limit, signal }: ActivityOptions = {}) =>
      route("activity", { owner }, { query: { cursor, waitMs, limit }, signal }),
    signRequest: (id: string) => route("signRequest", { id }),
    /** A grid backtest (POST /v1/agent/backtest/grid); past 30 days it is paid (give `pay`). */
    backtestGrid: (body: z.input<typeof GridBacktestBody>) => route("backtestGrid", {}, { body }),
    /** A ladder backtest (POST /v1/agent/backtest/ladder); past 30 days it is paid (give `pay`). */
    backtestLadder: (body: z.input<typeof LadderBacktestBody>) => route("backtestLadder", {}, { body }),
    /** The best grid ranges (GET /v1/agent/ranges); past 30 days they are paid (give `pay`). */
    ranges: (query: z.input<typeof RangesQuery>) => route("ranges", {}, { query: query as Query }),
    /** An unsigned bundle for the owner's wallet (send it with `sendPrepared`, or open `signUrl`). */
    prepare: <K extends PrepareKind>(kind: K, body: PrepareBody<K>) => call<PrepareResult>("POST", prepareRoute(kind), { body }),
    /** The served OpenAPI 3.1 document. */
    openapi: async () => {
      const response = await doFetch(`${base}${OPENAPI_PATH}`);
      if (!response.ok) throw new AgentApiError(response.status, "HTTP_ERROR", response.statusText);
      return (await response.json()) as Record<string, unknown>;
    },
  };
}
