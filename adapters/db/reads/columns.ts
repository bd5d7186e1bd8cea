// Column references kysely's CamelCasePlugin cannot spell. Ponder names the column of `priceX18`
// "price_x_18" (an underscore before the digits), while the plugin writes "price_x18"; and turning on
// the plugin's `underscoreBeforeDigits` would break the tables "candle10m" and "candle1h". So these
// columns are referenced by their real names, and aliased back to the camelCase key.
import { sql, type RawBuilder } from "kysely";

/** `table.column` by its real Postgres name, e.g. x18("token", "price_x_18"). */
export const x18 = (table: string, column: string): RawBuilder<bigint> => sql<bigint>`${sql.ref(`${table}.${column}`)}`;
