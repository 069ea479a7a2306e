import { formats, type CaseResult, type Format } from './cases'

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd()
  const rule = widths.map((width) => '-'.repeat(width)).join('  ')
  return [line(header), rule, ...rows.map(line)].join('\n')
}

/** A number with a fixed count of decimals, or `-` when there is none. */
export function fixed(value: number | undefined, decimals: number): string {
  return value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(decimals)
}

/** A signed difference, `+0.42`, or `-` when either side is missing. */
export function delta(value: number | undefined, base: number | undefined, decimals = 2): string {
  if (value === undefined || base === undefined) return '-'
  const difference = value - base
  if (!Number.isFinite(difference)) return '-'
  return `${difference >= 0 ? '+' : ''}${difference.toFixed(decimals)}`
}

/** The load table: one row per case, JSON then SSE, with deltas against the bare relay. */
export function loadTable(results: readonly CaseResult[], withCpu: boolean): string {
  const relayOf = (format: Format) =>
    results.find((result) => result.kind === 'relay' && result.format === format)
  const rows = formats.flatMap((format) =>
    results
      .filter((result) => result.format === format)
      .map((result) => {
        const relay = result.kind === 'gateway' ? relayOf(format) : undefined
        const row = [
          `${result.name} · ${format}`,
          fixed(result.rps, 0),
          fixed(result.p50, 2),
          fixed(result.p99, 2),
        ]
        if (withCpu) row.push(fixed(result.cpuMicrosPerRequest, 0))
        row.push(delta(result.p50, relay?.p50), delta(result.p99, relay?.p99))
        if (withCpu) row.push(delta(result.cpuMicrosPerRequest, relay?.cpuMicrosPerRequest, 0))
        return row
      }),
  )
  const header = ['case', 'req/s', 'p50 ms', 'p99 ms']
  if (withCpu) header.push('CPU µs/req')
  header.push('Δp50 ms', 'Δp99 ms')
  if (withCpu) header.push('ΔCPU µs')
  return formatTable(header, rows)
}
