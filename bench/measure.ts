import autocannon, { type Request as LoadRequest } from 'autocannon';
import { cpuOf, postgresCpu, postgresCpuSince } from './process-cpu.js';

export interface Measurement {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU per request in ms, of the process serving the target and of all Postgres processes, when its pid is known. */
  serverCpu?: number;
  postgresCpu?: number;
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
  /**
   * The same work without tack, measured in the same run, alternating with this target;
   * the first is the one the acceptance ratio is to (the raw route).
   */
  baselines?: Target[];
}

/**
 * A short warm-up (JIT, pools, caches), then the measured run; with `pid` (the serving
 * process), the CPU per request it and Postgres spent on the run, from /proc: a write's cost
 * apart from how busy the shared machine was.
 */
export async function measure(target: Target, load: LoadOptions, pid?: number): Promise<Measurement> {
  const base = {
    url: target.url,
    connections: load.connections,
    pipelining: 1,
    method: target.method ?? 'GET',
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body ? { body: target.body } : {}),
    ...(target.requests ? { requests: target.requests } : {}),
  };
  if (load.warmup > 0) await autocannon({ ...base, duration: load.warmup });
  const before = pid === undefined ? undefined : { server: cpuOf(pid), postgres: postgresCpu() };
  const r = await autocannon({ ...base, duration: load.duration });
  const m: Measurement = {
    name: target.name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
  if (before && pid !== undefined && r.requests.total > 0) {
    m.serverCpu = (cpuOf(pid) - before.server) / r.requests.total;
    m.postgresCpu = postgresCpuSince(before.postgres) / r.requests.total;
  }
  return m;
}

/** Two decimals, or two significant digits for a ratio too small to show in two decimals. */
export function ratio(r: number): string {
  if (!Number.isFinite(r)) return '-';
  return r >= 0.1 || r === 0 ? r.toFixed(2) : r.toPrecision(2);
}

/** A Markdown table with columns padded to their widest cell. */
export function markdownTable(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/** Each variant of a target measured in several alternating rounds. */
export interface GroupResult {
  name: string;
  variants: { name: string; runs: Measurement[] }[];
  /** Index in `variants` of the raw route (pg + JSON.stringify) and of the second baseline (Postgres-built JSON; for /v1/me the bare hello), when measured. */
  raw?: number;
  pgJson?: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median of the rounds for each figure. */
export function summary(runs: Measurement[]): Measurement {
  return {
    name: runs[0]!.name,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    ...(runs.every((r) => r.serverCpu !== undefined && r.postgresCpu !== undefined)
      ? { serverCpu: median(runs.map((r) => r.serverCpu!)), postgresCpu: median(runs.map((r) => r.postgresCpu!)) }
      : {}),
  };
}

/** `server + Postgres = total` CPU ms per request, or '-' when not measured. */
function cpuCell(m: Measurement): string {
  if (m.serverCpu === undefined || m.postgresCpu === undefined) return '-';
  return `${m.serverCpu.toFixed(2)} + ${m.postgresCpu.toFixed(2)} = ${(m.serverCpu + m.postgresCpu).toFixed(2)}`;
}

export function groupTable(groups: GroupResult[]): string {
  const head = ['target', 'req/s', 'p50 ms', 'p99 ms', 'ratio to raw', 'ratio to pg json or hello', 'CPU ms/req: server + Postgres', 'req/s per round', 'errors/non-2xx'];
  const body: string[][] = [];
  for (const g of groups) {
    const sums = g.variants.map((v) => summary(v.runs));
    const raw = g.raw === undefined ? undefined : sums[g.raw]!.rps;
    const json = g.pgJson === undefined ? undefined : sums[g.pgJson]!.rps;
    sums.forEach((m, i) => {
      body.push([
        i === 0 ? `**${g.name}**` : `  ${g.variants[i]!.name}`,
        m.rps.toFixed(0),
        m.p50.toFixed(1),
        m.p99.toFixed(1),
        raw === undefined ? '-' : ratio(m.rps / raw),
        json === undefined ? '-' : ratio(m.rps / json),
        cpuCell(m),
        g.variants[i]!.runs.map((r) => r.rps.toFixed(0)).join(' / '),
        `${m.errors}/${m.non2xx}`,
      ]);
    });
  }
  return markdownTable(head, body);
}
