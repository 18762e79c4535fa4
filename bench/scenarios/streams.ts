import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext, Scenario } from '../scenario.js';
import { openStreams, percentile, type SseClient } from '../sse-clients.js';
import { startBenchServer, startTackServe, type Measured } from './tack-processes.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000);
const WRITES = Number(process.env.BENCH_STREAM_WRITES ?? 40);
/** Time between writes (each waits for the last one to reach every stream first). */
const GAP_MS = 250;
/** A write whose event has not reached every stream by then counts the missing ones as lost. */
const REACH_TIMEOUT_MS = 10_000;

/** Arrival times (`performance.now()`) of each event id, one per stream that got it. */
type Arrivals = Map<string, number[]>;
const recorder = (arrivals: Arrivals) => (id: string, at: number) => {
  const list = arrivals.get(id);
  if (list) list.push(at);
  else arrivals.set(id, [at]);
};

async function reached(arrivals: Arrivals, id: string, count: number): Promise<boolean> {
  const until = performance.now() + REACH_TIMEOUT_MS;
  while (performance.now() < until) {
    if ((arrivals.get(id)?.length ?? 0) >= count) return true;
    await sleep(5);
  }
  return false;
}

interface Latencies {
  /** Every delivery: arrival at one stream minus the write's answer (ms). */
  each: number[];
  /** Per write: until the last stream got it. */
  last: number[];
  lost: number;
}

function collect(into: Latencies, arrivals: Arrivals, id: string, answered: number, count: number): void {
  const got = arrivals.get(id) ?? [];
  for (const at of got) into.each.push(at - answered);
  into.last.push(got.length ? Math.max(...got) - answered : NaN);
  into.lost += count - got.length;
}

const empty = (): Latencies => ({ each: [], last: [], lost: 0 });
const ms = (n: number) => (Number.isNaN(n) ? '–' : n.toFixed(1));

function row(name: string, l: Latencies): string {
  const each = [...l.each].sort((a, b) => a - b);
  const last = [...l.last].sort((a, b) => a - b);
  return `| ${name} | ${each.length} | ${ms(percentile(each, 50))} | ${ms(percentile(each, 99))} | ${ms(each[each.length - 1] ?? NaN)} | ${ms(percentile(last, 50))} | ${ms(percentile(last, 99))} | ${l.lost} |`;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

function memoryRow(name: string, before: NodeJS.MemoryUsage, after: NodeJS.MemoryUsage, count: number): string {
  const per = (k: 'rss' | 'heapUsed' | 'external') => kb((after[k] - before[k]) / count);
  return `| ${name} | ${kb(before.rss / 1024)} → ${kb(after.rss / 1024)} MB | ${kb(before.heapUsed / 1024)} → ${kb(after.heapUsed / 1024)} MB | **${per('rss')}** | **${per('heapUsed')}** | ${per('external')} |`;
}

async function close(clients: SseClient[]): Promise<void> {
  for (const c of clients) c.close();
}

/**
 * Event streams (issue 29): `STREAMS` idle streams on one tack process (A), their memory after
 * GC; then `STREAMS` more on a second tack process (B) on the same Postgres, and `WRITES`
 * todos created through A's /v1, one at a time: the time from each write's answer until its
 * event reached each stream on A (same process) and on B (across processes, through
 * LISTEN/NOTIFY). The same on a bare Node fan-out server (the baseline), same clients.
 */
export const streams: Scenario = {
  name: 'streams',
  async setup() {
    return [];
  },
  async extra(ctx: BenchContext) {
    const auth = { authorization: `Bearer ${ctx.token}` };
    const a = await startTackServe(ctx);
    const b = await startTackServe(ctx);
    const bare = await startBenchServer('sse-baseline-server.ts');
    const opened: SseClient[] = [];
    const lines: string[] = [];
    try {
      // Warm both tacks' stream route and write path before measuring anything.
      const warm = await openStreams(2, `${a.url}/v1/events/stream`, auth, () => {});
      await write(a, ctx.token, 'warm-up');
      await close(warm);

      const arrivalsA: Arrivals = new Map();
      const arrivalsB: Arrivals = new Map();
      process.stdout.write(`streams: opening ${STREAMS} streams on tack A …\n`);
      const beforeA = await a.memory();
      opened.push(...(await openStreams(STREAMS, `${a.url}/v1/events/stream`, auth, recorder(arrivalsA))));
      const afterA = await a.memory();
      process.stdout.write(`streams: opening ${STREAMS} streams on tack B …\n`);
      opened.push(...(await openStreams(STREAMS, `${b.url}/v1/events/stream`, auth, recorder(arrivalsB))));

      const sameProcess = empty();
      const otherProcess = empty();
      process.stdout.write(`streams: ${WRITES} writes through A …\n`);
      for (let i = 0; i < WRITES; i++) {
        const { answered, todoId } = await write(a, ctx.token, `stream bench ${i}`);
        const { rows } = await ctx.pool.query<{ seq: string }>(`select seq::text from events where subject_id = $1 and type = 'todo.created'`, [todoId]);
        const id = `evt_${rows[0]!.seq}`;
        await reached(arrivalsA, id, STREAMS);
        await reached(arrivalsB, id, STREAMS);
        collect(sameProcess, arrivalsA, id, answered, STREAMS);
        collect(otherProcess, arrivalsB, id, answered, STREAMS);
        await sleep(GAP_MS);
      }
      await close(opened.splice(0));

      // The baseline: the same clients on a bare fan-out server, with an event body of tack's size.
      const sample = await (await fetch(`${a.url}/v1/events?limit=1`, { headers: auth })).json() as { data: unknown[] };
      const body = JSON.stringify(sample.data[0]);
      const arrivalsBare: Arrivals = new Map();
      const beforeBare = await bare.memory();
      opened.push(...(await openStreams(STREAMS, `${bare.url}/stream`, {}, recorder(arrivalsBare))));
      const afterBare = await bare.memory();
      const bareLatency = empty();
      for (let i = 0; i < WRITES; i++) {
        const res = await fetch(`${bare.url}/emit`, { method: 'POST', body });
        const answered = performance.now();
        const { id } = (await res.json()) as { id: string };
        await reached(arrivalsBare, id, STREAMS);
        collect(bareLatency, arrivalsBare, id, answered, STREAMS);
        await sleep(GAP_MS);
      }
      await close(opened.splice(0));

      lines.push(
        '',
        `Streams: ${STREAMS} idle streams per process, memory after GC (process.memoryUsage, per stream = difference / ${STREAMS}):`,
        '| server | RSS | heap used | RSS per stream KB | heap per stream KB | external per stream KB |',
        '|---|---|---|---|---|---|',
        memoryRow('tack A', beforeA, afterA, STREAMS),
        memoryRow('bare Node SSE server (baseline)', beforeBare, afterBare, STREAMS),
        '',
        `Streams: ${WRITES} writes, each event's arrival at every stream minus the write's answer (ms; ${STREAMS} streams on A and ${STREAMS} on B at once):`,
        '| streams | deliveries | p50 | p99 | max | until the last stream: p50 | p99 | lost |',
        '|---|---|---|---|---|---|---|---|',
        row('tack A, written through A (same process)', sameProcess),
        row('tack B, written through A (other process)', otherProcess),
        row('bare Node fan-out (baseline, its own run)', bareLatency),
      );
      return lines;
    } finally {
      await close(opened);
      await a.stop();
      await b.stop();
      await bare.stop();
    }
  },
};

/** Creates a todo through `/v1` on `server`; `answered` is when its answer arrived. */
async function write(server: Measured, token: string, title: string): Promise<{ answered: number; todoId: string }> {
  const res = await fetch(`${server.url}/v1/todos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  });
  const answered = performance.now();
  if (res.status !== 201) throw new Error(`createTodo: ${res.status} ${await res.text()}`);
  const todo = (await res.json()) as { id: string };
  return { answered, todoId: todo.id };
}
