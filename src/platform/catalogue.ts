/*
 * The APIs immogate serves, each at a production root and a sandbox root. Token audiences,
 * scope checks, the per-API OpenAPI documents and route registration all derive from this list.
 */
export type Environment = 'production' | 'sandbox';
export const ENVIRONMENTS: readonly Environment[] = ['production', 'sandbox'];

export interface ApiDescriptor {
  readonly id: 'caas' | 'clim' | 'leads';
  readonly title: string;
  readonly version: string;
  /** Production root path; the sandbox root is `/sandbox` + this. */
  readonly root: string;
  /** Scope prefix; `<prefix>:*` grants all of the API. */
  readonly scopePrefix: string;
  /** Every scope a client may hold for this API, wildcards included. */
  readonly scopes: readonly string[];
  /**
   * What the API's contract asks of the User-Agent header: `three-part` (classifieds: required,
   * `name/version` three times, else 400 with errorSource header), `firewall` (listing import:
   * required, else 403 as the portal's firewall answers), `none` (leads: the spec names none).
   */
  readonly userAgent: 'three-part' | 'firewall' | 'none';
  /** Its answers carry personal data (a lead's contact): none may be kept by a cache (Cache-Control: no-store). */
  readonly personalData: boolean;
}

export const APIS: readonly ApiDescriptor[] = [
  {
    id: 'caas',
    title: 'Classifieds ingestion API',
    version: '4.0.2',
    root: '/caas/v4',
    scopePrefix: 'caas',
    scopes: [
      'caas:*',
      'caas:classifieds:*',
      'caas:classifieds:read',
      'caas:classifieds:create',
      'caas:classifieds:update',
      'caas:classifieds:delete',
    ],
    userAgent: 'three-part',
    personalData: false,
  },
  {
    id: 'clim',
    title: 'Listing import API (German market)',
    version: '1.0.7',
    root: '/import-listings/v1',
    scopePrefix: 'clim',
    scopes: [
      'clim:*',
      'clim:listings:*',
      'clim:medias:*',
      'clim:listings:create',
      'clim:listings:read',
      'clim:listings:update',
      'clim:listings:delete',
      'clim:medias:create',
    ],
    userAgent: 'firewall',
    personalData: false,
  },
  {
    id: 'leads',
    title: 'Lead API',
    version: '1.4.0',
    root: '/seeker-leads/v1',
    scopePrefix: 'leads',
    scopes: ['leads:*', 'leads:read', 'leads:create', 'leads:webhooks'],
    userAgent: 'none',
    personalData: true,
  },
];

/** The descriptor of one of immogate's APIs. */
export function apiById(id: ApiDescriptor['id']): ApiDescriptor {
  const api = APIS.find((candidate) => candidate.id === id);
  if (!api) throw new Error(`no API ${id} in the catalogue`);
  return api;
}

export function rootPath(api: ApiDescriptor, environment: Environment): string {
  return environment === 'sandbox' ? `/sandbox${api.root}` : api.root;
}

export interface Audience {
  readonly api: ApiDescriptor;
  readonly environment: Environment;
  readonly url: string;
}

/** The absolute roots a token may be issued for: one per API and environment. */
export function audiences(publicUrl: string): Audience[] {
  return APIS.flatMap((api) => ENVIRONMENTS.map((environment) => ({ api, environment, url: publicUrl + rootPath(api, environment) })));
}

export const ALL_SCOPES: readonly string[] = APIS.flatMap((api) => api.scopes);
