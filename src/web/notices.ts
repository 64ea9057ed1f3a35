/**
 * The notice a page shows for a `?notice=` code: only a code of the table's own (a code such as `__proto__` or
 * `toString` names something every object has, and once showed "[object Object]").
 */
export function noticeOf(notices: Readonly<Record<string, string>>, code: unknown): string | null {
  return typeof code === 'string' && Object.hasOwn(notices, code) ? notices[code] : null;
}
