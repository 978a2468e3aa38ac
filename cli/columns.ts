/**
 * A plain-text table as kubectl prints one: columns padded to their widest cell plus three
 * spaces, the last column unpadded, no trailing spaces. Cells arrive sanitised. Without the
 * header row (`--no-headers`), as kubectl's columns: as wide as the widest cell.
 */
type Row = readonly string[];

export function columns(header: Row, rows: readonly Row[], noHeaders = false): string {
  const shown = noHeaders ? rows : [header, ...rows];
  const widths = header.map((_, i) => Math.max(0, ...shown.map((r) => (r[i] ?? '').length)));
  const line = (cells: Row) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3)))
      .join('')
      .trimEnd();
  return shown.map(line).join('\n');
}
