/*
 * The mark on every bound immogate adds where the classifieds contract sets none (an array's
 * maxItems), so the served OpenAPI document tells them apart from the contract's own.
 */
export const BOUND_MARK = 'x-immogate-bound';
export const BOUND_NOTE = 'maxItems added by immogate: the contract sets no bound';

/**
 * The mark on every other limit immogate adds where the contract sets none: a string's maxLength,
 * an open object's bounds on the members it does not name. Kept apart from BOUND_MARK, which the
 * served document carries onto the contract's arrays.
 */
export const LIMIT_MARK = 'x-immogate-limit';
export const LIMIT_NOTE = 'added by immogate: the contract sets no bound';
