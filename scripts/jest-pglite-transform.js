// PGlite's CommonJS bundle loads Node built-ins with `await import("x")`, which plain jest on
// Node 20 cannot run (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG). Inside jest only, turn those
// into a require of the same built-in. The bundle declares its own inner `require` (from
// createRequire), so the outer one is aliased first.
'use strict';
const crypto = require('node:crypto');

const DYNAMIC_IMPORT = /\bimport\(\s*(["'])((?:node:)?[a-z_/]+)\1\s*\)/g;

module.exports = {
  process(source) {
    const code =
      'const __outerRequire = require;\n' +
      source.replace(
        DYNAMIC_IMPORT,
        (_m, _q, name) => `Promise.resolve(__outerRequire(${JSON.stringify(name)}))`,
      );
    return { code };
  },
  getCacheKey(source, path) {
    return crypto.createHash('sha256').update('pglite-v1').update(path).update(source).digest('hex');
  },
};
