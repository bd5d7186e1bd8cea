// Candle and snapshot windows for backtests, planners and scans: the rows of a time window and the last
// one before it (whose close carries in), the charted tokens, and the hourly closes of a basket's tokens.
import type { Kysely, SelectQueryBuilder } from "kysely";
import type { Projections } from "../projections.js";

type Reads = Kysely<Projections>;
type Hex = `0x${string}`;

export type CandleTable = "candle10m" | "candle1h";
const CANDLE_COLUMNS = ["start", "open", "high", "low", "close", "volumeUsdg", "trades"] as const;

/** The rows of `base` with `column` in [from, to], oldest first, and the last one before `from`. */
async function windowWithCarryIn<Row>(base: () => SelectQueryBuilder<any, any, Row>, column: string, from: number, to: number) {
  const [rows, before] = await Promise.all([
    base().where(column, ">=", from).where(column, "<=", to).orderBy(column, "asc").execute(),
    base().where(column, "<", from).orderBy(column, "desc").limit(1).executeTakeFirst(),
  ]);
  return { rows, before };
}

/** Candles of `token` with start in [from, to], and the last candle before `from`. */
export const readCandleWindow = (reads: Reads, table: CandleTable, token: string, from: number, to: number) =>
  windowWithCarryIn(
    () =>
      reads
        .selectFrom(table)
        .select([...CANDLE_COLUMNS])
        .where("token", "=", token.toLowerCase() as Hex),
    "start",
    from,
    to,
  );

/** Whether `token` has a candle that starts at or before `at`. */
export async function hasCandleBy(reads: Reads, table: CandleTable, token: string, at: number): Promise<boolean> {
  const row = await reads
    .selectFrom(table)
    .select("start")
    .where("token", "=", token.toLowerCase() as Hex)
    .where("start", "<=", at)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A vault's snapshots with timestamp in [from, to], and the last one before `from`. */
export const readVaultSnapshotWindow = (reads: Reads, vault: string, from: number, to: number) =>
  windowWithCarryIn(
    () =>
      reads
        .selectFrom("vaultSnapshot")
        .select(["timestamp", "totalAssets", "totalSupply"])
        .where("vault", "=", vault.toLowerCase() as Hex),
    "timestamp",
    from,
    to,
  );

export type ChartedToken = { address: string; symbol: string; category: string; verified: boolean };

const chartedTokens = (reads: Reads) => reads.selectFrom("token").select(["address", "symbol", "category", "verified"]).where("pool", "is not", null);

/** Tokens with a USDG market (the charted ones), by address. */
export async function readChartedTokens(reads: Reads): Promise<ChartedToken[]> {
  const rows = await chartedTokens(reads).orderBy("address").execute();
  return rows.map((r) => ({ address: r.address, symbol: r.symbol, category: r.category, verified: r.verified }));
}

export async function readChartedToken(reads: Reads, token: string): Promise<ChartedToken | undefined> {
  const r = await chartedTokens(reads)
    .where("address", "=", token.toLowerCase() as Hex)
    .executeTakeFirst();
  return r && { address: r.address, symbol: r.symbol, category: r.category, verified: r.verified };
}

/** Every token's address, symbol, name and category (the basket planner's labels). */
export const readTokenLabels = (reads: Reads) => reads.selectFrom("token").select(["address", "symbol", "name", "category"]).execute();

/** The latest hourly candle start of any of `tokens` (0 when none). */
export async function latestHourlyStart(reads: Reads, tokens: string[]): Promise<number> {
  const latest = await reads
    .selectFrom("candle1h")
    .select((eb) => eb.fn.max("start").as("start"))
    .where("token", "in", tokens as Hex[])
    .executeTakeFirst();
  return Number(latest?.start ?? 0);
}

/** The hourly closes of `tokens` with start in [from, to], oldest first. */
export const readHourlyCloses = (reads: Reads, tokens: string[], from: number, to: number) =>
  reads
    .selectFrom("candle1h")
    .select(["token", "start", "close"])
    .where("token", "in", tokens as Hex[])
    .where("start", ">=", from)
    .where("start", "<=", to)
    .orderBy("start")
    .execute();

/** The listed baskets' address, name, symbol and tokens. */
export const readListedBasketTokens = (reads: Reads) =>
  reads.selectFrom("basket").select(["address", "name", "symbol", "tokens"]).where("listed", "=", true).execute();
