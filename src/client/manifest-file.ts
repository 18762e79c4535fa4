import { readFileSync } from 'node:fs';
import type { OperationManifest } from '../operations/manifest.js';

/** dist/cli-manifest.json, beside dist/src/cli/ where the built CLI runs. */
export const MANIFEST_URL = new URL('../../cli-manifest.json', import.meta.url);

/**
 * The operation table as JSON. The built CLI reads the file `npm run build` wrote; run from
 * source (tsx), where there is no such file, it describes the live table instead.
 */
export async function loadManifest(): Promise<OperationManifest> {
  try {
    return JSON.parse(readFileSync(MANIFEST_URL, 'utf8')) as OperationManifest;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const [{ operations }, { describeOperations }] = await Promise.all([
    import('../operations/index.js'),
    import('../operations/manifest.js'),
  ]);
  return describeOperations(operations);
}
