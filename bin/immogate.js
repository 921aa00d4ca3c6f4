#!/usr/bin/env node
// The entry point of the `immogate` command, kept outside dist/: a clean build writes
// dist/src/cli.js anew, without the execute bit npm set on it when it linked the command, while
// this file is never rebuilt and keeps the bit git checks it out with.
import '../dist/src/cli.js';
