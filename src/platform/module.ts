/*
 * The one plug-in point of the platform: what an API module declares (routes, admin routes, its
 * work streams and periodic tasks, sealed columns, delivery hooks, its OpenAPI document).
 * runtime.ts and app.ts only iterate the modules they are given. Its CLI commands are declared apart
 * (apis/commands.ts), so that a CLI call does not load the modules.
 */
import type { Config } from '../config.js';
import type { Pool } from './db/pool.js';
import type { DeliverySources, Redelivery, RedeliveryTarget } from './delivery/index.js';
import type { Logger } from './log.js';
import type { SealedColumn } from './secrets/stored.js';
import type { ScheduledTask } from './work/schedule.js';
import type { WorkStream } from './work/stream.js';
import type { ApiDescriptor } from './catalogue.js';
import type { ApiDocs } from './http/openapiDocs.js';
import type { ApiApp } from './http/apiApp.js';

export type { ApiApp };

/** What an API's routes may use: the platform's shared pieces, nothing of another API. */
export interface ApiDependencies {
  config: Config;
  pool: Pool;
  logger: Logger;
}

/**
 * One API: its descriptor and a plugin registering its routes relative to its root. The plugin
 * is registered once per environment; the guard runs before every route, and each route names
 * the scope it requires in `config.scope` (or `config.public`).
 */
export interface ApiModule {
  api: ApiDescriptor;
  /** Shared schemas with an `$id`, registered once for validation and the OpenAPI document; routes `$ref` them. */
  schemas?: readonly { $id: string }[];
  /** The API's work claimed from its own tables (e.g. processing what its writes acknowledged); the worker runs them. */
  streams?: readonly WorkStream<unknown>[];
  /** The API's periodic tasks; the worker schedules them beside the platform's. */
  tasks?: readonly ScheduledTask[];
  /** The columns where the API keeps sealed secrets: sealed at upgrade, checked at start, re-wrapped by a key rotation. */
  sealedColumns?: readonly SealedColumn[];
  /** Hooks of the webhook delivery machinery for the API's subscriptions (a 410 ends a subscription). */
  deliverySources?: DeliverySources;
  /** What the API's OpenAPI document says besides the schemas: operations' prose, tags, scopes (http/openapiDocs.ts). */
  docs?: ApiDocs;
  /**
   * The API's OpenAPI document, served at {root}/openapi.json in place of the one generated from
   * the route schemas (the classifieds API serves the real document with its extensions marked).
   */
  openApiDocument?(publicUrl: string): object;
  routes(app: ApiApp, deps: ApiDependencies): Promise<void>;
  /**
   * Reads only the console shows (revisions, summaries, reports), registered beside the API's own
   * routes where the console mounts them: the signed-in client's tenant and scopes, each route's
   * `config.scope` checked as on the API root.
   */
  consoleRoutes?(app: ApiApp, deps: ApiDependencies): Promise<void>;
  /** Operator routes, registered under /admin behind ADMIN_TOKEN; they act across every agency. */
  adminRoutes?(app: ApiApp, deps: ApiDependencies): Promise<void>;
}

/** What an API's CLI commands may use: the CLI's output, errors and database, as every command has them. */
export interface CliContext {
  /** Runs `fn` on the configured database, migrated first (progress on stderr). */
  withDatabase<T>(fn: (pool: Pool) => Promise<T>): Promise<T>;
  /** Prints `value` as JSON under --json, else its human form. */
  print(value: unknown, human: () => string): void;
  /** Ends the command with a message naming what was wrong in its input (exit code 1, no stack). */
  fail(message: string): never;
  /** A redeliver command's common part: checks --delivery or --since and its filters, sends, reports each delivery. */
  redeliver(options: RedeliverOptions, noun: string, send: (pool: Pool, target: RedeliveryTarget) => Promise<Redelivery>): Promise<void>;
}

/** --delivery of every redeliver command. */
export const REDELIVER_DELIVERY_OPTION =
  'a delivery id, or a webhook-id (the webhook-id header its receiver saw): then every delivery of that message, such as a lead notified to each of its subscriptions';

/** The options every redeliver command takes. */
export interface RedeliverOptions {
  delivery?: string;
  since?: string;
  agency?: string;
  environment?: 'production' | 'sandbox';
}

/** The delivery sources of `modules`, by source: what the worker and the operator's redelivery consult. */
export function deliverySourcesOf(modules: readonly ApiModule[]): DeliverySources {
  return Object.assign({}, ...modules.map((module) => module.deliverySources ?? {}));
}
