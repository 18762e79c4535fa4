#!/usr/bin/env node
// The built CLI lives in dist/; `npm install` builds it (the `prepare` script).
import('../dist/src/cli/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/src/cli')) {
    process.stderr.write('tack is not built yet: run `npm install` (or `npm run build`) first.\n');
    process.exit(1);
  }
  throw err;
});
