// Activity cursors as stored (`activity_cursor` in the API's schema, usable for 14 days): the store of one
// process (find a live one, read a poll at one, save one, store a derived one), the sweep of expired ones,
// and the in-process cache of rows that never change once stored. The poll logic is usecases/activity/cursors.ts.
import { type Kysely, sql } from "kysely";
import { LRUCache } from "lru-cache";
import type { ActivityCursorRow, Database } from "./api-schema.js";
import { Batcher } from "./batcher.js";
import type { Projections } from "./projections.js";
import { type ActivityRow, BLOCKS_JSON, type BlockRef, CHANGE_JSON, parsePoll, readPoll } from "./reads/activity.js";
import { runBatched, runStatement, type StatementText } from "./reads/statement.js";
import { POSITIONS_PER_BLOCK } from "../../domain/activity-position.js";
import { CURSOR_TTL_MS } from "../../contract/accounts.js";

/** What a cursor id looks like; anything else is unknown without a lookup. */
export const CURSOR_ID = /^[A-Za-z0-9_-]{22,64}$/;

/** One in this many issued cursors also sweeps expired ones. */
const SWEEP_EVERY = 100;
const SWEEP_BATCH = 1000;

export type ActivityCursor = {
  id: string;
  /** Lowercase owner. */
  owner: string;
  /** Changes at or below this position were given (or predate the baseline). */
  position: bigint;
  /** Recent blocks whose changes were given, newest first (the block of `position` first). */
  trail: BlockRef[];
  createdAt: Date;
};

function fromRow(row: Pick<ActivityCursorRow, "id" | "owner" | "position" | "trail" | "created_at">): ActivityCursor {
  const blocks = (row.trail as { blocks?: [string, string][] } | null)?.blocks ?? [];
  return {
    id: row.id,
    owner: row.owner,
    position: BigInt(row.position),
    trail: blocks.map(([number, hash]) => ({ number: BigInt(number), hash })),
    createdAt: row.created_at,
  };
}

/** True when `cursor` belongs to `owner` (lowercase) and is younger than 14 days at `now`. */
export const isLiveFor = (cursor: ActivityCursor, owner: string, now: Date): boolean =>
  cursor.owner === owner && cursor.createdAt.getTime() > now.getTime() - CURSOR_TTL_MS;

/**
 * Cursor rows kept in process: a row never changes once stored (an insert of an existing id does
 * nothing), so a poll with a known cursor skips its SELECT (owner and expiry are still checked on
 * every use), and a derived cursor known to be stored skips its INSERT. One per API process.
 */
export class CursorCache {
  readonly #found: LRUCache<string, ActivityCursor>;
  readonly #stored: LRUCache<string, true>;

  constructor(maxEntries: number) {
    this.#found = new LRUCache({ max: Math.max(1, maxEntries) });
    this.#stored = new LRUCache({ max: Math.max(1, maxEntries) });
  }

  get(id: string): ActivityCursor | undefined {
    return this.#found.get(id);
  }

  remember(cursor: ActivityCursor): void {
    this.#found.set(cursor.id, cursor);
    this.#stored.set(cursor.id, true);
  }

  isStored(id: string): boolean {
    return this.#stored.has(id);
  }

  markStored(id: string): void {
    this.#stored.set(id, true);
  }
}

/** What a poll at a cursor reads: the cursor, its owner's blocks over its trail, the changes after it. */
export type PollAtCursor = { cursor: ActivityCursor; blocks: BlockRef[]; changes: ActivityRow[] };

export type CursorStoreOptions = {
  /** The API's schema, where `activity_cursor` is. */
  db: Kysely<Database>;
  /** The projections, where a poll reads the owner's changes. */
  reads: Kysely<Projections>;
  /** Cursor rows kept in process (absent: every lookup reads the table). */
  cache?: CursorCache;
};

/**
 * The activity cursors of one API process: made once at start (by the activity feed) over its pools and
 * its cache, and holding what it learns once (its table's qualified name, whether the reads pool sees that
 * table) and the writer that stores derived cursors by group commit.
 */
export class CursorStore {
  readonly #db: Kysely<Database>;
  readonly #reads: Kysely<Projections>;
  readonly #cache: CursorCache | undefined;
  readonly #pollStatement: StatementText;
  readonly #writer: Batcher<CursorRow, Date | undefined>;
  #sharesDatabase: Promise<boolean> | undefined;

  constructor({ db, reads, cache }: CursorStoreOptions) {
    this.#db = db;
    this.#reads = reads;
    this.#cache = cache;
    this.#pollStatement = pollByCursorStatement(cursorTable(db));
    this.#writer = cursorWriter(db);
  }

  /** The cursor with this id when it exists, belongs to `owner` and is younger than 14 days at `now`. */
  async find(id: string, owner: string, now: Date): Promise<ActivityCursor | undefined> {
    if (!CURSOR_ID.test(id)) return undefined;
    const known = this.#cache?.get(id);
    if (known) return isLiveFor(known, owner.toLowerCase(), now) ? known : undefined;
    const row = await this.#db
      .selectFrom("activity_cursor")
      .selectAll()
      .where("id", "=", id)
      .where("owner", "=", owner.toLowerCase())
      .where("created_at", ">", new Date(now.getTime() - CURSOR_TTL_MS))
      .executeTakeFirst();
    if (!row) return undefined;
    const cursor = fromRow(row);
    this.#cache?.remember(cursor);
    return cursor;
  }

  /**
   * The cursor with this id when it is live for `owner` (as `find`), and what a poll at it reads (readPoll
   * over its trail, up to `limit` changes after its position). A cursor held in the cache costs the poll
   * statement alone; any other is read in that same statement, and then kept.
   */
  async readPollAt(id: string, owner: string, now: Date, limit: number): Promise<PollAtCursor | undefined> {
    if (!CURSOR_ID.test(id)) return undefined;
    // Held (`find` answers from the cache), or out of the statement's reach: the cursor, then the poll.
    if (this.#cache?.get(id) || !(await this.#sharesDatabaseWithReads())) {
      const cursor = await this.find(id, owner, now);
      return cursor && { cursor, ...(await readPoll(this.#reads, owner, cursor.position, limit, trailRange(cursor))) };
    }
    const row = await runBatched<{ cursor: string | null; blocks: string; changes: string }>(this.#reads, this.#pollStatement, {
      id,
      owner: owner.toLowerCase(),
      created_after: new Date(now.getTime() - CURSOR_TTL_MS).toISOString(),
      lim: limit,
    });
    if (!row?.cursor) return undefined;
    // The row as JSON: its time as text.
    const wire = JSON.parse(row.cursor) as Pick<ActivityCursorRow, "id" | "owner" | "position" | "trail"> & { created_at: string };
    const cursor = fromRow({ ...wire, created_at: new Date(wire.created_at) });
    this.#cache?.remember(cursor);
    return { cursor, ...parsePoll(row) };
  }

  /**
   * Stores a cursor (created now) unless one with its id exists, and answers the stored one (kept in the
   * cache): a derived id seen before keeps its first creation time.
   */
  async save(cursor: Omit<ActivityCursor, "createdAt">, now: Date): Promise<ActivityCursor> {
    // A repeated baseline known in this process: no statement at all.
    const known = this.#cache?.get(cursor.id);
    if (known) return known;
    const row = await this.#db
      .insertInto("activity_cursor")
      .values(cursorRow(cursor, now))
      .onConflict((oc) => oc.column("id").doNothing())
      .returningAll()
      .executeTakeFirst();
    const stored = row ?? (await this.#db.selectFrom("activity_cursor").selectAll().where("id", "=", cursor.id).executeTakeFirstOrThrow());
    if (Math.floor(Math.random() * SWEEP_EVERY) === 0) await sweepExpiredCursors(this.#db, now);
    const saved = fromRow(stored);
    this.#cache?.remember(saved);
    return saved;
  }

  /**
   * Stores a derived cursor unless one with its id exists (a repeated poll), and resolves once the row is
   * committed (so the agent's next poll finds it on any replica); no re-select, since a poll answers only
   * the id (deterministic) and its parent's creation time. A row this call inserted is kept in the cache
   * whole, so the agent's next poll with it selects nothing; one that existed is only marked stored (its
   * creation time is the first insert's, not known here). Concurrent calls share one INSERT (below).
   */
  async storeDerived(cursor: Omit<ActivityCursor, "createdAt">, now: Date): Promise<void> {
    if (this.#cache?.isStored(cursor.id)) return;
    const row = cursorRow(cursor, now);
    const createdAt = await this.#writer.load(row);
    if (createdAt) this.#cache?.remember({ ...cursor, owner: row.owner, createdAt });
    else this.#cache?.markStored(cursor.id);
  }

  /**
   * Whether the reads pool connects to the database that holds the cursor table, asked once. The service
   * gives both the one DATABASE_URL; tests may put the API's schema in a database of its own, and a reads
   * pool that runs nothing (a test's, with no projections) answers no row. A failed answer is asked again.
   */
  #sharesDatabaseWithReads(): Promise<boolean> {
    if (!this.#sharesDatabase) {
      const answer = Promise.all([
        sql<{ name: string }>`select current_database() as name`.execute(this.#db),
        runStatement<{ name: string }>(this.#reads, currentDatabase, []),
      ]).then(([mine, theirs]) => mine.rows[0]?.name !== undefined && mine.rows[0].name === theirs[0]?.name);
      answer.catch(() => {
        if (this.#sharesDatabase === answer) this.#sharesDatabase = undefined;
      });
      this.#sharesDatabase = answer;
    }
    return this.#sharesDatabase;
  }
}

/** The qualified name of `db`'s cursor table (its schema read off a compiled query). */
function cursorTable(db: Kysely<Database>): string {
  return /from ("[^"]+"\."activity_cursor"|"activity_cursor")/.exec(db.selectFrom("activity_cursor").select("id").compile().sql)?.[1] ?? '"activity_cursor"';
}

// Polls whose cursor this process does not hold, one round trip for all those asked at the same moment
// (runBatched): entries `{id, owner, created_after, lim}`; per entry, the cursor row (live for its owner), the
// owner's blocks over its trail (the reorg check) and up to `lim` changes after its position. The trail's blocks
// are stored newest first. LATERAL: each half reads the (owner, position) key from the cursor's position, never
// all of the owner's rows; with no live cursor both halves read nothing.
function pollByCursorStatement(cursors: string): StatementText {
  return (t) => `
select o.i,
  case when k.id is not null then json_build_object('id', k.id, 'owner', k.owner, 'position', k.position::text, 'trail', k.trail, 'created_at', k.created_at)::text end as cursor,
  (select ${BLOCKS_JSON}
     from (select distinct a.block_number, a.block_hash from ${t("activity")} a
           where k.trail_from is not null and a.owner = o.owner and a.position >= k.trail_from and a.position <= k.trail_to) b)::text as blocks,
  (select coalesce(json_agg(${CHANGE_JSON} order by c.position), '[]')
     from (select a.* from ${t("activity")} a where a.owner = o.owner and a.position > k.position order by a.position limit o.lim) c)::text as changes
from jsonb_to_recordset($1::text::jsonb) as o(i int, id text, owner text, created_after timestamptz, lim int)
left join lateral (
  select k.*, (k.trail->'blocks'->-1->>0)::numeric * ${POSITIONS_PER_BLOCK} as trail_from, ((k.trail->'blocks'->0->>0)::numeric + 1) * ${POSITIONS_PER_BLOCK} - 1 as trail_to
  from ${cursors} k where k.id = o.id and k.owner = o.owner and k.created_at > o.created_after) k on true`;
}
const currentDatabase: StatementText = () => "select current_database() as name";

/** The blocks a cursor's trail spans, oldest to newest; undefined for an empty trail. */
function trailRange(cursor: ActivityCursor): { fromBlock: bigint; toBlock: bigint } | undefined {
  const newest = cursor.trail[0];
  const oldest = cursor.trail[cursor.trail.length - 1];
  return newest && oldest ? { fromBlock: oldest.number, toBlock: newest.number } : undefined;
}

/** A cursor as its activity_cursor row. */
function cursorRow(cursor: Omit<ActivityCursor, "createdAt">, now: Date) {
  const head = cursor.trail[0];
  return {
    id: cursor.id,
    owner: cursor.owner.toLowerCase(),
    position: cursor.position.toString(),
    block_number: head ? head.number.toString() : null,
    block_hash: head ? head.hash : null,
    trail: { blocks: cursor.trail.map((b) => [b.number.toString(), b.hash] as [string, string]) },
    created_at: now,
  };
}

type CursorRow = ReturnType<typeof cursorRow>;

/**
 * The derived cursors of one store, stored by group commit (adapters/db/batcher.ts), one INSERT at a time:
 * each resolves to its row's creation time when its row was inserted, undefined when the id existed (or
 * an earlier row of the same batch had it). One in SWEEP_EVERY rows also sweeps expired cursors, after
 * its batch is answered.
 */
function cursorWriter(db: Kysely<Database>): Batcher<CursorRow, Date | undefined> {
  let sinceSweep = 0;
  return new Batcher(
    async (rows) => {
      const inserted = await insertCursors(db, rows);
      sinceSweep += rows.length;
      if (sinceSweep >= SWEEP_EVERY) {
        sinceSweep = 0;
        // At the callers' clock (the batch's newest `now`). A failed sweep is not the polls' failure: the
        // next one, or the purge job, sweeps what it left.
        void sweepExpiredCursors(db, rows[rows.length - 1]!.created_at).catch(() => {});
      }
      return rows.map((row) => {
        const createdAt = inserted.get(row.id);
        // One row per id: a second poll for an id this batch inserted learns it stored, not created.
        inserted.delete(row.id);
        return createdAt;
      });
    },
    { maxBatch: 500, maxInFlight: 1 },
  );
}

/**
 * Inserts the rows whose id is new; answers the creation time of each row inserted, by id. The rows go as
 * one JSON array (one statement text, and one generic plan, whatever their count), inserted in id order:
 * two replicas storing the same ids in different orders each waited on a row the other had just inserted
 * (Postgres "deadlock detected", 500s in the soak of issue 52); in one order the second only waits.
 */
async function insertCursors(db: Kysely<Database>, rows: CursorRow[]): Promise<Map<string, Date>> {
  const inserted = await db
    .insertInto("activity_cursor")
    .columns(["id", "owner", "position", "block_number", "block_hash", "trail", "created_at"])
    .expression(
      sql`select u.id, u.owner, u.position, u.block_number, u.block_hash, u.trail, u.created_at
        from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb)
        as u(id text, owner text, position numeric, block_number numeric, block_hash text, trail jsonb, created_at timestamptz)
        order by u.id`,
    )
    .onConflict((oc) => oc.column("id").doNothing())
    .returning(["id", "created_at"])
    .execute();
  return new Map(inserted.map((r) => [r.id, r.created_at]));
}

/** Deletes up to `limit` cursors that expired before `now`; answers how many. */
export async function sweepExpiredCursors(db: Kysely<Database>, now: Date, limit = SWEEP_BATCH): Promise<number> {
  const cutoff = new Date(now.getTime() - CURSOR_TTL_MS);
  // `= any(array(…))`, not `in (…)`: the rows go by primary key, where a table not yet analyzed (a young
  // deployment's) gets `in` planned as a hash join over a scan of every cursor.
  const result = await db
    .deleteFrom("activity_cursor")
    .where(
      ({ ref, selectFrom }) =>
        sql<boolean>`${ref("id")} = any(array${selectFrom("activity_cursor").select("id").where("created_at", "<=", cutoff).limit(limit)})`,
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
