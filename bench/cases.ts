import type { Target } from './child'
import { runLoad, type LoadOptions, type LoadResult } from './load'
import { benchKey, jsonRequestBody, streamRequestBody } from './payloads'
import type { TransportName } from './transports'

/** The two answer shapes measured. */
export type Format = 'json' | 'sse'

/** A target as the tables name it. */
export type Subject = {
  target: Target
  name: string
  kind: 'mock' | 'relay' | 'gateway'
  transport: TransportName | undefined
}

/** One measured case. */
export type CaseResult = LoadResult & {
  name: string
  kind: Subject['kind']
  transport: TransportName | undefined
  format: Format
  connections: number
  cpuMicrosPerRequest: number
  /** Each round's figures, when there were several (the case's own are their medians). */
  rounds?: Array<Pick<CaseResult, 'rps' | 'p50' | 'p99' | 'cpuMicrosPerRequest'>>
}

/** JSON first, then SSE, in every table. */
export const formats: Format[] = ['json', 'sse']
const bodies: Record<Format, string> = { json: jsonRequestBody, sse: streamRequestBody }
const headers = { 'content-type': 'application/json', authorization: `Bearer ${benchKey}` }

/** Loads one target with one format and prices each request in the target's CPU time. */
export async function measureCase(
  subject: Subject,
  format: Format,
  caseConnections: number,
  seconds: number,
): Promise<CaseResult> {
  const { target, name, kind, transport } = subject
  const cpuBefore = await target.cpuMicros()
  const result = await runLoad(loadOptions(target, format, caseConnections, seconds))
  const cpuAfter = await target.cpuMicros()
  if (result.errors + result.non2xx + result.timeouts > 0) {
    console.warn(
      `  ! ${name} · ${format}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`,
    )
  }
  return {
    name,
    kind,
    transport,
    format,
    connections: caseConnections,
    ...result,
    cpuMicrosPerRequest: (cpuAfter - cpuBefore) / Math.max(1, result.requests),
  }
}

/** The median of each figure over the rounds of one case (error counts are summed). */
export function medianCase(results: readonly CaseResult[]): CaseResult {
  const median = (pick: (result: CaseResult) => number) => {
    const values = results.map(pick).sort((left, right) => left - right)
    return values[Math.floor((values.length - 1) / 2)]!
  }
  const sum = (pick: (result: CaseResult) => number) =>
    results.reduce((total, result) => total + pick(result), 0)
  return {
    ...results[0]!,
    requests: median((result) => result.requests),
    rps: median((result) => result.rps),
    p50: median((result) => result.p50),
    p90: median((result) => result.p90),
    p99: median((result) => result.p99),
    max: median((result) => result.max),
    cpuMicrosPerRequest: median((result) => result.cpuMicrosPerRequest),
    errors: sum((result) => result.errors),
    non2xx: sum((result) => result.non2xx),
    timeouts: sum((result) => result.timeouts),
    ...(results.length > 1
      ? {
          rounds: results.map(({ rps, p50, p99, cpuMicrosPerRequest }) => ({
            rps,
            p50,
            p99,
            cpuMicrosPerRequest,
          })),
        }
      : {}),
  }
}

/** autocannon's settings for one case. */
export function loadOptions(
  target: Target,
  format: Format,
  caseConnections: number,
  seconds: number,
): LoadOptions {
  return {
    url: `${target.url}/v1/chat/completions`,
    body: bodies[format],
    headers,
    connections: caseConnections,
    durationS: seconds,
  }
}

/** One request before the load, so a misconfigured target fails loudly instead of benchmarking 401s. */
export async function verify(base: string, format: Format): Promise<void> {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: bodies[format],
    signal: AbortSignal.timeout(5_000),
  })
  const text = await response.text()
  const ok =
    response.status === 200 &&
    (format === 'json'
      ? text.includes('"usage":{')
      : text.endsWith('data: [DONE]\n\n') && text.includes('"usage":{'))
  if (!ok)
    throw new Error(`${base} answered ${response.status} for ${format}: ${text.slice(0, 300)}`)
}
