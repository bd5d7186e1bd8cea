// Group commit for statements that many requests run at once: the items that arrive while `maxInFlight`
// statements are running wait, and go together in the next one. A busy process then pays a statement's
// fixed cost (the round trip, the executor's start, the commit) once per batch instead of once per
// request, and an idle one waits no more than one turn of the event loop. Every caller is answered
// only once its own batch has run: nothing is acknowledged before it is done.

type Waiter<In, Out> = { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void };

export type BatcherOptions = {
  /** Most items one statement carries. */
  maxBatch: number;
  /** Statements running at once; more items wait for one of them to end. */
  maxInFlight: number;
};

export class Batcher<In, Out> {
  readonly #run: (items: In[]) => Promise<Out[]>;
  readonly #options: BatcherOptions;
  #queue: Waiter<In, Out>[] = [];
  #inFlight = 0;
  #scheduled = false;

  /** `run` answers one result per item, in the items' order; when it throws, every item of its batch fails. */
  constructor(run: (items: In[]) => Promise<Out[]>, options: BatcherOptions) {
    this.#run = run;
    this.#options = options;
  }

  load(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#options.maxInFlight || this.#queue.length === 0) return;
    this.#scheduled = true;
    // After this turn's I/O callbacks: the other requests that arrived in it join the batch.
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#inFlight < this.#options.maxInFlight && this.#queue.length > 0) void this.#send(this.#queue.splice(0, this.#options.maxBatch));
    });
  }

  async #send(batch: Waiter<In, Out>[]): Promise<void> {
    this.#inFlight++;
    try {
      const results = await this.#run(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${results.length} results`);
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (error) {
      for (const w of batch) w.reject(error);
    } finally {
      this.#inFlight--;
      this.#schedule();
    }
  }
}
