/*
 * immogate as a user runs it (`node bin/immogate.js start`: server and worker), beside the loopback
 * media server and webhook receiver, for the scenarios that measure what users get (issue 36).
 */
import { freePort } from '../test/helpers.js';
import { startImmogateCommand } from './immogateCommand.js';
import { type Context, type Started, USER_AGENT } from './scenarios/types.js';

/**
 * The capacity limits (issue 33) set above anything the bench sends (a few thousand requests a
 * second, some hundred thousand classifieds left waiting), not turned off: the quota and backlog
 * checks still run on every request, as they do for a user, and never refuse one.
 */
export const ABOVE_BENCH_LOAD: Readonly<Record<string, string>> = {
  QUOTA_WRITES_PER_SECOND: '1000000',
  QUOTA_READS_PER_SECOND: '1000000',
  MAX_BACKLOG_PER_AGENCY: '100000000',
  MAX_WAITING_PER_AGENCY: '100000000',
};

export interface UserRun {
  base: string;
  /** A caas token of a client of `agency` for `base`. */
  token: string;
  loopback: Started;
  stop(): Promise<void>;
}

/** A caas client's status webhook subscription, to the loopback receiver under `hook`. */
export async function subscribeStatuses(base: string, token: string, receiver: string, hook: string): Promise<void> {
  const response = await fetch(`${base}/caas/v4/webhooks`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiver}/hooks/${hook}`, secret: 'bench-status-webhook-secret' }),
  });
  if (response.status >= 300) throw new Error(`status webhook subscription failed: ${response.status} ${await response.text()}`);
}

export async function unsubscribeStatuses(base: string, token: string): Promise<void> {
  await fetch(`${base}/caas/v4/webhooks`, { method: 'DELETE', headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT } });
}

/**
 * Starts the loopback helper and `immogate start` on the bench's database, with the limits above
 * the bench's load (said so on stderr), and a client of `agency`, subscribed to its status webhooks
 * if `subscribe` says so (the worker then sends them, as it does for a CRM that listens; each POST
 * then also schedules its RECEIVED webhook, which `post` does not pay).
 */
export async function startAsUsersRun(
  context: Context,
  label: string,
  agency: string,
  { subscribe = false }: { subscribe?: boolean } = {},
): Promise<UserRun> {
  const loopback = await context.start('loopback', {});
  try {
    const port = await freePort();
    const running = await startImmogateCommand(
      { databaseUrl: context.databaseUrl, dataDir: context.dataDir, port, nodeFlags: context.profileFlags() },
      { ALLOW_PRIVATE_TARGETS: 'true', ...ABOVE_BENCH_LOAD },
      label,
    );
    process.stderr.write(
      `${label}: immogate start (server and worker) with its quotas and backlog bounds set above the bench's load: ${Object.entries(
        ABOVE_BENCH_LOAD,
      )
        .map(([name, value]) => `${name}=${value}`)
        .join(', ')}; log ${running.logFile}\n`,
    );
    let token: string;
    try {
      token = await context.issueToken(running.base, { root: '/caas/v4', agency, scopes: ['caas:*'] });
      if (subscribe) await subscribeStatuses(running.base, token, loopback.address, label);
    } catch (error) {
      await running.stop();
      throw error;
    }
    return {
      base: running.base,
      token,
      loopback,
      async stop() {
        if (subscribe) await unsubscribeStatuses(running.base, token);
        await running.stop();
        await loopback.stop();
      },
    };
  } catch (error) {
    await loopback.stop();
    throw error;
  }
}
