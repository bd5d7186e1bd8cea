// The devnet's faucet: what a testnet faucet does, for chain 4663 on this machine. POST /fund gives a wallet
// ETH for gas, USDG, and any listed token asked for (GET / says what and how much). It lives only in the
// devnet's process (`npm run devnet`, and so `npm start` without RPC_URL): a service on a real chain never
// starts it. The devnet is shared by whoever reaches it, so each client (its socket address; an IPv6 one by
// its /64) gets a bounded number of grants a window, whatever wallets it names: a named wallet is a claim.
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { formatUnits, getAddress, isAddress, parseEther, parseUnits, type Address, type Hex } from "viem";
import { testTokenAbi, weth9Abi } from "../abis/index.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { listedToken } from "../adapters/chain/token-list.js";
import { clientNetwork } from "../api/middleware/rate-limit.js";
import { accountAddress, roles } from "./chain.js";
import type { DeployContext } from "./deploy/context.js";
import { devnetTokens } from "./tokens.js";

export const FAUCET_LIMITS = {
  /** Grants one client may take a window. */
  grantsPerWindow: 10,
  windowMs: 3_600_000,
  /** Most of each asset one grant gives. A token's cap is its worth in USDG at the devnet's start price. */
  maxEth: "10",
  maxUsdg: "10000",
  maxTokenUsdg: 10_000,
  /** What a grant gives when the request does not say: ETH for gas and USDG; a token asked for without an amount: its worth in USDG. */
  defaultEth: "1",
  defaultUsdg: "1000",
  defaultTokenUsdg: 1_000,
  /** Grants waiting for their turn (each is a few transactions, sent one after another). */
  maxWaiting: 32,
} as const;

/** The limits' shape, each a number or a decimal string of its own (FAUCET_LIMITS is one choice of them). */
type Limits = { [K in keyof typeof FAUCET_LIMITS]: (typeof FAUCET_LIMITS)[K] extends number ? number : string };
type Asset = { symbol: string; address: Address | null; decimals: number; max: string; default: string };
type Grant = { to: Address; items: { asset: Asset; units: bigint }[] };
type Refusal = { status: 400 | 422 | 429; code: string; error: string; details?: Record<string, unknown>; retryAfter?: number };

const DECIMAL = /^\d{1,30}(\.\d{1,30})?$/;
/** A whole-unit figure of `usdg` USDG worth of a token priced `price`, with at most 6 significant decimals. */
const worth = (usdg: number, price: number) => String(Number((usdg / price).toPrecision(6)));

/** What the faucet gives: ETH, USDG and every listed token deployed on this devnet, by symbol. */
export function faucetAssets(deployments: Deployments, limits: Limits = FAUCET_LIMITS): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  assets.set("ETH", { symbol: "ETH", address: null, decimals: 18, max: limits.maxEth, default: limits.defaultEth });
  for (const token of deployments.tokens) {
    if (!listedToken(token.address)) continue; // unlisted tokens (SCAM) are no faucet's business
    const price = token.symbol === "USDG" ? 1 : devnetTokens.find((t) => t.symbol === token.symbol)?.startPrice;
    if (price === undefined) continue;
    const max = token.symbol === "USDG" ? limits.maxUsdg : worth(limits.maxTokenUsdg, price);
    const fallback = token.symbol === "USDG" ? limits.defaultUsdg : worth(limits.defaultTokenUsdg, price);
    assets.set(token.symbol, { symbol: token.symbol, address: token.address, decimals: token.decimals, max, default: fallback });
  }
  return assets;
}

/** Reads a request body into a grant, or says what is wrong with it (the field at fault). */
export function parseGrant(body: unknown, assets: Map<string, Asset>): Grant | Refusal {
  const invalid = (field: string, error: string): Refusal => ({ status: 400, code: "INVALID_REQUEST", error: `${field}: ${error}`, details: { field } });
  if (!body || typeof body !== "object" || Array.isArray(body))
    return invalid("body", 'must be a JSON object: {"address": "0x…", "usdg": "1000", "tokens": {"WETH": "1"}}');
  const b = body as Record<string, unknown>;
  if (typeof b.address !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(b.address) || !isAddress(b.address, { strict: false }))
    return invalid("address", "must be an address: 0x followed by 40 hexadecimal characters");
  const unknown = Object.keys(b).filter((k) => !["address", "eth", "usdg", "tokens"].includes(k));
  if (unknown.length) return invalid(unknown[0]!, "is not a field of a faucet request (address, eth, usdg, tokens)");
  const asked: [string, string, unknown][] = [
    ["eth", "ETH", b.eth ?? assets.get("ETH")!.default],
    ["usdg", "USDG", b.usdg ?? assets.get("USDG")!.default],
  ];
  if (b.tokens !== undefined) {
    if (!b.tokens || typeof b.tokens !== "object" || Array.isArray(b.tokens))
      return invalid("tokens", 'must be an object of symbols and amounts: {"WETH": "1"}');
    for (const [symbol, amount] of Object.entries(b.tokens as Record<string, unknown>)) {
      const asset = [...assets.values()].find((a) => a.symbol.toLowerCase() === symbol.toLowerCase() || a.address?.toLowerCase() === symbol.toLowerCase());
      if (!asset || asset.symbol === "ETH" || asset.symbol === "USDG") {
        const listed = [...assets.keys()].filter((s) => s !== "ETH" && s !== "USDG");
        if (asset) return invalid(`tokens.${symbol}`, `ask for ${asset.symbol} with the ${asset.symbol.toLowerCase()} field`);
        return {
          status: 422,
          code: "UNKNOWN_TOKEN",
          error: `Unknown token: ${symbol} is no listed token of this devnet`,
          details: { field: `tokens.${symbol}`, listed },
        };
      }
      asked.push([`tokens.${symbol}`, asset.symbol, amount === null || amount === "" ? asset.default : amount]);
    }
  }
  const items: Grant["items"] = [];
  for (const [field, symbol, raw] of asked) {
    const asset = assets.get(symbol)!;
    const text = typeof raw === "number" && Number.isFinite(raw) ? String(raw) : raw;
    if (typeof text !== "string" || !DECIMAL.test(text)) return invalid(field, `must be a decimal amount of ${symbol} in whole units, such as "1.5"`);
    if ((text.split(".")[1]?.length ?? 0) > asset.decimals) return invalid(field, `${symbol} has ${asset.decimals} decimals`);
    const units = parseUnits(text, asset.decimals);
    if (units > parseUnits(asset.max, asset.decimals)) return invalid(field, `at most ${asset.max} ${symbol} a request`);
    if (units > 0n) items.push({ asset, units });
  }
  if (items.length === 0) return invalid("body", "asks for nothing");
  return { to: getAddress(b.address), items };
}

/** Grants per client over a sliding window, in this process (the devnet is one process). */
export function grantLimiter(limits: Pick<Limits, "grantsPerWindow" | "windowMs">, now: () => number = Date.now) {
  const grants = new Map<string, number[]>();
  return {
    /** Takes one grant for `client`; undefined when it may, else the seconds until it may again. */
    take(client: string): number | undefined {
      const t = now();
      const recent = (grants.get(client) ?? []).filter((at) => at > t - limits.windowMs);
      if (recent.length >= limits.grantsPerWindow) {
        grants.set(client, recent);
        return Math.max(1, Math.ceil((recent[0]! + limits.windowMs - t) / 1000));
      }
      recent.push(t);
      grants.set(client, recent);
      return undefined;
    },
    remaining(client: string): number {
      const t = now();
      return limits.grantsPerWindow - (grants.get(client) ?? []).filter((at) => at > t - limits.windowMs).length;
    },
  };
}

/** Sends what a grant gives: ETH from the faucet's own account, tokens minted by the admin (WETH wrapped by the faucet). */
async function give(ctx: DeployContext, deployments: Deployments, grant: Grant): Promise<Hex[]> {
  const faucet = accountAddress(roles.faucet);
  const wallet = ctx.chain.walletFor(roles.faucet);
  const sent: Hex[] = [];
  for (const { asset, units } of grant.items) {
    if (asset.address === null) {
      const hash = await wallet.sendTransaction({ to: grant.to, value: units, chain: null, account: faucet });
      await ctx.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      sent.push(hash);
    } else if (asset.address === deployments.contracts.weth) {
      const hash = await wallet.writeContract({ address: asset.address, abi: weth9Abi, functionName: "deposit", value: units, chain: null, account: faucet });
      await ctx.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      sent.push(hash, await ctx.send(asset.address, testTokenAbi, "transfer", [grant.to, units], faucet));
    } else {
      sent.push(await ctx.send(asset.address, testTokenAbi, "mint", [grant.to, units]));
    }
  }
  return sent;
}

/** The client a request comes from, by its socket: never a header or a field it could write itself. */
const clientOf = (c: Context) => {
  try {
    return clientNetwork(getConnInfo(c).remote.address ?? "unknown");
  } catch {
    return "unknown";
  }
};

/** The faucet as a Hono app over the devnet's chain (in this process) and its deployments. */
export function faucetApp(ctx: DeployContext, deployments: Deployments, limits: Limits = FAUCET_LIMITS) {
  const assets = faucetAssets(deployments, limits);
  const limiter = grantLimiter(limits);
  let waiting = 0;
  let queue: Promise<unknown> = Promise.resolve();
  // One grant at a time: each is a few transactions from the same accounts.
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };
  const refuse = (c: Context, r: Refusal) => {
    if (r.retryAfter) c.header("Retry-After", String(r.retryAfter));
    return c.json({ error: r.error, code: r.code, ...(r.details ? { details: r.details } : {}) }, r.status);
  };
  const catalog = [...assets.values()].map((a) => ({ symbol: a.symbol, address: a.address, default: a.default, max: a.max }));

  return new Hono()
    .get("/", (c) =>
      c.json({
        data: {
          fund: 'POST /fund {"address": "0x…", "eth": "1", "usdg": "1000", "tokens": {"WETH": "0.3"}} (eth and usdg have defaults; tokens by symbol or address)',
          assets: catalog,
          limits: { grantsPerClient: limits.grantsPerWindow, windowSeconds: limits.windowMs / 1000, remaining: limiter.remaining(clientOf(c)) },
        },
      }),
    )
    .post(
      "/fund",
      bodyLimit({ maxSize: 4096, onError: (c) => refuse(c, { status: 400, code: "INVALID_REQUEST", error: "body: over 4 KiB", details: { field: "body" } }) }),
      async (c) => {
        const body = await c.req.json().catch(() => undefined);
        const grant = parseGrant(body, assets);
        if ("status" in grant) return refuse(c, grant);
        if (waiting >= limits.maxWaiting)
          return refuse(c, { status: 429, code: "BUSY", error: "The faucet has too many grants waiting: retry shortly", retryAfter: 1 });
        const client = clientOf(c);
        const wait = limiter.take(client);
        if (wait !== undefined)
          return refuse(c, {
            status: 429,
            code: "RATE_LIMITED",
            error: `This client has taken its ${limits.grantsPerWindow} grants of the last ${limits.windowMs / 60_000} minutes: retry after ${wait} s`,
            retryAfter: wait,
          });
        waiting++;
        try {
          const transactions = await serially(() => give(ctx, deployments, grant));
          const given = grant.items.map(({ asset, units }) => ({
            symbol: asset.symbol,
            address: asset.address,
            amount: formatUnits(units, asset.decimals),
            amountUnits: String(units),
          }));
          return c.json({ data: { address: grant.to, given, transactions, remaining: limiter.remaining(client) } });
        } catch (error) {
          return c.json({ error: `The grant failed: ${(error as Error).message.split("\n")[0]}`, code: "INTERNAL" }, 500);
        } finally {
          waiting--;
        }
      },
    );
}

/** Gives the faucet's account its ETH and serves the faucet on host:port; resolves once listening. */
export async function startFaucet(ctx: DeployContext, deployments: Deployments, hostname: string, port: number): Promise<{ close(): Promise<void> }> {
  await ctx.chain.testClient.setBalance({ address: accountAddress(roles.faucet), value: parseEther("1000000000") });
  const app = faucetApp(ctx, deployments);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port }, () => resolve({ close: () => new Promise<void>((done) => server.close(() => done())) }));
    server.once("error", reject);
  });
}
