/** The raw text of a form field, so that whatever the user typed can be shown again (arrays from repeated fields joined). */
export function fieldText(body: unknown, name: string): string {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string').join('\n');
  return '';
}
