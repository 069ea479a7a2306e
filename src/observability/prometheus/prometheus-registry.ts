import { metricCatalogue, type MetricLabels, type MetricName } from '../metric-catalogue'
import {
  escapeHelp,
  formatLabels,
  formatValue,
  prometheusLabelName,
  prometheusName,
} from './prometheus-text'

type Labels = readonly (readonly [string, string])[]
type CounterSeries = { labels: Labels; value: number }
type HistogramSeries = { labels: Labels; counts: number[]; sum: number; count: number }

/** The label set of series past the cap: one overflow series per metric. */
const overflowLabels: Labels = [['overflow', 'true']]

/**
 * Counters, histograms and gauges in memory, rendered in the Prometheus text format 0.0.4. Each
 * metric keeps at most `maxSeries` label sets; measures of a new one past the cap go to a single
 * `overflow="true"` series, so a label that should never have been unbounded cannot exhaust memory.
 */
export function createPrometheusRegistry(maxSeries: number) {
  const counters = new Map<MetricName, Map<string, CounterSeries>>()
  const histograms = new Map<MetricName, Map<string, HistogramSeries>>()

  function seriesOf<T>(
    store: Map<MetricName, Map<string, T>>,
    name: MetricName,
    labels: MetricLabels,
    make: (labels: Labels) => T,
  ): T {
    let series = store.get(name)
    if (series === undefined) store.set(name, (series = new Map()))
    const sorted: Labels = Object.entries(labels)
      .map(([label, value]) => [prometheusLabelName(label), String(value)] as const)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    const key = JSON.stringify(sorted)
    const found = series.get(key)
    if (found !== undefined) return found
    if (series.size >= maxSeries) {
      const overflowKey = JSON.stringify(overflowLabels)
      let overflow = series.get(overflowKey)
      if (overflow === undefined) series.set(overflowKey, (overflow = make(overflowLabels)))
      return overflow
    }
    const made = make(sorted)
    series.set(key, made)
    return made
  }

  return {
    add(name: MetricName, value: number, labels: MetricLabels): void {
      seriesOf(counters, name, labels, (sorted) => ({ labels: sorted, value: 0 })).value += value
    },
    record(name: MetricName, value: number, labels: MetricLabels): void {
      const buckets = bucketsOf(name)
      const series = seriesOf(histograms, name, labels, (sorted) => ({
        labels: sorted,
        counts: buckets.map(() => 0),
        sum: 0,
        count: 0,
      }))
      // Each bucket counts what is at most its bound; rendering makes them cumulative.
      const index = buckets.findIndex((bound) => value <= bound)
      if (index >= 0) series.counts[index]! += 1
      series.sum += value
      series.count += 1
    },
    /** The text of every metric measured so far, and of `gauges` read now. */
    render(gauges: ReadonlyMap<MetricName, readonly [MetricLabels, number][]>): string {
      const lines: string[] = []
      for (const name of Object.keys(metricCatalogue) as MetricName[]) {
        const definition = metricCatalogue[name]
        const promName = prometheusName(name, definition)
        const head = () => {
          lines.push(`# HELP ${promName} ${escapeHelp(definition.description)}`)
          lines.push(
            `# TYPE ${promName} ${definition.kind === 'counter' ? 'counter' : definition.kind === 'histogram' ? 'histogram' : 'gauge'}`,
          )
        }
        if (definition.kind === 'counter') {
          const series = counters.get(name)
          if (series === undefined) continue
          head()
          for (const { labels, value } of series.values()) {
            lines.push(`${promName}${formatLabels(labels)} ${formatValue(value)}`)
          }
        } else if (definition.kind === 'histogram') {
          const series = histograms.get(name)
          if (series === undefined) continue
          head()
          const buckets = bucketsOf(name)
          for (const { labels, counts, sum, count } of series.values()) {
            let cumulative = 0
            for (const [index, bound] of buckets.entries()) {
              cumulative += counts[index]!
              lines.push(
                `${promName}_bucket${formatLabels([...labels, ['le', formatValue(bound)]])} ${cumulative}`,
              )
            }
            lines.push(`${promName}_bucket${formatLabels([...labels, ['le', '+Inf']])} ${count}`)
            lines.push(`${promName}_sum${formatLabels(labels)} ${formatValue(sum)}`)
            lines.push(`${promName}_count${formatLabels(labels)} ${count}`)
          }
        } else {
          const readings = gauges.get(name)
          if (readings === undefined || readings.length === 0) continue
          head()
          for (const [labels, value] of readings) {
            const sorted = Object.entries(labels)
              .map(([label, text]) => [prometheusLabelName(label), String(text)] as const)
              .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
            lines.push(`${promName}${formatLabels(sorted)} ${formatValue(value)}`)
          }
        }
      }
      return lines.length === 0 ? '' : `${lines.join('\n')}\n`
    },
  }
}

function bucketsOf(name: MetricName): readonly number[] {
  const definition = metricCatalogue[name]
  return 'buckets' in definition ? definition.buckets : []
}
