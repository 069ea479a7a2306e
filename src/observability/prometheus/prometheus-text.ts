import type { MetricDefinition } from '../metric-catalogue'

/**
 * The Prometheus name of an OpenTelemetry metric, as the OpenTelemetry Prometheus exporter names
 * it: dots to underscores, the unit as a suffix (`s` → `_seconds`; a `{annotation}` unit adds
 * nothing but `{USD}` adds `_usd`), and `_total` on counters.
 */
export function prometheusName(name: string, definition: MetricDefinition): string {
  let base = name.replaceAll('.', '_')
  if (definition.unit === 's') base += '_seconds'
  else if (definition.unit === '{USD}') base += '_usd'
  return definition.kind === 'counter' ? `${base}_total` : base
}

/** A label name: dots and anything else Prometheus refuses become underscores. */
export function prometheusLabelName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_]/g, '_')
  return /^[0-9]/.test(clean) ? `_${clean}` : clean
}

/** A label value, escaped as the text format requires: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
}

/** A `# HELP` text, escaped: backslash and line feed. */
export function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')
}

/** A sample value: integers as they are, `+Inf`, `-Inf`, `NaN` spelt as Prometheus reads them. */
export function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf'
  if (value === Number.NEGATIVE_INFINITY) return '-Inf'
  if (Number.isNaN(value)) return 'NaN'
  return String(value)
}

/** The `{name="value",…}` of a series, sorted by name; empty when it has no labels. */
export function formatLabels(labels: readonly (readonly [string, string])[]): string {
  if (labels.length === 0) return ''
  return `{${labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`
}
