/* The operator's GDPR erasure of a lead author (POST /admin/leads/erasures): what it takes and what it answers. */
import Type, { type Static } from 'typebox';

export const ErasureRequest = Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }) }, { additionalProperties: false });

export const ErasureResult = Type.Object({
  // The address as given (trimmed).
  email: Type.String(),
  // Leads erased before are not counted again.
  leadsErased: Type.Integer({ description: 'Leads whose personal data this request erased' }),
  notificationsScrubbed: Type.Integer({ description: 'Stored webhook notifications whose payload this request scrubbed' }),
});
export type ErasureResult = Static<typeof ErasureResult>;
