// pg's own conversion of a parameter value to its wire text (arrays, JSON, dates, buffers), which
// its Query applies in Bind; pg's types do not declare the module.
declare module 'pg/lib/utils.js' {
  export function prepareValue(value: unknown): unknown;
}
