// The default `indexerReady` check: Ponder's own /ready (200 once the historical backfill is done).
// Latched: once the indexer has caught up, the API stays ready even while the indexer restarts,
// because its reads keep working from Postgres (they are only as fresh as the last indexed block).
export function ponderReady(url: string, timeoutMs = 1000): () => Promise<boolean> {
  let caughtUp = false;
  return async () => {
    if (caughtUp) return true;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      caughtUp = response.status === 200;
    } catch {
      // Not up yet.
    }
    return caughtUp;
  };
}
