/**
 * A plain-text table as kubectl prints one: columns padded to their widest cell plus three
 * spaces, the last column unpadded, no trailing spaces. Cells arrive sanitised.
 */
export function columns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3)))
      .join('')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
