// examples/analyst-client/schema.ts declares, with drizzle-orm alone, the indexer's tables that the
// analysts' @ponder/client examples read. It must stay what ponder.schema.ts makes: each table of the same
// name, each column of the same name, SQL type and nullability, the same primary key, and a hex column
// lowercasing what it is compared with as Ponder's does (so a checksummed address still matches).
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import * as analyst from "../../examples/analyst-client/schema.js";
import * as service from "../../ponder.schema.js";

const tablesOf = (module: Record<string, unknown>) =>
  new Map(
    Object.values(module)
      .filter((value): value is PgTable => {
        try {
          return Boolean(getTableConfig(value as PgTable).name);
        } catch {
          return false;
        }
      })
      .map((table) => [getTableConfig(table).name, getTableConfig(table)]),
  );

describe("examples/analyst-client/schema.ts", () => {
  const ours = tablesOf(analyst);
  const theirs = tablesOf(service);

  it("declares the examples' tables as ponder.schema.ts makes them: columns, SQL types, nullability, keys", () => {
    expect([...ours.keys()].sort()).toEqual(["activity", "deposit_request", "pool_swap", "token"]);
    for (const [name, table] of ours) {
      const real = theirs.get(name);
      expect(real, name).toBeDefined();
      const shape = (config: ReturnType<typeof getTableConfig>) => ({
        columns: config.columns
          .map((c) => ({ name: c.name, type: c.getSQLType(), notNull: c.notNull, primary: c.primary }))
          .sort((a, b) => a.name.localeCompare(b.name)),
        primaryKeys: config.primaryKeys.map((k) => k.columns.map((c) => c.name)),
      });
      expect(shape(table), name).toEqual(shape(real!));
    }
  });

  it("lowercases a compared address and reads an amount as a bigint, as Ponder's columns do", () => {
    const owner = getTableConfig(analyst.activity).columns.find((c) => c.name === "owner")!;
    const real = getTableConfig(service.activity).columns.find((c) => c.name === "owner")!;
    const checksummed = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(owner.mapToDriverValue(checksummed)).toBe(real.mapToDriverValue(checksummed));
    expect(owner.mapToDriverValue(checksummed)).toBe(checksummed.toLowerCase());
    const position = getTableConfig(analyst.activity).columns.find((c) => c.name === "position")!;
    expect(position.mapFromDriverValue("123456789012345678901234567890")).toBe(123456789012345678901234567890n);
  });
});
