// What the read statements (adapters/db/reads/statement.ts) keep for one reads pool: each statement's text
// for its schema, its batcher, and what a caller keeps beside a statement (the account statement's copy of
// the shared rows). Made with the pool's Kysely (createProjectionsDb) and held by its dialect, so it lives,
// and is dropped, with that pool; a Kysely made without one (a test's) keeps nothing between statements.
export class ReadStatementState {
  /** The views schema the statements name their tables in. */
  readonly schema: string;
  /** A statement (its text function) → its text in `schema`. */
  readonly texts = new Map<object, string>();
  /** A statement → its batcher on this pool. */
  readonly batchers = new Map<object, unknown>();
  /** A statement → what its caller keeps on this pool beside it. */
  readonly kept = new Map<object, unknown>();
  constructor(schema: string) {
    this.schema = schema;
  }
}
