/*
 * The pino logger immogate and Fastify log through: JSON lines, or in dev mode lines for people.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config.js';

export type { Logger };

/**
 * Lines go to standard output as they are logged, each written before the next: pino's default
 * writes in the background and flushes what is left when the process exits, which could put a
 * process's last line ("stopped") before the one logged just before it, still on its way.
 * immogate logs a few lines a minute at info (no line per request), so writing each one at once
 * costs nothing measurable.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options = { level: config.logLevel, base: { service: 'immogate' } };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
}

/**
 * The logger of a server or worker process: in dev mode its lines go through pino-pretty (time,
 * level in colour when the terminal shows colour and NO_COLOR is unset, message, then the
 * fields), in the process itself rather than a transport's thread, so a line is out before the
 * process exits. Loaded only then: JSON lines need none of it.
 */
export async function loggerFor(config: Pick<Config, 'logLevel' | 'dev'>): Promise<Logger> {
  if (!config.dev) return createLogger(config);
  const { default: pretty } = await import('pino-pretty');
  return createLogger(config, pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'service' }));
}
