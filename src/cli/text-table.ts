// A plain right-aligned text table, for command output a person reads (machines read the JSON line).
export function textTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row: readonly string[]) => row.map((cell, i) => cell.padStart(widths[i])).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n') + '\n';
}
