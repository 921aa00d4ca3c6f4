/*
 * The token endpoint under load.
 */
import type { Scenario } from './types.js';

export const token: Scenario = {
  name: 'token',
  about: 'POST /oauth/token, client_credentials with the secret in the body (secret hashing is slow on purpose)',
  target: 'none: secret hashing is slow on purpose',
  sharedServer: true,
  async setup(context) {
    const body = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: context.clientId,
      client_secret: context.secret,
      audience: `${context.base}/caas/v4`,
      intermediary_id: 'bench-agency',
    });
    return {
      load: {
        url: context.base,
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/json' },
        body,
        connections: 10,
      },
    };
  },
};
