#!/usr/bin/env node
// The entry point of the `immogate` command, kept outside dist/: a clean build writes
// dist/src/cli.js anew, without the execute bit npm set on it when it linked the command, while
// this file is never rebuilt and keeps the bit git checks it out with.
import module from 'node:module';

// Node 22.1 and later keep the compiled code of every module on disk (checked against its
// source), so a start or a CLI call after the first compiles little; Node 20 has no such cache.
module.enableCompileCache?.();
await import('../dist/src/cli.js');
