/*
 * `npm run generate:console-types`: writes console/src/generated/answers.ts from the server's
 * route schemas (scripts/console-types.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONSOLE_TYPES_FILE, consoleTypes } from './console-types.js';

const types = await consoleTypes();
const changed = !fs.existsSync(CONSOLE_TYPES_FILE) || fs.readFileSync(CONSOLE_TYPES_FILE, 'utf8') !== types;
fs.mkdirSync(path.dirname(CONSOLE_TYPES_FILE), { recursive: true });
fs.writeFileSync(CONSOLE_TYPES_FILE, types);
process.stderr.write(`generate: ${path.relative(process.cwd(), CONSOLE_TYPES_FILE)} (${changed ? 'changed' : 'unchanged'})\n`);
