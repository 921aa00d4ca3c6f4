/*
 * POST /classifieds/validate (an extension): what a POST of the body would meet, without writing
 * it. Schema and body errors as a 400 would list them; the business rules of every portal, those
 * the body asks for and the others, as the worker would apply them.
 */
import Type, { type Static } from 'typebox';
import { stringEnum } from '../../../platform/http/schemas.js';
import { PORTALS } from './statuses.js';

const FieldError = Type.Object({ name: Type.String(), reason: Type.String() });

export const ClassifiedValidation = Type.Object({
  valid: Type.Boolean({ description: 'A POST of this body would be acknowledged and accepted on every portal it asks for' }),
  errors: Type.Array(FieldError, { description: 'What a POST would be refused for (400): schema, body rules, duplicates' }),
  rulesChecked: Type.Boolean({ description: 'false: the body fails its schema, so the business rules were not applied' }),
  portals: Type.Array(
    Type.Object({
      portal: stringEnum(PORTALS),
      requested: Type.Boolean({ description: 'The body lists this portal' }),
      accepted: Type.Boolean(),
      violations: Type.Array(Type.Object({ rule: Type.String(), name: Type.String(), reason: Type.String() })),
    }),
    { description: 'Every portal, each with the rules it would refuse the classified for' },
  ),
});
export type ClassifiedValidation = Static<typeof ClassifiedValidation>;
