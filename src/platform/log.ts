import { pino, type Logger } from 'pino';
import { Logger as GraphileLogger } from 'graphile-worker';
import type { Config } from '../config.js';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'immogate' } });
}

/** graphile-worker writes through our pino logger, so one log stream carries both. */
export function graphileLogger(logger: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level, message, meta) => {
    const fields = { ...scope, ...(meta ?? {}) };
    if (level === 'error') logger.error(fields, message);
    else if (level === 'warning') logger.warn(fields, message);
    else if (level === 'info') logger.info(fields, message);
    else logger.debug(fields, message);
  });
}
