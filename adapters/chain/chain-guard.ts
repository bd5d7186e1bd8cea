// The chain id, checked when the RPC first answers and not only at start (issue 32): a process that started
// while its RPC was down (a warning, not an exit: reads need no chain) learns the id from the first
// answer, and on any chain but 4663 stops serving prepares (503 UNAVAILABLE) with one clear log line.
// Once the id is known it is not asked again.
import { CHAIN_ID } from "../../domain/chain.js";
import { redactUrl } from "../config.js";
import type { Logger } from "../logger.js";
import { readChainId } from "../services.js";

export type ChainState = { state: "unknown" } | { state: "right" } | { state: "wrong"; chainId: number };

export type ChainGuardParameters = {
  url: string;
  logger: Logger;
  /** What the start-up check found: known (right) unless it could not read the id. */
  knownAtStart: boolean;
  /** At most one eth_chainId per this many ms while the id is unknown. */
  retryMs?: number;
  /** How long one eth_chainId may take. */
  timeoutMs?: number;
};

export class ChainGuard {
  #state: ChainState;
  #last = 0;
  #pending: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly p: ChainGuardParameters) {
    this.#state = p.knownAtStart ? { state: "right" } : { state: "unknown" };
  }

  get state(): ChainState {
    return this.#state;
  }

  /** While the id is unknown, asks the RPC every `retryMs` in the background (stops once known). */
  start(): this {
    if (this.#state.state === "unknown" && !this.#timer) {
      this.#timer = setInterval(() => void this.check(), this.p.retryMs ?? 2000);
      this.#timer.unref();
    }
    return this;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Asks the RPC once when the id is unknown (at most once per `retryMs`; concurrent callers share it). */
  async check(): Promise<ChainState> {
    if (this.#state.state !== "unknown") return this.#state;
    if (!this.#pending && Date.now() - this.#last >= (this.p.retryMs ?? 2000)) {
      this.#last = Date.now();
      this.#pending = readChainId(this.p.url, this.p.timeoutMs ?? 3000)
        .then((read) => {
          if ("unread" in read) return;
          if (read.chainId === CHAIN_ID) {
            this.#state = { state: "right" };
            this.p.logger.info({ chainId: read.chainId }, `the RPC at ${redactUrl(this.p.url)} answers: chain ${CHAIN_ID}`);
          } else {
            this.#state = { state: "wrong", chainId: read.chainId };
            this.p.logger.error(
              { chainId: read.chainId, expected: CHAIN_ID },
              `The RPC at ${redactUrl(this.p.url)} is on chain ${read.chainId}, not ${CHAIN_ID}: prepares answer 503 until RPC_URL points at a chain ${CHAIN_ID} node and the process restarts`,
            );
          }
          this.stop();
        })
        .finally(() => (this.#pending = undefined));
    }
    await this.#pending;
    return this.#state;
  }

  /** True unless the RPC is known to be on another chain (an unknown id is checked first). */
  async servesPrepares(): Promise<boolean> {
    return (await this.check()).state !== "wrong";
  }
}
