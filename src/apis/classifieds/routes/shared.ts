/** Route schema pieces shared by the classifieds routes. */

/** The scope each operation requires, by the contract's operationId; the served OpenAPI document lists them too. */
export const SCOPES = {
  createClassified: 'caas:classifieds:create',
  getClassifieds: 'caas:classifieds:read',
  GetClassified: 'caas:classifieds:read',
  updateClassified: 'caas:classifieds:update',
  deleteClassified: 'caas:classifieds:delete',
  getClassifiedStatuses: 'caas:classifieds:read',
  createSubscriptionToWebhook: 'caas:classifieds:*',
  deleteSubscriptionToWebhook: 'caas:classifieds:*',
} as const;

export const CLASSIFIED_SCHEMA_ID = 'CaasClassified';

export const classifiedIdParams = {
  type: 'object',
  required: ['classifiedId'],
  properties: { classifiedId: { type: 'string', format: 'uuid' } },
  additionalProperties: false,
} as const;

export interface ClassifiedIdParams {
  classifiedId: string;
}

export const acknowledgement = {
  type: 'object',
  required: ['classifiedId', 'links'],
  properties: {
    classifiedId: { type: 'string', format: 'uuid' },
    links: { type: 'array', items: { type: 'object', properties: { statuses: { type: 'string' } } } },
  },
} as const;

export function acknowledgementBody(classifiedId: string): { classifiedId: string; links: { statuses: string }[] } {
  return { classifiedId, links: [{ statuses: `/classifieds/${classifiedId}/statuses` }] };
}
