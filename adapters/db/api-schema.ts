// Types of the API's own Postgres schema (default `agent_api`): the service's state that the chain
// does not hold. Written only by the API and the workers; the indexer never touches it.
//
// Conventions: owners are stored lowercase (answers checksum them with viem's getAddress); jsonb
// columns take and give plain values (postgres.js serialises them: never pass a JSON string, it
// would be stored as a JSON string); numeric columns read as decimal strings; timestamps as Dates.
import type { ColumnType, Insertable, Selectable } from "kysely";

export const DEFAULT_API_SCHEMA = "agent_api";

/** Schema names go into DDL: plain identifiers only. */
export function assertSchemaName(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}: letters, digits and _ only`);
  return schema;
}

type Json<T> = ColumnType<T, T, T>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Numeric = ColumnType<string, string | bigint | number, string | bigint | number>;

/** A prepared bundle as answered (the SignRequest); looked up by its id until it expires. */
export interface SignRequestTable {
  /** ≥128-bit random, base64url (`newSignRequestId`): the sign link's secret. */
  id: string;
  owner: string;
  /** The bundle kind (vault-deposit, up-vault-deposit, swap, ...). */
  kind: string;
  /** The stored prepare answer: steps, params, walletSendCalls... */
  bundle: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  expires_at: Timestamp;
  /** The client (rate-limit key) that prepared it: its live sign requests are bounded (migration 0010). */
  client: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A prepared bundle filed for the report card before it was answered. */
export interface FilingTable {
  id: string;
  sign_request_id: string | null;
  owner: string;
  agent_tag: string | null;
  kind: string;
  /** The steps {to, data, value} as answered; matched to mined calls by owner, target, calldata. */
  steps: Json<unknown[]>;
  /** The price read from the chain when filed. */
  chain_price: ColumnType<string | null, string | bigint | number | null | undefined, string | bigint | number | null>;
  created_at: CreatedAt;
  /** Not matched yet and its window not closed: the grading pass may still match it (migration 0008). */
  matchable: ColumnType<boolean, boolean | undefined, boolean>;
  /** keccak256 of the first acting step's target and calldata (domain/grading callKey): the pass's index. */
  call_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** Prepared with the owner's report-card session: the owner's own, it takes the credit. */
  owner_session: ColumnType<boolean, boolean | undefined, boolean>;
  /** Who prepared it (the rate limit's client key), for the cap on open filings per client. */
  client: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A position in an owner's activity feed; usable for 14 days. */
export interface ActivityCursorTable {
  id: string;
  owner: string;
  /** Position in the activity log up to which changes were answered. */
  position: Numeric;
  /** Hash of the block at `position`, to notice a reorg. */
  block_hash: string | null;
  /** Number of the block at `position` (null before the owner's first change). Migration 0002. */
  block_number: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  /** `{blocks: [[blockNumber, blockHash], ...]}` newest first: recent blocks whose changes were given. Migration 0002. */
  trail: ColumnType<{ blocks: [string, string][] }, { blocks: [string, string][] } | undefined, { blocks: [string, string][] }>;
  created_at: CreatedAt;
}

/** A report-card sign-in challenge: valid 5 minutes, used once. */
export interface SessionChallengeTable {
  id: string;
  owner: string;
  message: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A report-card session: only the token's SHA-256 is stored; valid one hour. */
export interface SessionTable {
  token_hash: string;
  owner: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
}

/** The latest result of a repeatable scan (grid tokens, ladder tokens...), one per (kind, key). */
export interface ScanResultTable {
  kind: string;
  key: string;
  payload: Json<unknown>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The genesis block hash of the chain the scan was made on (migration 0006); null: unknown. */
  chain: ColumnType<string | null, string | null | undefined, string | null>;
}

/** What the chain says about a filing: matched transaction, grading state and verdict. Migration 0003. */
export interface ReportActionTable {
  filing_id: string;
  owner: string;
  /** graded, waiting, not-graded, or unsigned (never matched: private card only). */
  state: string;
  reason: string | null;
  tx_hash: string | null;
  executed_block: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  executed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  hit: boolean | null;
  note: string;
  figures: Json<Record<string, unknown>>;
  graded_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** false: matched but credited to none (several agentTags, no session): private card only (migration 0008). */
  on_public_card: ColumnType<boolean, boolean | undefined, boolean>;
  /** Waiting: when the pass reads it again (chain time: its day or week, or a backstop look); migration 0011. */
  due_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Waiting: the keys of what it waits on (`order:<id>`, `deposit:<queue>:<id>`, `withdrawal:<queue>:<id>`). */
  waits_on: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
}

/** The newest block the last grading pass read the indexer's changes up to (migration 0011). */
export interface GradingMarkTable {
  id: string;
  block: ColumnType<string, string | bigint, string | bigint>;
}

/** The last whole grading pass: when it started and the newest mined call's time it covered (migration 0012). */
export interface GradingPassTable {
  id: string;
  started_at: ColumnType<Date, Date, Date>;
  covered_to: number;
}

export interface Database {
  sign_request: SignRequestTable;
  filing: FilingTable;
  activity_cursor: ActivityCursorTable;
  session_challenge: SessionChallengeTable;
  session: SessionTable;
  scan_result: ScanResultTable;
  report_action: ReportActionTable;
  grading_mark: GradingMarkTable;
  grading_pass: GradingPassTable;
  strategy_pick: StrategyPickTable;
  strategy_run: StrategyRunTable;
}

/** A daily pick of the strategy finder, followed on paper for 7 days (migration 0004). */
export interface StrategyPickTable {
  id: string;
  /** UTC day of the pick, YYYY-MM-DD. */
  day: string;
  rank: number;
  style: string;
  token: string;
  symbol: string;
  period_days: number;
  params: Json<Record<string, unknown>>;
  board_return_pct: number;
  start_price: number;
  started_at: Timestamp;
  paper: ColumnType<Record<string, unknown> | null, Record<string, unknown> | null | undefined, Record<string, unknown> | null>;
  done: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  /** The genesis block hash of the chain the pick was made on (migration 0009); null: unknown. */
  chain: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A logged on-demand run: a strategy-finder backtest (migration 0004), or a paid backtest or ranges
 * run with the transaction that settled its x402 payment (0007; identity_kind "payer"). */
export interface StrategyRunTable {
  id: ColumnType<string, never, never>;
  identity_kind: string | null;
  identity_value: string | null;
  token: string;
  strategy: string;
  input: Json<Record<string, unknown>>;
  summary: Json<Record<string, unknown>>;
  settlement_tx: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  /** The client (rate-limit key) that asked for the run: its runs of a day are bounded (migration 0010). */
  client: ColumnType<string | null, string | null | undefined, string | null>;
}

export type SignRequestRow = Selectable<SignRequestTable>;
export type NewSignRequest = Insertable<SignRequestTable>;
export type FilingRow = Selectable<FilingTable>;
export type NewFiling = Insertable<FilingTable>;
export type ActivityCursorRow = Selectable<ActivityCursorTable>;
export type SessionChallengeRow = Selectable<SessionChallengeTable>;
export type SessionRow = Selectable<SessionTable>;
export type ScanResultRow = Selectable<ScanResultTable>;
export type ReportActionRow = Selectable<ReportActionTable>;
