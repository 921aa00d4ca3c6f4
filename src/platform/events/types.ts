/* The event types of each API's feed (migrations/017_event_feed.sql writes them) and the scope that reads it. */
import type { ApiDescriptor } from '../catalogue.js';

export interface FeedOf {
  /** What `types=` may name. */
  readonly types: readonly string[];
  /** The API's read scope: whoever may read what the events point to may read the events. */
  readonly scope: string;
  /** The member of `data` the events are about, as `subject` names it (for the documents). */
  readonly subject: string;
}

export const FEEDS: Readonly<Record<ApiDescriptor['id'], FeedOf>> = {
  caas: { types: ['classified.status'], scope: 'caas:classifieds:read', subject: 'classifiedId' },
  leads: { types: ['lead.received'], scope: 'leads:read', subject: 'leadId' },
  clim: {
    types: ['listing.created', 'listing.updated', 'listing.deleted', 'listing.media_attached'],
    scope: 'clim:listings:read',
    subject: 'externalListingId',
  },
};
