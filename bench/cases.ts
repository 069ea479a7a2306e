import type { Target } from './child'
import { runLoad, type LoadOptions, type LoadResult } from './load'
import {
  anthropicStreamRequestBody,
  benchKey,
  jsonRequestBody,
  streamRequestBody,
  translatedRequestBody,
} from './payloads'
import type { TransportName } from './transports'

/**
 * The answer shapes measured: passthrough JSON, passthrough SSE, and SSE translated from an
 * Anthropic upstream for an OpenAI client (the bare relay moves the same Anthropic stream as is).
 */
export type Format = 'json' | 'sse' | 'translated-sse'

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

/** JSON first, then SSE, then translated SSE, in every table. */
export const formats: Format[] = ['json', 'sse', 'translated-sse']
const headers = { 'content-type': 'application/json', authorization: `Bearer ${benchKey}` }

/** The path and body a target is sent for a format: the relay forwards what the upstream takes. */
export function requestFor(
  kind: Subject['kind'],
  format: Format,
): { path: string; body: string; headers: Record<string, string> } {
  if (format === 'json') return { path: '/v1/chat/completions', body: jsonRequestBody, headers }
  if (format === 'sse') return { path: '/v1/chat/completions', body: streamRequestBody, headers }
  if (kind === 'gateway') {
    return { path: '/v1/chat/completions', body: translatedRequestBody, headers }
  }
  return {
    path: '/v1/messages',
    body: anthropicStreamRequestBody,
    headers: { ...headers, 'anthropic-version': '2023-06-01' },
  }
}

/** Loads one target with one format and prices each request in the target's CPU time. */
export async function measureCase(
  subject: Subject,
  format: Format,
  caseConnections: number,
  seconds: number,
): Promise<CaseResult> {
  const { target, name, kind, transport } = subject
  const cpuBefore = await target.cpuMicros()
  const result = await runLoad(loadOptions(subject, format, caseConnections, seconds))
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
  subject: Pick<Subject, 'target' | 'kind'>,
  format: Format,
  caseConnections: number,
  seconds: number,
): LoadOptions {
  const request = requestFor(subject.kind, format)
  return {
    url: `${subject.target.url}${request.path}`,
    body: request.body,
    headers: request.headers,
    connections: caseConnections,
    durationS: seconds,
  }
}

/** One request before the load, so a misconfigured target fails loudly instead of benchmarking 401s. */
export async function verify(
  subject: Pick<Subject, 'target' | 'kind'>,
  format: Format,
  timeoutMs = 10_000,
): Promise<void> {
  const request = requestFor(subject.kind, format)
  const base = subject.target.url
  const response = await fetch(`${base}${request.path}`, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await response.text()
  const ok =
    response.status === 200 &&
    (format === 'json'
      ? text.includes('"usage":{')
      : request.path === '/v1/messages'
        ? text.includes('event: message_stop')
        : text.endsWith('data: [DONE]\n\n') && text.includes('"usage":{'))
  if (!ok)
    throw new Error(`${base} answered ${response.status} for ${format}: ${text.slice(0, 300)}`)
}
