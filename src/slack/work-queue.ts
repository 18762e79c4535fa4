/**
 * Work that runs after a Slack delivery's ack (a command's reads, its reply), a few at a
 * time. Unbounded, a flood of commands would all run at once, and every new delivery's ack
 * (Slack gives up after 3 s) would wait behind them for the event loop and the database.
 * Bounded, the acks stay quick; with `maxWaiting` jobs queued it is `full`, and the caller
 * says "busy" in the ack instead of holding more than it can answer in time.
 */
export class WorkQueue {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  get full(): boolean {
    return this.#running >= this.concurrency && this.#waiting.length >= this.maxWaiting;
  }

  /** Runs `job` when one of the `concurrency` slots is free. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await job();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
