/*
 * The lead API's operator commands: GDPR erasure of an author, and redelivery of notifications.
 * Their services are loaded by the command that runs (apis/commands.ts says why).
 */
import { type Command, Option } from 'commander';
import { REDELIVER_DELIVERY_OPTION, type CliContext, type RedeliverOptions } from '../../platform/module.js';

export function leadCommands(program: Command, cli: CliContext): void {
  const leads = program.command('leads').description('Lead API operations');
  leads
    .command('erase')
    .description('GDPR erasure: empties the personal data of every lead of an author, and of their stored notifications')
    .requiredOption('--email <address>', "the author's email address (case-insensitive)")
    .action(async (options: { email: string }) => {
      if (!/^[^\s@]+@[^\s@]+$/.test(options.email.trim())) cli.fail(`--email must be an email address, got "${options.email}"`);
      const { eraseAuthor } = await import('./services/erasure.js');
      const result = await cli.withDatabase((pool) => eraseAuthor(pool, options.email));
      cli.print(
        result,
        () => `erased ${result.leadsErased} lead(s) of ${result.email}; scrubbed ${result.notificationsScrubbed} stored notification(s)`,
      );
    });
  leads
    .command('redeliver')
    .description(
      'send lead notifications again, whatever their state by id, or every failed one since a time (a worker sends them); prints each delivery id with the webhook-id its receiver saw (the lead id)',
    )
    .option('--delivery <id>', REDELIVER_DELIVERY_OPTION)
    .option('--since <time>', 'ISO 8601 time: every failed notification created since then')
    .option('--agency <id>', 'with --since: only this agency')
    .addOption(new Option('--environment <environment>', 'with --since: only this environment').choices(['production', 'sandbox']))
    .action(async (options: RedeliverOptions) => {
      const { redeliverLeadNotifications } = await import('./services/notifications.js');
      await cli.redeliver(options, 'notification(s)', redeliverLeadNotifications);
    });
}
