/* The worker-thread side of ruleChecks.ts: the 21 rules of one listing request, off the event loop. */
import type { ListingRequest } from './model/listing.js';
import { type CheckOptions, type CheckResult, checkListing } from './rules.js';

export default function checkOnWorker({ request, options }: { request: ListingRequest; options: CheckOptions }): CheckResult {
  return checkListing(request, options);
}
