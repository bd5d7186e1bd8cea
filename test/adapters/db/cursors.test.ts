// The cursor rows an API process keeps: a derived cursor it inserted is known whole, so the agent's next
// poll with it costs no SELECT; one another process (or an earlier poll) inserted keeps its first
// creation time, which only the table knows.
import { describe, expect, it } from "vitest";
import { CursorCache, findLiveCursor, storeDerivedCursor } from "../../../adapters/db/cursors.js";
import { useApiFixture } from "../../api/support.js";

const api = useApiFixture();
const OWNER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const trail = [{ number: 12n, hash: `0x${"ab".repeat(32)}` }];

describe("storeDerivedCursor", () => {
  it("remembers the cursor it inserted, with the stored creation time, and then answers it with no SELECT", async () => {
    const cache = new CursorCache(10);
    const now = new Date("2026-11-27T10:00:00.000Z");
    await storeDerivedCursor(api.db, { id: "derived-cursor-aaaaaaaaaaaa", owner: OWNER.toUpperCase(), position: 12_000_010n, trail }, now, cache);
    expect(cache.get("derived-cursor-aaaaaaaaaaaa")).toEqual({ id: "derived-cursor-aaaaaaaaaaaa", owner: OWNER, position: 12_000_010n, trail, createdAt: now });
    // With the table emptied behind its back, the cache alone answers: no SELECT was needed.
    await api.db.deleteFrom("activity_cursor").where("id", "=", "derived-cursor-aaaaaaaaaaaa").execute();
    expect((await findLiveCursor(api.db, "derived-cursor-aaaaaaaaaaaa", OWNER, now, cache))?.position).toBe(12_000_010n);
  });

  it("does not take a cursor that existed for one it created: the next lookup reads the first creation time", async () => {
    const first = new Date("2026-11-27T10:00:00.000Z");
    const later = new Date("2026-11-27T11:00:00.000Z");
    await storeDerivedCursor(api.db, { id: "derived-cursor-bbbbbbbbbbbb", owner: OWNER, position: 5n, trail: [] }, first);
    const cache = new CursorCache(10);
    await storeDerivedCursor(api.db, { id: "derived-cursor-bbbbbbbbbbbb", owner: OWNER, position: 5n, trail: [] }, later, cache);
    expect(cache.get("derived-cursor-bbbbbbbbbbbb")).toBeUndefined();
    expect(cache.isStored("derived-cursor-bbbbbbbbbbbb")).toBe(true);
    expect((await findLiveCursor(api.db, "derived-cursor-bbbbbbbbbbbb", OWNER, later, cache))?.createdAt).toEqual(first);
  });
});
