/*
 * What the CLI needs of the API modules to build its commands, apart from the modules themselves:
 * a CLI call loads only what the command it runs needs, not every API's server code (about half a
 * second of CPU per call).
 */
import type { Command } from 'commander';
import type { CliContext } from '../platform/module.js';
import { leadCommands } from './leads/commands.js';

/** Each API's operator commands, added to the `immogate` CLI. */
export const API_COMMANDS: readonly ((program: Command, cli: CliContext) => void)[] = [leadCommands];

/** The names of the webhook sources the API modules declare (deliverySources), for `deliveries redeliver --api`. */
export const WEBHOOK_SOURCES: readonly string[] = ['caas', 'leads'];
