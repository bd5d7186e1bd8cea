// What Redis's memory is made of, printed by the soak at the start of its last window and at the end, so that
// a "grew" in the memory row names what grew: INFO's split (dataset, overhead, scripts, clients) and the keys
// by kind (the key with its prefix cut and every run of digits or hex letters read as `*`), with their bytes.
import type { Redis } from "ioredis";

const kindOf = (key: string, prefix: string) =>
  (key.startsWith(prefix) ? key.slice(prefix.length) : key).replace(/0x[0-9a-fA-F]+|[0-9a-f]{8,}|[0-9a-f-]{36}|\d+/g, "*");

/** One line: INFO memory's split and the `top` kinds of key by bytes (count, KiB). */
export async function redisCensus(redis: Redis, prefix: string, top = 8): Promise<string> {
  const info = `${await redis.info("memory")}\n${await redis.info("clients")}`;
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)?.[1] ?? 0);
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const kinds = new Map<string, { keys: number; bytes: number }>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 1000);
    cursor = next;
    const sizes = await Promise.all(keys.map((k) => redis.memory("USAGE", k).catch(() => 0)));
    keys.forEach((k, i) => {
      const kind = kindOf(k, prefix);
      const entry = kinds.get(kind) ?? { keys: 0, bytes: 0 };
      entry.keys++;
      entry.bytes += Number(sizes[i] ?? 0);
      kinds.set(kind, entry);
    });
  } while (cursor !== "0");
  const biggest = [...kinds].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
  return (
    `used ${kib(field("used_memory"))} (dataset ${kib(field("used_memory_dataset"))}, overhead ${kib(field("used_memory_overhead"))}, ` +
    `scripts ${kib(field("used_memory_scripts"))}, ${field("connected_clients")} clients); keys by kind: ` +
    biggest.map(([kind, e]) => `${kind} ×${e.keys} ${kib(e.bytes)}`).join(", ")
  );
}
