/* The API modules immogate serves: the one list runtime.ts, app.ts and cli.ts iterate. */
import { classifiedsApi } from './classifieds/index.js';
import { leadsApi } from './leads/index.js';
import { listingsApi } from './listings/index.js';
import type { ApiModule } from '../platform/module.js';

/** The API modules immogate serves. */
export const API_MODULES: readonly ApiModule[] = [classifiedsApi, leadsApi, listingsApi];
