import autocannon, { type Request as LoadRequest } from 'autocannon';

export interface Measurement {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  connections: number;
  duration: number;
  warmup: number;
}

export interface Target {
  name: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * A sequence of requests cycled through per connection (e.g. one cursor after another);
   * one with `setupRequest` is built afresh before each send (e.g. newly signed).
   */
  requests?: LoadRequest[];
}

/** A short warm-up (JIT, pools, caches), then the measured run. */
export async function measure(target: Target, load: LoadOptions): Promise<Measurement> {
  const base = {
    url: target.url,
    connections: load.connections,
    pipelining: 1,
    method: target.method ?? 'GET',
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body ? { body: target.body } : {}),
    ...(target.requests ? { requests: target.requests } : {}),
  };
  await autocannon({ ...base, duration: load.warmup });
  const r = await autocannon({ ...base, duration: load.duration });
  return {
    name: target.name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

/** Two decimals, or two significant digits for a ratio too small to show in two decimals. */
function ratio(r: number): string {
  return r >= 0.1 || r === 0 ? r.toFixed(2) : r.toPrecision(2);
}

export function table(rows: Measurement[], baseline: Measurement): string {
  const head = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'ratio to baseline', 'errors/non-2xx'];
  const body = rows.map((m) => [
    m.name,
    m.rps.toFixed(0),
    m.p50.toFixed(1),
    m.p99.toFixed(1),
    ratio(m.rps / baseline.rps),
    `${m.errors}/${m.non2xx}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}
