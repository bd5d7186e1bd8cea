// The strategy finder's board job (a repeatable job of the `scan` queue): every token's and vault's
// results over 1-30 day windows, stored for the routes; the day's picks recorded and followed on paper.
import { runFinderBoard } from "../../usecases/backtest-runs/finder-board.js";
import type { ScanContext } from "../../usecases/backtest-runs/scans.js";

export async function strategyFinderBoard(ctx: ScanContext): Promise<{ tokens: number; vaults: number; asOf: string }> {
  const board = await runFinderBoard(ctx);
  return { tokens: board.tokens.length, vaults: board.vaults.length, asOf: board.asOf };
}
