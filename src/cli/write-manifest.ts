/**
 * Build step (`npm run build`): writes the operation table as plain JSON next to the compiled
 * CLI, so `tack --help` and client commands start without loading zod schemas or the domain.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operations } from '../operations/index.js';
import { describeOperations } from '../operations/manifest.js';
import { MANIFEST_URL } from '../client/manifest-file.js';

writeFileSync(MANIFEST_URL, `${JSON.stringify(describeOperations(operations))}\n`);
process.stdout.write(`tack: wrote ${fileURLToPath(MANIFEST_URL)} (${operations.length} operations)\n`);
