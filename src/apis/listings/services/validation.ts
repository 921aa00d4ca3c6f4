/*
 * Validating a listing without storing it: what a POST /listings would meet, each check by the
 * code of the write path (the route's schema, the 21 rules, the externalListingId in use, the
 * media it attaches), inside a transaction that is rolled back whatever it found.
 */
import type pg from 'pg';
import type { BlobStore } from '../../../platform/blobs/index.js';
import { type TenantScope, withTenant } from '../../../platform/db/tenant.js';
import { Problem, type FieldError } from '../../../platform/http/problems.js';
import type { ListingValidation } from '../model/console.js';
import type { ListingRequest } from '../model/listing.js';
import type { RuleChecks } from '../ruleChecks.js';
import { storeNewListing } from './listings.js';

/** Nothing a validation wrote outlives it. */
class Discard extends Error {}

/**
 * `schemaErrors`: what the route's schema found (the validator a POST runs); empty when the body
 * passed it, and only then is `request` a listing request.
 */
export async function validateListing(
  pool: pg.Pool,
  tenant: TenantScope,
  request: ListingRequest,
  schemaErrors: FieldError[],
  rules: RuleChecks,
  store?: BlobStore,
): Promise<ListingValidation> {
  if (schemaErrors.length > 0) return { valid: false, errors: schemaErrors, warnings: [] };
  const { errors, warnings } = await rules.check(request);
  const externalListingId = request.metadata.source?.offererEstateId;
  // Rule 10 reports a missing id; the write path's checks below need one.
  if (errors.length === 0 && externalListingId !== undefined) {
    const found: FieldError[] = [];
    await withTenant(pool, tenant, async (client) => {
      try {
        await storeNewListing(client, tenant, externalListingId, request, store);
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        found.push(...(error.extra.errors ?? []));
      }
      throw new Discard('rolled back: a validation stores nothing');
    }).catch((error: unknown) => {
      if (!(error instanceof Discard)) throw error;
    });
    errors.push(...found);
  }
  return { valid: errors.length === 0, errors, warnings };
}
