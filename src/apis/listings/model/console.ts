/*
 * What the console and the validation extension answer about listings: one listing's details
 * (its rules' warnings, its media, when the sandbox removes it), and a validation report.
 */
import Type, { type Static } from 'typebox';
import { nullable } from '../../../platform/http/schemas.js';
import { object } from './request.js';

const dateTime = Type.String({ format: 'date-time' });
const warning = object({ type: Type.String(), message: Type.String() });

export const ListingDetails = object({
  listingId: Type.String({ format: 'uuid' }),
  externalListingId: Type.String(),
  isPublished: Type.Boolean(),
  createdAt: dateTime,
  lastWriteAt: dateTime,
  expiresAt: nullable({ ...dateTime, description: 'Sandbox: when retention removes it (90 days after the last write); production: null' }),
  warnings: Type.Array(warning, { description: 'What the rules find in the stored listing, without blocking it' }),
  media: Type.Array(
    object({
      externalMediaId: Type.String(),
      fileName: Type.String(),
      state: Type.String(),
      contentType: Type.String(),
      sizeBytes: nullable(Type.Integer()),
    }),
  ),
});
export type ListingDetails = Static<typeof ListingDetails>;

export const ListingValidation = object({
  valid: Type.Boolean({ description: 'A POST of this body would be answered 201' }),
  errors: Type.Array(object({ name: Type.String(), reason: Type.String() }), {
    description: 'What a POST would be refused for (400): the schema, the 21 rules, an externalListingId in use',
  }),
  warnings: Type.Array(warning, { description: 'What a POST would warn of' }),
});
export type ListingValidation = Static<typeof ListingValidation>;
