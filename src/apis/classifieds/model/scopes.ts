/*
 * The scope each operation requires, by the contract's operationId: the routes require them and the
 * served OpenAPI document lists them.
 */
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
