/**
 * Build step (`npm run build`): writes the OpenAPI document that `GET /v1/openapi.json`
 * serves to the path given (both are `openApiDocument` of the operation table), so the web
 * app's client types are generated from the very same document (`openapi-typescript`) and
 * cannot drift from the API. Its `servers` names the default APP_URL: the web app calls its
 * own origin, whatever the document says.
 */
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { openApiDocument } from '../http/openapi.js';
import { operations } from '../operations/index.js';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: write-openapi <file.json>\n');
  process.exit(2);
}
writeFileSync(out, `${JSON.stringify(openApiDocument(operations, loadConfig({}).appUrl), null, 2)}\n`);
process.stdout.write(`tack: wrote ${out}\n`);
