#!/usr/bin/env node
// The `idv` command line. Runs the TypeScript sources through tsx, so no build step is needed.
require('tsx/cjs');
require('../client/cli/main.ts');
