import type { Load } from '../driver.js';

/** What run.ts hands every scenario: immogate's address, a token, the database and a way to start helpers. */
export interface Context {
  base: string;
  databaseUrl: string;
  /** A caas token for the bench client, acting for agency "bench-agency". */
  token: string;
  clientId: string;
  secret: string;
  /** Forks bench/<file>.js with `env` and waits for the address it reports. */
  start(file: string, env: Record<string, string>): Promise<{ address: string; stop(): Promise<void> }>;
}

export interface Scenario {
  name: string;
  about: string;
  target?: string;
  /** Ratios to the baselines are shown for every scenario that is not itself a baseline. */
  baseline?: 'a' | 'b';
  /** Report the immogate process's peak RSS over this scenario's runs. */
  memory?: boolean;
  setup(context: Context): Promise<{ load: Omit<Load, 'seconds'>; stop?: () => Promise<void> }>;
}

export const USER_AGENT = 'ImmogateBench/1.0.0 node/20 linux/6';
export const CONNECTIONS = 50;
