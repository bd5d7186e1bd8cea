// How a process stops on SIGTERM or SIGINT, once: it logs "stopping", closes what it holds, logs "stopped" and
// exits 0; if closing outlasts the grace period it warns and exits 1 (a stuck request or job must not keep it).
import type { Logger } from "../adapters/logger.js";

type Shutdown = {
  logger: Logger;
  graceMs: number;
  /** What is still busy when the grace period ends, for the warning: "requests still open". */
  stillBusy: string;
  /** Closes the servers, workers and connections, in the order they must close. */
  close: () => Promise<void>;
};

/** Stops the process as above on SIGTERM and SIGINT. */
export function stopOnSignals({ logger, graceMs, stillBusy, close }: Shutdown): void {
  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    const force = setTimeout(() => {
      logger.warn({}, `${stillBusy} after ${graceMs / 1000} s; exiting`);
      process.exit(1);
    }, graceMs);
    force.unref();
    await close();
    logger.info({}, "stopped");
    process.exit(0);
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
