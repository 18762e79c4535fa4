import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack refuses to sign anything older than this, and so do we (either direction). */
export const MAX_SKEW_SECONDS = 5 * 60;

export interface SignedRequest {
  signingSecret: string;
  rawBody: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
  now: Date;
}

export type SignatureProblem = 'missing_headers' | 'stale_timestamp' | 'bad_signature';

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the signing secret. */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/**
 * Checks `X-Slack-Signature` and `X-Slack-Request-Timestamp` the way Slack documents it;
 * returns what is wrong, or undefined when the request is Slack's. The comparison takes the
 * same time whatever the signature holds.
 */
export function checkSlackSignature(req: SignedRequest): SignatureProblem | undefined {
  const problem = checkSlackHeaders(req);
  if (problem || !req.signature || !req.timestamp) return problem ?? 'missing_headers';
  const expected = Buffer.from(slackSignature(req.signingSecret, req.timestamp, req.rawBody));
  const given = Buffer.from(req.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
  return undefined;
}

/**
 * What the headers alone say is wrong (no signature, or a timestamp too far off), before the
 * body is read; `checkSlackSignature` then checks the signature over the body.
 */
export function checkSlackHeaders(req: Pick<SignedRequest, 'signature' | 'timestamp' | 'now'>): Exclude<SignatureProblem, 'bad_signature'> | undefined {
  if (!req.signature || !req.timestamp) return 'missing_headers';
  if (!/^\d{1,12}$/.test(req.timestamp)) return 'stale_timestamp';
  const skew = Math.abs(Math.floor(req.now.getTime() / 1000) - Number(req.timestamp));
  if (skew > MAX_SKEW_SECONDS) return 'stale_timestamp';
  return undefined;
}
