import { recordDeliveries, type Delivery } from '../domain/slack-deliveries.js';
import type { Db } from '../domain/context.js';
import { databaseFailure } from '../domain/database-failures.js';

interface Waiting extends Delivery {
  resolve(fresh: boolean): void;
  reject(err: unknown): void;
}

// Far more than arrive while one statement runs; bounds one statement's size all the same.
const MAX_BATCH = 500;

/**
 * Records Slack deliveries before their ack with a group commit: a delivery arriving while
 * `inFlight` statements are already running waits for one of them, and then all those that
 * waited go in one insert and one commit. Flat out, one round trip and one commit serve
 * dozens of acks instead of each ack queueing for a connection of its own (at 50 concurrent
 * commands the acks spent most of their time there); when quiet, a delivery goes alone at
 * once. Each `record` still resolves only after its own row has committed.
 */
export class DeliveryRecorder {
  #waiting: Waiting[] = [];
  #running = 0;

  constructor(
    private readonly db: Db,
    private readonly inFlight: number,
  ) {}

  /** True when the delivery is new; false when recorded before, or earlier in the same batch. */
  record(delivery: Delivery): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#waiting.push({ ...delivery, resolve, reject });
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#running < this.inFlight && this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      this.#running++;
      this.#write(batch).finally(() => {
        this.#running--;
        this.#flush();
      });
    }
  }

  async #write(batch: Waiting[]): Promise<void> {
    let fresh: Set<string>;
    try {
      fresh = await recordDeliveries(this.db, batch);
    } catch (err) {
      // A value Postgres refuses (a NUL in an event id) must not fail the deliveries batched
      // with it: each goes alone then, and only that one fails.
      if (batch.length > 1 && databaseFailure(err) === 'invalid_value') {
        for (const d of batch) await this.#write([d]);
        return;
      }
      for (const d of batch) d.reject(err);
      return;
    }
    // A retry may wait in the same batch as its original: the first of an identity is the
    // new delivery, the later ones were recorded before them.
    for (const d of batch) d.resolve(fresh.delete(d.identity));
  }
}
