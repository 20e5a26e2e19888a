#!/usr/bin/env node
// The `idv` command line, from the compiled code in dist/ (`npm run build`; `npm install` in a
// clone of the repository runs it, an installed package ships it).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!existsSync(main)) {
  process.stderr.write('idv: not built: run `npm run build` in ' + join(__dirname, '..') + '\n');
  process.exit(1);
}
require(main);
