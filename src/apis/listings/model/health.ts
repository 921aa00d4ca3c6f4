/* The answer of GET /health: the overall status and the status of each component. */
import Type, { type Static } from 'typebox';
import { stringEnum } from '../../../platform/http/schemas.js';

export const HEALTH_STATUSES = ['PASS', 'FAIL'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** The body of both the 200 and the 503. */
export const Health = Type.Object(
  {
    status: stringEnum(HEALTH_STATUSES, { description: 'PASS when every component passes' }),
    components: Type.Array(Type.Object({ name: Type.String(), status: stringEnum(HEALTH_STATUSES) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type Health = Static<typeof Health>;
