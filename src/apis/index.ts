import { classifiedsApi } from './classifieds/index.js';
import { leadsApi } from './leads/index.js';
import type { ApiModule } from './module.js';

/** The API modules immogate serves. Each API issue adds its module here. */
export const API_MODULES: readonly ApiModule[] = [classifiedsApi, leadsApi];
