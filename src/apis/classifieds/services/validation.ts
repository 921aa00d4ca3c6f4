/*
 * Validating a classified without writing it: the checks of the write path (the route's schema,
 * checkBody, the duplicate lookups) and the rules the worker applies, each by the code that does it
 * there. Nothing is written, nothing queued.
 */
import type pg from 'pg';
import type { Tenant } from '../../../platform/db/tenant.js';
import { Problem, type FieldError } from '../../../platform/http/problems.js';
import type { Classified } from '../model/classified.js';
import { PORTALS } from '../model/statuses.js';
import type { ClassifiedValidation } from '../model/validation.js';
import { applyRules } from '../rules.js';
import { checkBody, duplicatesOf } from './classifieds.js';

function fieldErrorsOf(problem: Problem): FieldError[] {
  return problem.extra.errors ?? [{ name: '', reason: problem.detail }];
}

/**
 * `schemaErrors`: what the route's schema found (the same validator a POST runs); empty when the
 * body passed it, and only then is `body` a classified.
 */
export async function validateClassified(
  pool: pg.Pool,
  tenant: Tenant,
  body: Classified,
  schemaErrors: FieldError[],
): Promise<ClassifiedValidation> {
  if (schemaErrors.length > 0) return { valid: false, errors: schemaErrors, rulesChecked: false, portals: [] };
  const errors: FieldError[] = [];
  try {
    checkBody(body);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    errors.push(...fieldErrorsOf(error));
  }
  errors.push(...(await duplicatesOf(pool, tenant, body)));
  const outcome = applyRules({ ...body, portals: [...PORTALS] });
  const portals = PORTALS.map((portal) => {
    const violations = outcome.rejected.find((rejected) => rejected.portal === portal)?.violations ?? [];
    return {
      portal,
      requested: body.portals.includes(portal),
      accepted: violations.length === 0,
      violations: violations.map((violation) => ({ rule: violation.rule, name: violation.field, reason: violation.reason })),
    };
  });
  const refused = portals.some((portal) => portal.requested && !portal.accepted);
  return { valid: errors.length === 0 && !refused, errors, rulesChecked: true, portals };
}
