import { Command } from 'commander';

/** Prints one clear line and exits 1: for start-up failures a person must act on. */
function fail(message: string): never {
  process.stderr.write(`tack: ${message}\n`);
  process.exit(1);
}

async function loadConfigOrExit() {
  const { loadConfig, ConfigError } = await import('../config.js');
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(`invalid configuration: ${err.message}`);
    throw err;
  }
}

function startupFailure(err: unknown): never {
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'ConfigError') fail(`invalid configuration: ${e.message ?? ''}`);
  if (e.name === 'DataDirInUseError') fail(e.message ?? 'DATA_DIR is in use');
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === '3D000' || e.code === '28P01' || e.code === '28000') {
    fail(`cannot reach the database at DATABASE_URL (${e.code}): ${e.message ?? ''}`.trim());
  }
  if (e.code === 'EADDRINUSE') fail(`the port is already in use (${e.message ?? ''}); set PORT to another one`);
  if (e.code === 'ENOENT' || e.code === 'EACCES') fail(`cannot read a file: ${e.message ?? ''}`);
  fail(`start-up failed: ${e.message ?? String(err)}`);
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('migrate the database, bootstrap on first start, and serve the API and the background jobs (npm start)')
    .option('--no-jobs', 'do not run the background jobs in this process (run `tack worker` processes instead)')
    .action(async (options: { jobs: boolean }) => {
      const config = await loadConfigOrExit();
      const { startServer } = await import('../server.js');
      let server: Awaited<ReturnType<typeof startServer>> | undefined;
      let stopping: string | undefined;
      // Fastify says "listening" before startServer returns (the jobs start after), so a
      // signal may come during start-up: stop as soon as the server is up; a second one ends
      // the process at once.
      const shutdown = (signal: string) => {
        if (stopping) {
          if (!server) process.exit(1);
          return;
        }
        stopping = signal;
        if (!server) return;
        server.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
        const force = setTimeout(() => process.exit(1), 25_000);
        force.unref();
        server.close().then(
          () => process.exit(0),
          (err: Error) => {
            server?.app.log.error({ err: err.message }, 'shutting down: closing failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
      try {
        server = await startServer(config, options.jobs ? {} : { jobs: false });
      } catch (err) {
        startupFailure(err);
      }
      const { logUnhandledRejections } = await import('./unhandled-rejections.js');
      logUnhandledRejections(server.app.log);
      if (stopping) {
        const signal = stopping;
        stopping = undefined;
        shutdown(signal);
      }
    });
}

export function workerCommand(): Command {
  return new Command('worker')
    .description('run the background jobs (webhook deliveries; with SLACK_BOT_TOKEN, due-todo reminders and milestone summaries) on BullMQ, without the API; needs REDIS_URL')
    .action(async () => {
      const config = await loadConfigOrExit();
      const { startWorker, WorkerConfigError } = await import('../worker.js');
      let worker: Awaited<ReturnType<typeof startWorker>>;
      try {
        worker = await startWorker(config);
      } catch (err) {
        if (err instanceof WorkerConfigError) fail(err.message);
        startupFailure(err);
      }
      const { logUnhandledRejections } = await import('./unhandled-rejections.js');
      logUnhandledRejections(worker.log);
      const running = worker.jobs.mode === 'off' ? 'webhook-deliveries; Slack jobs off without SLACK_BOT_TOKEN' : 'webhook-deliveries, todo-reminders, milestone-summaries';
      process.stdout.write(`tack: worker running (${running})\n`);
      const shutdown = () => {
        // Let the run in progress finish; a second signal, or 60 s, ends it at once.
        const force = setTimeout(() => process.exit(1), 60_000);
        force.unref();
        process.once('SIGTERM', () => process.exit(1));
        process.once('SIGINT', () => process.exit(1));
        worker.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    });
}

export function migrateCommand(): Command {
  return new Command('migrate').description('bring the database schema up to date and exit').action(async () => {
    const config = await loadConfigOrExit();
    const { migrateDatabase } = await import('../maintenance.js');
    try {
      const applied = await migrateDatabase(config);
      process.stdout.write(applied.length ? `tack: applied ${applied.join(', ')}\n` : 'tack: schema is up to date\n');
    } catch (err) {
      startupFailure(err);
    }
  });
}

export function restoreCheckCommand(): Command {
  return new Command('restore-check')
    .description('run once after restoring a backup, before serving: Slack posts look for their message before posting again, unused sign-in links end, and the live credentials are listed to check')
    .option('--since <time>', "when the backup was taken (ISO 8601, e.g. from `pg_restore -l`'s \"Archive created at\"); default: the latest write in the restored database")
    .option('--end-sessions', 'end every web session (everyone signs in again)')
    .action(async (options: { since?: string; endSessions?: boolean }) => {
      const config = await loadConfigOrExit();
      const since = options.since === undefined ? undefined : new Date(options.since);
      if (since !== undefined && Number.isNaN(since.getTime())) fail(`--since must be a date and time (ISO 8601, e.g. 2026-11-26T09:00:00Z), not ${JSON.stringify(options.since)}`);
      const { checkRestoredDatabase } = await import('../maintenance.js');
      const { restoreReportLines } = await import('./restore-report.js');
      try {
        const report = await checkRestoredDatabase(config, { since, endSessions: options.endSessions === true }, (applied) => {
          if (applied.length > 0) process.stdout.write(`tack: applied ${applied.join(', ')}\n`);
        });
        for (const line of restoreReportLines(report)) process.stdout.write(`${line}\n`);
      } catch (err) {
        startupFailure(err);
      }
    });
}
