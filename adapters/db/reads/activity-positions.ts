// The activity waker's reads of the activity log's positions: the newest overall, and the newest per
// owner past a position (with the table's newest, owner null, in the same round trip).
import { sql, type Kysely } from "kysely";
import type { Projections } from "../projections.js";

/** The newest position in the activity log (0 when empty). */
export async function newestActivityPosition(reads: Kysely<Projections>): Promise<bigint> {
  const row = await reads
    .selectFrom("activity")
    .select((eb) => eb.fn.max("position").as("position"))
    .executeTakeFirst();
  return row?.position == null ? 0n : BigInt(row.position);
}

/** Per owner with changes past `after`, its newest position; plus one row with owner null: the table's newest. */
export const activityOwnersAfter = (reads: Kysely<Projections>, after: bigint) =>
  reads
    .selectFrom("activity")
    .select((eb) => [sql<string | null>`owner`.as("owner"), eb.fn.max("position").as("position")])
    .where("position", ">", after)
    .groupBy("owner")
    .unionAll((eb) => eb.selectFrom("activity").select((eb2) => [sql<string | null>`null`.as("owner"), eb2.fn.max("position").as("position")]))
    .execute();
