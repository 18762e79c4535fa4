import { randomFillSync } from 'node:crypto';

const ID_BYTES = 12;
const IDS_PER_FILL = 512;
const pool = Buffer.alloc(ID_BYTES * IDS_PER_FILL);
let next = IDS_PER_FILL;

/**
 * `req_` + 24 hex characters; also used for answers written before Fastify has a request.
 * Random bytes are drawn 512 ids at a time: one `randomBytes` call per request cost more
 * than the rest of the request id's work (profiled under load).
 */
export function newRequestId(): string {
  if (next === IDS_PER_FILL) {
    randomFillSync(pool);
    next = 0;
  }
  const start = ID_BYTES * next++;
  return `req_${pool.toString('hex', start, start + ID_BYTES)}`;
}
