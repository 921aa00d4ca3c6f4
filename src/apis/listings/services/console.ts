/*
 * One listing as the console shows it: its dates, the warnings its rules find, its media, and
 * when the sandbox's retention removes it.
 */
import type pg from 'pg';
import { type TenantScope, withTenant } from '../../../platform/db/tenant.js';
import { notFound } from '../../../platform/http/problems.js';
import type { ListingDetails } from '../model/console.js';
import { findListing, mediaOfListing } from '../repository.js';
import { listingWarnings } from '../rules.js';
import { SANDBOX_RETENTION_DAYS } from './retention.js';

const DAY_MS = 24 * 3600 * 1000;

export async function listingDetails(pool: pg.Pool, tenant: TenantScope, externalListingId: string): Promise<ListingDetails> {
  return withTenant(pool, tenant, async (client) => {
    const row = await findListing(client, tenant, externalListingId);
    if (!row) throw notFound(`No listing with externalListingId "${externalListingId}"`);
    const media = await mediaOfListing(client, row.id);
    return {
      listingId: row.id,
      externalListingId: row.external_listing_id,
      isPublished: row.is_published,
      createdAt: row.created_at.toISOString(),
      lastWriteAt: row.last_write_at.toISOString(),
      expiresAt:
        tenant.environment === 'sandbox' ? new Date(row.last_write_at.getTime() + SANDBOX_RETENTION_DAYS * DAY_MS).toISOString() : null,
      warnings: listingWarnings(row.request),
      media: media.map((item) => ({
        externalMediaId: item.external_media_id,
        fileName: item.file_name,
        state: item.state,
        contentType: item.content_type,
        sizeBytes: item.size_bytes,
      })),
    };
  });
}
