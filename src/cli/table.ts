/** A plain-text table: a header row, then one row per item, columns padded to their widest cell. */
export function formatColumns(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `2026-03-01 14:05` in UTC (the server's timestamps are ISO 8601), or `fallback` when there is none. */
export function shortTime(iso: string | null | undefined, fallback = '-'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 16).replace('T', ' ');
}
