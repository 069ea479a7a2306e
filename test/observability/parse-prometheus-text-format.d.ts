declare module 'parse-prometheus-text-format' {
  /** One sample, or one histogram's buckets, count and sum, as prom2json prints them. */
  export type ParsedMetric = {
    value?: string
    labels?: Record<string, string>
    buckets?: Record<string, string>
    count?: string
    sum?: string
  }
  /** One metric family. */
  export type ParsedFamily = {
    name: string
    help: string
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    metrics: ParsedMetric[]
  }
  /** Parses Prometheus text format 0.0.4; throws on a malformed line. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[]
}
