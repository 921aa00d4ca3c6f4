/* Reading a submitted form: its fields by name, as trimmed strings. */

export function fieldsOf(event: Event): Record<string, string> {
  event.preventDefault();
  const form = event.currentTarget;
  if (!(form instanceof HTMLFormElement)) return {};
  const fields: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') fields[name] = value.trim();
  return fields;
}

/** Every value of a repeated field (checkboxes of one name). */
export function valuesOf(event: Event, name: string): string[] {
  const form = event.currentTarget;
  if (!(form instanceof HTMLFormElement)) return [];
  return new FormData(form).getAll(name).filter((value): value is string => typeof value === 'string');
}

/** A list typed as "a, b c": the items separated by commas or spaces. */
export function listOf(text: string | undefined): string[] {
  return (text ?? '').split(/[\s,]+/).filter((item) => item !== '');
}
