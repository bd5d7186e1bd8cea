// The prepare resolvers' look-ups of one indexed position by id (a ladder, a grid, a limit order) and of
// the agent accounts a key trades: the resolver checks owner and state, then builds.
import type { Kysely } from "kysely";
import type { Address } from "viem";
import type { Projections } from "../projections.js";

type Reads = Kysely<Projections>;

export const ladderById = (reads: Reads, id: bigint) => reads.selectFrom("ladder").select(["owner", "token", "state"]).where("id", "=", id).executeTakeFirst();

export const gridById = (reads: Reads, id: bigint) => reads.selectFrom("grid").select(["owner", "token", "state"]).where("id", "=", id).executeTakeFirst();

export const limitOrderById = (reads: Reads, id: bigint) =>
  reads.selectFrom("limitOrder").select(["owner", "token", "state", "filledIn", "owed0", "owed1"]).where("id", "=", id).executeTakeFirst();

/** Up to `limit` agent accounts whose agent is `agent`, by address. */
export const agentAccountsOf = (reads: Reads, agent: string, limit: number) =>
  reads
    .selectFrom("agentAccount")
    .select(["address", "owner"])
    .where("agent", "=", agent.toLowerCase() as Address)
    .orderBy("address")
    .limit(limit)
    .execute();
