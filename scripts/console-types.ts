/*
 * The console's types of the answers it reads (console/src/generated/answers.ts), from the very
 * TypeBox schemas the server validates and serializes them with: the browser bundle cannot import
 * those schemas without the server, so their TypeScript is generated (by openapi-typescript, as
 * the client package's is) and checked in. `npm run generate:console-types` writes it; a test
 * (test/console/types.test.ts) fails when it drifts from the schemas.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { Changes, RevisionPage, Revision, SummaryPage, WebhookAnswer } from '../src/apis/classifieds/model/console.js';
import { StatusPage } from '../src/apis/classifieds/model/statuses.js';
import { ClassifiedValidation } from '../src/apis/classifieds/model/validation.js';
import { LeadPage } from '../src/apis/leads/model/lead.js';
import { SubscriptionPage } from '../src/apis/leads/model/subscription.js';
import { RecentLeads } from '../src/apis/leads/routes/console.js';
import { ListingDetails, ListingValidation } from '../src/apis/listings/model/console.js';
import { ListingPage } from '../src/apis/listings/model/listing.js';
import { ImportAccepted, ImportPage, OpenImmoImport } from '../src/apis/listings/model/openimmo.js';
import { Client, ClientWithSecret, Report } from '../src/platform/auth/clientRoutes.js';
import { SessionBody } from '../src/platform/console/signIn.js';
import { TokenUsage } from '../src/platform/console/tokenUsage.js';
import { Delivery, DeliverySummary } from '../src/platform/delivery/model.js';
import { RedeliveryResult } from '../src/platform/delivery/routes.js';
import { PROBLEM_SCHEMA } from '../src/platform/openapi.js';
import { Pipeline } from '../src/platform/operator.js';

/** The repository's root (this file runs from dist/scripts/). */
const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CONSOLE_TYPES_FILE = path.join(REPOSITORY, 'console/src/generated/answers.ts');

/** Each answer the console reads, by the name its types take (console/src/types.ts names their parts). */
const ANSWERS: Readonly<Record<string, unknown>> = {
  Problem: PROBLEM_SCHEMA,
  Session: SessionBody,
  SummaryPage,
  StatusPage,
  RevisionPage,
  Revision,
  Changes,
  ClassifiedValidation,
  CaasWebhook: WebhookAnswer,
  ListingPage,
  ListingDetails,
  ListingValidation,
  OpenImmoImport,
  ImportPage,
  ImportAccepted,
  LeadPage,
  RecentLeads,
  SubscriptionPage,
  DeliverySummary,
  Delivery,
  Redelivery: RedeliveryResult,
  TokenUsage,
  Client,
  ClientWithSecret,
  TokenReport: Report,
  Pipeline,
};

/** The TypeScript of the console's answers, as console/src/generated/answers.ts holds it. */
export async function consoleTypes(): Promise<string> {
  // The schemas as JSON text (TypeBox's own markers left out), under one OpenAPI document's components.
  const document = {
    openapi: '3.1.0',
    info: { title: 'immogate console answers', version: '1' },
    paths: {},
    components: { schemas: ANSWERS },
  };
  const nodes = await openapiTS(JSON.stringify(document), { defaultNonNullable: false, silent: true });
  const header =
    '/*\n * Generated from the route schemas of the answers the console reads (scripts/console-types.ts) by\n' +
    ' * `npm run generate:console-types`: do not edit (test/console/types.test.ts fails when it drifts).\n */\n';
  return header + astToString(nodes);
}
