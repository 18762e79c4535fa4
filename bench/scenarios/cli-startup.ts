import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../scenario.js';

const RUNS = 20;
const bin = fileURLToPath(new URL('../../bin/tack.js', import.meta.url));

function wallTimes(args: string[], env: NodeJS.ProcessEnv): number[] {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    times.push(ms);
  }
  return times.sort((a, b) => a - b);
}

const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => xs[Math.floor(xs.length * 0.9)]!;

/**
 * Start-up of the `tack` binary: `tack --help` and `tack milestone status <ref>` (a real
 * request to the running server), against `node -e 0` measured in the same run.
 */
export const cliStartup: Scenario = {
  name: 'cli',
  async setup() {
    return [];
  },
  async extra(ctx) {
    const created = await fetch(`${ctx.url}/v1/milestones`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ref: 'CLI1', name: 'CLI start-up' }),
    });
    if (created.status !== 201 && created.status !== 409) throw new Error(`createMilestone: ${created.status}`);
    const env = { PATH: process.env.PATH ?? '', TACK_URL: ctx.url, TACK_TOKEN: ctx.token, XDG_CONFIG_HOME: '/nonexistent' };
    const node = wallTimes(['-e', '0'], env);
    const help = wallTimes([bin, '--help'], env);
    const status = wallTimes([bin, 'milestone', 'status', 'CLI1'], env);
    const row = (name: string, xs: number[]) =>
      `| ${name} | ${median(xs).toFixed(0)} | ${p90(xs).toFixed(0)} | ${(median(xs) / median(node)).toFixed(2)} |`;
    return [
      '',
      `CLI start-up, wall time over ${RUNS} runs each (ms):`,
      '| command | median | p90 | ratio to `node -e 0` |',
      '|---|---|---|---|',
      row('node -e 0 (baseline)', node),
      row('tack --help', help),
      row('tack milestone status CLI1', status),
    ];
  },
};
