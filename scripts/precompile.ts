/*
 * Part of every build: builds the HTTP application once, without a database, to meet every route
 * schema as a start does, and writes their validators (Ajv) and answer serializers
 * (fast-json-stringify) as standalone code to dist/src/generated/. A start then loads them instead of
 * compiling (validation.ts, serializers.ts): that took it about 1.2 s of CPU, most of its start.
 * A schema that differs at run time (another configuration, another set of APIs) has another key
 * and is compiled at start as before, so the generated code can be missing or partial, never wrong.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KeyStore } from '../src/platform/auth/keys.js';
import { PRECOMPILED_FILES, createValidators, newAjv, splitIntoFunctions, type Part } from '../src/platform/http/validation.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const generated = path.join(dist, 'src/generated');

/** The newest modification time of the files under `dir`, leaving out `skip`. */
function newest(dir: string, skip: string): number {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && !file.startsWith(skip)) latest = Math.max(latest, fs.statSync(file).mtimeMs);
  }
  return latest;
}

/**
 * `--if-stale` (npm test's incremental build): nothing to do when the generated code is newer than
 * every compiled source and JSON file it copies, as tsc rewrites only what changed.
 */
function upToDate(): boolean {
  const outputs = Object.values(PRECOMPILED_FILES).map((name) => path.join(generated, name));
  if (!outputs.every((file) => fs.existsSync(file))) return false;
  const oldest = Math.min(...outputs.map((file) => fs.statSync(file).mtimeMs));
  return ['src', 'reference'].every((dir) => oldest > newest(path.join(dist, dir), generated));
}

if (!(process.argv.includes('--if-stale') && upToDate())) await precompile();

async function precompile(): Promise<void> {
  // Loaded here: the up-to-date check above must not pay for loading the whole server.
  const [
    { default: standaloneCode },
    { buildApp },
    { API_MODULES },
    { loadConfig },
    { createPool },
    { createLogger },
    { createMetrics },
    { cachingSerializerFactory, SERIALIZERS_DIR },
  ] = await Promise.all([
    import('ajv/dist/standalone/index.js'),
    import('../src/app.js'),
    import('../src/apis/index.js'),
    import('../src/config.js'),
    import('../src/platform/db/pool.js'),
    import('../src/platform/log.js'),
    import('../src/platform/metrics.js'),
    import('../src/platform/http/serializers.js'),
  ]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-precompile-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    // Never connected to: building the routes reads no row.
    const pool = createPool('postgres://precompile.invalid/none', 1);
    const validators = createValidators({ precompiled: false });
    const serializerDir = path.join(generated, SERIALIZERS_DIR);
    fs.rmSync(serializerDir, { recursive: true, force: true });
    fs.mkdirSync(serializerDir, { recursive: true });
    const record = (fileName: string, code: string) => fs.writeFileSync(path.join(serializerDir, fileName), code);
    const app = await buildApp({
      config,
      pool,
      // Used by handlers only, and no request is served.
      keys: {} as KeyStore,
      metrics: createMetrics(pool, []),
      logger: createLogger(config),
      apis: API_MODULES,
      validators,
      serializers: cachingSerializerFactory({ precompiled: false, record }),
    });
    await app.ready();
    await app.close();
    await pool.end();

    const { shared, schemas } = validators.recorded();
    // Written last: the up-to-date check reads their times.
    for (const part of ['body', 'text'] as Part[]) {
      const ajv = newAjv(part, { code: { source: true } });
      for (const schema of shared) ajv.addSchema(splitIntoFunctions(schema));
      const exports: Record<string, string> = {};
      for (const { key, part: of, schema } of schemas) {
        if (of !== part) continue;
        ajv.addSchema(splitIntoFunctions(schema), `v${key}`);
        exports[`v${key}`] = `v${key}`;
      }
      // CommonJS: under NodeNext its default import is the module, whose `default` is the function.
      fs.writeFileSync(path.join(generated, PRECOMPILED_FILES[part]), standaloneCode.default(ajv, exports));
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
