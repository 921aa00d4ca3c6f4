/** Route schema pieces shared by the classifieds routes. */
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
