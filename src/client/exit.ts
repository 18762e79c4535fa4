/** Exit codes of `tack`: scripts may rely on them (as gh's: 2 is also a cancelled delete). */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports in one or a few lines, never with a stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
    /** Further lines (field errors, the request id). */
    readonly details: readonly string[] = [],
    /** The `code` of its `--json` envelope, where the exit code does not say it (`cancelled`). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Prints an error on stderr and exits: a CliError with its own code, anything else as 1. */
export function exitWith(err: unknown): never {
  if (err instanceof CliError) {
    process.stderr.write(`tack: ${err.message}\n${err.details.map((d) => `  ${d}\n`).join('')}`);
    process.exit(err.exitCode);
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`tack: unexpected error: ${message}\n`);
  process.exit(EXIT.error);
}

/**
 * `--json` errors: the error envelope as one JSON line on stderr (stdout carries only
 * successful responses, so `tack … --json | jq` never reads an error as data), then the exit
 * code that the text form would have.
 */
export function exitWithEnvelope(envelope: object, exitCode: number): never {
  process.stderr.write(`${JSON.stringify(envelope)}\n`);
  process.exit(exitCode);
}
