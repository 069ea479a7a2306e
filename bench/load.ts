import autocannon from 'autocannon'

/** One load run's settings. */
export type LoadOptions = {
  url: string
  body: string
  headers: Record<string, string>
  connections: number
  durationS: number
  /** A number of requests to send instead of a duration. */
  amount?: number
  /** autocannon's per-request timeout in seconds (10). */
  timeoutS?: number
}

/** What one load run measured; latencies are in milliseconds. */
export type LoadResult = {
  requests: number
  rps: number
  p50: number
  p90: number
  p99: number
  max: number
  errors: number
  non2xx: number
  timeouts: number
}

/**
 * Runs autocannon against one URL and records every 2xx latency itself, at microsecond
 * precision: autocannon's own histogram counts whole milliseconds, too coarse for a relay whose
 * median is a few milliseconds.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = []
  const instance = autocannon({
    url: options.url,
    method: 'POST',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    pipelining: 1,
    ...(options.amount === undefined
      ? { duration: options.durationS }
      : { amount: options.amount }),
    timeout: options.timeoutS ?? 10,
  })
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms)
  })
  const startedAt = performance.now()
  const result = await instance
  const elapsedS = (performance.now() - startedAt) / 1000
  latencies.sort((left, right) => left - right)
  return {
    requests: latencies.length,
    rps: latencies.length / elapsedS,
    p50: percentile(latencies, 0.5),
    p90: percentile(latencies, 0.9),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
  }
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))
  return sorted[rank]!
}
