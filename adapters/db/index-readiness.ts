// Whether the index may be read now, known without a query per request. One per API or worker process.
//
// Ponder makes the views of VIEWS_SCHEMA (every projection, `_ponder_meta`, `_ponder_checkpoint`) in
// one transaction once its backfill is done, then marks its meta row `is_ready`. Before that (a fresh
// start) the views do not exist and a read fails with "relation does not exist"; after a devnet
// restart the indexer drops its schema, and the views with it (cascade). So, polled every `pollMs`:
//   ready = the views exist
//         && the meta row said is_ready once since they appeared (a latch: an indexer crash restart
//            re-creates the views over the same tables and resets is_ready; reads keep working meanwhile)
//         && on the devnet, the index is of the running chain (public.devnet_genesis, written by the
//            indexer, equals the RPC's genesis: until the indexer drops an old devnet's index, that
//            index is stale).
// `chain()` is the RPC's genesis hash (the chain's identity: each devnet start is a new chain with
// the same id); stored scans carry it, so a scan of another chain is never served.
import type { Sql } from "postgres";
import type { Logger } from "../logger.js";
import { assertSchemaName } from "./api-schema.js";
import { createPostgres } from "./connect.js";
import { ApiError } from "../../domain/errors.js";

export const DEFAULT_READINESS_POLL_MS = 500;
const UNCHECKED: ReadinessState = { ready: false, waiting: "the index has not been checked yet" };
/** How often the chain's genesis is read again while nothing else changed. */
const GENESIS_REFRESH_MS = 10_000;

export type IndexReadinessOptions = {
  url: string;
  viewsSchema: string;
  pollMs?: number;
  /** The chain's genesis block hash (an RPC read); absent: no chain identity (scans are not tied to a chain). */
  genesis?: () => Promise<string>;
  /** On the devnet: also require the index's recorded genesis (public.devnet_genesis) to be the chain's. */
  devnet?: boolean;
  logger?: Logger;
  applicationName?: string;
};

export type ReadinessState = {
  ready: boolean;
  /** Why not, in words (for logs and the 503's message). */
  waiting?: string;
  /** The views' identity (OID of their `_ponder_meta`): it changes whenever Ponder re-creates them. */
  generation?: string;
  chain?: string;
};

export class IndexReadiness {
  readonly viewsSchema: string;
  readonly #sql: Sql;
  readonly #pollMs: number;
  readonly #genesis?: () => Promise<string>;
  readonly #devnet: boolean;
  readonly #logger?: Logger;
  #state: ReadinessState = UNCHECKED;
  /** The meta row said is_ready since the views last appeared. */
  #latched = false;
  #chain: string | undefined;
  #chainReadAt = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #closed = false;
  readonly #listeners: ((state: ReadinessState) => void)[] = [];

  constructor(options: IndexReadinessOptions) {
    this.viewsSchema = assertSchemaName(options.viewsSchema);
    this.#pollMs = options.pollMs ?? DEFAULT_READINESS_POLL_MS;
    this.#genesis = options.genesis;
    this.#devnet = options.devnet ?? false;
    this.#logger = options.logger;
    this.#sql = createPostgres({ url: options.url, max: 1, applicationName: options.applicationName ?? "agent-readiness" });
  }

  /** Starts polling (idempotent); resolves after the first poll. */
  start(): Promise<void> {
    if (!this.#timer && !this.#closed) this.#schedule(0);
    return this.check();
  }

  /**
   * Starts polling and waits for the first look, but at most `maxMs`: a process serving reads looks
   * before it listens (an index already ready is served at once), and an RPC or a Postgres that does
   * not answer must not hold its start.
   */
  async startWithin(maxMs = 3000): Promise<void> {
    await Promise.race([this.start(), new Promise((resolve) => setTimeout(resolve, maxMs).unref())]);
  }

  /** True when reads of the index may be served (synchronous: no I/O per request). */
  ready(): boolean {
    return this.#state.ready;
  }

  state(): ReadinessState {
    return this.#state;
  }

  /** The running chain's genesis hash, when known. */
  chain(): string | undefined {
    return this.#chain;
  }

  /**
   * The chain whose stored scans may be served: its genesis hash; undefined where scans are not tied to a
   * chain (no genesis reader). 503 UNAVAILABLE while it is tied but unread (a start while the RPC was
   * down): a scan of another chain is never served for want of knowing this one.
   */
  scanChain(): string | undefined {
    if (this.#genesis && this.#chain === undefined)
      throw new ApiError("UNAVAILABLE", "The chain's identity (its genesis block) is not read yet: scans are served once the RPC answers", undefined, {
        retryAfterSeconds: 5,
      });
    return this.#chain;
  }

  /** Called with the new state whenever `ready`, the views' generation or the chain changes. */
  onChange(listener: (state: ReadinessState) => void): this {
    this.#listeners.push(listener);
    return this;
  }

  /** A read found a view missing: stop serving at once and look again now. */
  viewsMissing(): void {
    if (this.#state.ready) this.#set({ ready: false, waiting: "the views are missing", chain: this.#chain });
    this.#latched = false;
    void this.check();
  }

  /** Polls now (joins a poll in flight). */
  check(): Promise<void> {
    this.#polling ??= this.#poll().finally(() => (this.#polling = undefined));
    return this.#polling;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#sql.end({ timeout: 1 }).catch(() => {});
  }

  #schedule(delay: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.check().finally(() => this.#schedule(this.#pollMs)), delay);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#set(await this.#read());
    } catch (error) {
      // Postgres down: reads fail on their own (503 by the error handler); keep the last state.
      this.#logger?.debug({ err: (error as Error).message }, "index readiness: poll failed");
    }
  }

  async #read(): Promise<ReadinessState> {
    const sql = this.#sql;
    const views = this.viewsSchema;
    const [row] = await sql<{ meta: string | null; marker: string | null }[]>`
      select (select c.oid::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
                where n.nspname = ${views} and c.relname = '_ponder_meta') as meta,
             to_regclass('public.devnet_genesis')::text as marker`;
    if (!row?.meta) {
      this.#latched = false;
      return { ready: false, waiting: "the indexer has not made its views yet (backfill under way)", chain: await this.#readChain(false) };
    }
    let isReady = false;
    try {
      const [meta] = await sql<{ ready: string | null }[]>`select value->>'is_ready' as ready from ${sql(views)}."_ponder_meta" where key = 'app'`;
      isReady = meta?.ready === "1";
    } catch (error) {
      if ((error as { code?: string }).code !== "42P01") throw error;
      this.#latched = false; // dropped between the two statements
      return { ready: false, waiting: "the views are being re-created", chain: this.#chain };
    }
    const generation = row.meta;
    // A new generation of views: read the chain again before serving from it.
    const chain = await this.#readChain(generation !== this.#state.generation);
    if (this.#devnet && row.marker && chain) {
      const [marker] = await sql<{ hash: string }[]>`select hash from public.devnet_genesis limit 1`;
      if (marker && marker.hash.toLowerCase() !== chain.toLowerCase()) {
        this.#latched = false;
        return { ready: false, waiting: "the index is of an earlier devnet (the indexer has not dropped it yet)", generation, chain };
      }
    }
    if (isReady) this.#latched = true;
    return this.#latched ? { ready: true, generation, chain } : { ready: false, waiting: "the indexer is catching up", generation, chain };
  }

  /** The genesis hash, read again every GENESIS_REFRESH_MS or when `now`; the last known one when the RPC fails. */
  async #readChain(now: boolean): Promise<string | undefined> {
    if (!this.#genesis) return undefined;
    if (!now && performance.now() - this.#chainReadAt < GENESIS_REFRESH_MS) return this.#chain;
    try {
      this.#chain = (await this.#genesis()).toLowerCase();
      this.#chainReadAt = performance.now();
    } catch (error) {
      this.#logger?.debug({ err: (error as Error).message }, "index readiness: genesis unread");
    }
    return this.#chain;
  }

  #set(next: ReadinessState): void {
    const last = this.#state;
    this.#state = next;
    // The first look, not ready: an expected state (a fresh start, a backfill), said once at info.
    if (last === UNCHECKED && !next.ready)
      this.#logger?.info({ waiting: next.waiting }, "waiting for the index: reads answer 503 UNAVAILABLE until it is ready");
    if (next.ready === last.ready && next.generation === last.generation && next.chain === last.chain) return;
    if (next.ready !== last.ready) {
      if (next.ready) this.#logger?.info({ generation: next.generation, chain: next.chain }, "index ready: reads served");
      else this.#logger?.warn({ waiting: next.waiting }, "index not ready: reads answer 503 UNAVAILABLE");
    }
    for (const listener of this.#listeners) {
      try {
        listener(next);
      } catch (error) {
        this.#logger?.warn({ err: (error as Error).message }, "index readiness listener failed");
      }
    }
  }
}

/** The genesis block hash of the chain `client` reads. */
export async function genesisHash(client: { getBlock(args: { blockNumber: bigint }): Promise<{ hash: `0x${string}` | null }> }): Promise<string> {
  const block = await client.getBlock({ blockNumber: 0n });
  if (!block.hash) throw new Error("the chain's genesis block has no hash");
  return block.hash;
}
