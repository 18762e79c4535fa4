import { ApiError, type ErrorEnvelope } from './api-client.js';
import { CliError, EXIT, type ExitCode } from './exit.js';

// How a failed /v1 request ends a tack program (the CLI's commands and `tack mcp`): its lines
// on stderr, its exit code, and its envelope for --json.

/** The envelope as stderr lines: user_message and code, field errors, request_id. */
export function cliErrorOf(err: ApiError): CliError {
  const env = err.envelope;
  const details = [
    // Each field error is a sentence naming its field; the one already said as user_message is not repeated.
    ...(env.errors ?? []).filter((e) => e.message !== env.user_message).map((e) => `- ${e.message} (${e.code})`),
    ...(env.request_id ? [`request_id: ${env.request_id}`] : []),
  ];
  const message = env.http_status === 0 ? env.user_message : `${env.user_message} (${env.code})`;
  return new CliError(message, exitCodeOf(err), details);
}

export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof ApiError) return err.status === 401 ? EXIT.auth : EXIT.error;
  return err instanceof CliError ? err.exitCode : EXIT.error;
}

/**
 * With `--json`, an error is the /v1 envelope too: the server's as it sent it, or one made
 * here for what failed before an answer (no token, server unreachable: `http_status` 0).
 */
export function envelopeOf(err: unknown): ErrorEnvelope {
  if (err instanceof ApiError) return err.envelope;
  if (err instanceof CliError) {
    const code = err.code ?? (err.exitCode === EXIT.auth ? 'unauthorized' : err.exitCode === EXIT.usage ? 'usage_error' : 'client_error');
    return { code, http_status: 0, user_message: err.message };
  }
  return { code: 'client_error', http_status: 0, user_message: err instanceof Error ? err.message : String(err) };
}
