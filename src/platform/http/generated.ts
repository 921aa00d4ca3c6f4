/*
 * The code every build generates (scripts/precompile.ts) under dist/src/generated/: the route
 * validators (validation.ts) and the answers' serializers (serializers.ts), each found by a digest
 * of what it was made from. A build without it (tsc alone) leaves the directory out: then nothing
 * is found and both compile as before.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

/** A short key for a long text (the shared schemas hold the whole classified): hex, so it can name a file or an export. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const GENERATED_DIR = new URL('../../generated/', import.meta.url);
const requireGenerated = createRequire(import.meta.url);

/** The module the build generated at `file` (relative to the generated directory), or undefined when there is none. */
export function loadGenerated<T>(file: string): T | undefined {
  try {
    return requireGenerated(new URL(file, GENERATED_DIR).pathname) as T;
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
