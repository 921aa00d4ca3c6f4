/*
 * The mark on every bound immogate adds where the classifieds contract sets none (an array's
 * maxItems), so the served OpenAPI document tells them apart from the contract's own.
 */
export const BOUND_MARK = 'x-immogate-bound';
export const BOUND_NOTE = 'maxItems added by immogate: the contract sets no bound';
