// The prepare resolvers' vault look-ups: a vault's projection row, and one pending-queue request
// (deposit or withdrawal) of a queue by id.
import type { Kysely } from "kysely";
import type { Projections } from "../projections.js";

type Reads = Kysely<Projections>;

export const vaultRowOf = (reads: Reads, vault: string) =>
  reads
    .selectFrom("vault")
    .selectAll()
    .where("address", "=", vault.toLowerCase() as `0x${string}`)
    .executeTakeFirst();

export const depositRequestOf = (reads: Reads, queue: string, id: bigint) =>
  reads
    .selectFrom("depositRequest")
    .select(["owner", "state"])
    .where("queue", "=", queue.toLowerCase() as `0x${string}`)
    .where("id", "=", id)
    .executeTakeFirst();

export const withdrawalRequestOf = (reads: Reads, queue: string, id: bigint) =>
  reads
    .selectFrom("withdrawalRequest")
    .select(["owner", "state"])
    .where("queue", "=", queue.toLowerCase() as `0x${string}`)
    .where("id", "=", id)
    .executeTakeFirst();
