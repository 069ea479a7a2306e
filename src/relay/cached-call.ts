import type { ChatResponse } from '../canonical/types'
import { cacheControlOf, cacheKey, scopeOf, uncacheableRequest } from '../cache/cache-key'
import { assembleStream, keepsToolCalls, replayEvents, type CacheEntry } from '../cache/cache-entry'
import {
  clientStreamEncoder,
  decodeClientJson,
  decodeClientStream,
  encodeClientJson,
  type ReplayMeta,
} from '../cache/cache-codecs'
import { captureStream, framesStream } from '../cache/cache-capture'
import { readEntry, storeEntry, withCacheBound } from '../cache/cache-io'
import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { jsonContentType, textAnswer, type GatewayAnswer } from '../http/gateway-answer'
import { withUpstreamModel } from '../http/upstream-model-header'
import { parseJson } from '../internal/json'
import type { ClientProtocol } from '../protocols/protocol-name'
import { decodeResponsesRequest } from '../protocols/responses/request-decode'
import type { ResponsesRequest } from '../protocols/responses/request-schema'
import type { GroupCachePolicy } from '../routing/group-registry'
import { runAttempts } from './attempt-loop'
import type { PlanCall } from './call-plan'
import { meterHit } from './cached-hit-meter'
import type { RoutedCall } from './route-call'

/** The answer header that says what the cache did: `hit`, `miss` or `bypass`. */
export const cacheHeader = 'x-gateway-cache'

/** Default `groups[].cache.maxEntryBytes`: 1 MiB. */
const defaultMaxEntryBytes = 1_048_576

/**
 * The response cache's step of a call (docs/response-cache.md, ADR 0039): for a group with
 * `cache`, a request is answered from its entry when one is there (admitted and metered as a hit),
 * else it goes through the attempt loop and its answer is kept when it may be. Groups without
 * `cache` go straight to the attempt loop.
 */
export function cachedAttempts(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  routed: RoutedCall,
  planFor: PlanCall,
): Promise<GatewayAnswer> {
  const policy = routed.route.group.cache
  if (policy === undefined || routed.protocol === 'converse') {
    return runAttempts(runtime, scope, routed, planFor)
  }
  return throughCache(runtime, scope, routed, planFor, policy, routed.protocol)
}

async function throughCache(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  routed: RoutedCall,
  planFor: PlanCall,
  policy: GroupCachePolicy,
  protocol: ClientProtocol,
): Promise<GatewayAnswer> {
  const control = cacheControlOf(scope.request.headers)
  const responses = responsesContextOf(protocol, routed.body)
  if (control === 'bypass' || responses === false || uncacheableRequest(protocol, routed.body)) {
    return upstream(runtime, scope, routed, planFor, 'bypass')
  }
  const key = await cacheKey({
    scope: scopeOf(policy, scope.key, scope.team),
    protocol,
    group: routed.route.group.id,
    upstreamModel: routed.route.model.upstreamModel,
    body: routed.body,
    headers: scope.request.headers,
  })
  const meta: ReplayMeta = {
    requestId: scope.requestId,
    model: routed.model,
    created: Math.floor(runtime.now() / 1000),
    includeUsage: includeUsageOf(routed.body),
    responses,
  }
  if (control === 'use') {
    const entry = await readEntry(runtime.responseCache, key)
    if (entry !== undefined) return hit(runtime, scope, routed, protocol, entry, meta)
  }
  const answer = await upstream(runtime, scope, routed, planFor, 'miss')
  return keep(runtime, scope, routed, protocol, policy, key, answer)
}

/** A call that goes upstream, its answer (or error) marked with what the cache did. */
async function upstream(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  routed: RoutedCall,
  planFor: PlanCall,
  result: 'miss' | 'bypass',
): Promise<GatewayAnswer> {
  scope.event.cache = result
  runtime.cacheStats.count(routed.route.group.id, result)
  try {
    const answer = await runAttempts(runtime, scope, routed, planFor)
    answer.headers.set(cacheHeader, result)
    return answer
  } catch (error) {
    throw GatewayError.isInstance(error) ? withCacheHeader(error, result) : error
  }
}

/** The error, its answer carrying the cache's header among its own (it is this request's own). */
function withCacheHeader(error: GatewayError, result: string): GatewayError {
  const headers = { ...error.headers, [cacheHeader]: result }
  ;(error as { headers: Readonly<Record<string, string>> | undefined }).headers = headers
  return error
}

/** Answers from an entry: admitted and metered as a request, in the client's protocol. */
async function hit(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  routed: RoutedCall,
  protocol: ClientProtocol,
  entry: CacheEntry,
  meta: ReplayMeta,
): Promise<GatewayAnswer> {
  scope.event.cache = 'hit'
  let metering: Awaited<ReturnType<typeof meterHit>>
  try {
    metering = await meterHit(runtime, scope, routed, entry)
  } catch (error) {
    // A refused hit (a rate limit) says so too: every answer of a caching group does.
    throw GatewayError.isInstance(error) ? withCacheHeader(error, 'hit') : error
  }
  runtime.cacheStats.count(routed.route.group.id, 'hit', entry.cost?.nanoUsd ?? 0)
  let answer: GatewayAnswer
  try {
    if (routed.stream) {
      const encoder = clientStreamEncoder(protocol, meta)
      const frames: string[] = []
      for (const event of replayEvents(entry, meta.requestId)) frames.push(...encoder.push(event))
      frames.push(...encoder.end())
      scope.eventDeferred = true
      const body = framesStream(frames, 16_384, (outcome) => {
        const settling = metering.finish(outcome)
        if (settling !== undefined) scope.waitUntil(settling)
        scope.complete(200, outcome)
      })
      answer = {
        status: 200,
        headers: new Map([
          ['content-type', 'text/event-stream; charset=utf-8'],
          ['cache-control', 'no-cache'],
        ]),
        body,
      }
      scope.event.timeToFirstChunkMs = runtime.now() - scope.startedAt
    } else {
      const text = JSON.stringify(encodeClientJson(protocol, entry.response, meta))
      const settling = metering.finish('ok')
      if (settling !== undefined) await settling
      answer = textAnswer(text, 200, jsonContentType)
    }
  } catch (error) {
    scope.eventDeferred = false
    metering.finish('error')
    throw error
  }
  answer.headers.set(cacheHeader, 'hit')
  answer.headers.set(
    'age',
    String(Math.max(0, Math.floor((runtime.now() - entry.storedAt) / 1000))),
  )
  metering.headers(answer)
  return withUpstreamModel(answer, routed.route.model.upstreamModel)
}

/**
 * Keeps a miss's answer when it may be kept: a 200 from the call's own group and model (not a
 * fallback's), whole (a stream that ended with its protocol's end, never one cut or left), no
 * larger than `maxEntryBytes`, and without tool calls unless the group caches them.
 */
function keep(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  routed: RoutedCall,
  protocol: ClientProtocol,
  policy: GroupCachePolicy,
  key: string,
  answer: GatewayAnswer,
): GatewayAnswer {
  if (answer.status !== 200 || answer.body === null) return answer
  const limit = policy.maxEntryBytes ?? defaultMaxEntryBytes
  const save = (response: ChatResponse, pieces: Array<string[] | null>) => {
    if (scope.event.group !== routed.route.group.id) return
    if (scope.event.upstreamModel !== routed.route.model.upstreamModel) return
    if (!keepsToolCalls(response, policy.toolCalls === true)) return
    if (response.finishReason.unified === 'error') return
    const entry: CacheEntry = {
      v: 1,
      response,
      pieces,
      usage: scope.event.usage,
      cost: scope.event.cost,
      storedAt: runtime.now(),
    }
    scope.waitUntil(
      withCacheBound(storeEntry(runtime.responseCache, key, entry, limit, policy.ttlSeconds)),
    )
  }
  if (typeof answer.body === 'string') {
    if (answer.body.length > limit) return answer
    const parsed = parseJson(answer.body)
    if (!parsed.ok) return answer
    const response = decodeClientJson(protocol, parsed.value)
    save(
      response,
      response.content.map(() => null),
    )
    return answer
  }
  answer.body = captureStream(answer.body, limit, (text) => {
    if (text === undefined) return
    const events = decodeClientStream(protocol, text)
    const assembled = events === undefined ? undefined : assembleStream(events)
    if (assembled !== undefined) save(assembled.response, assembled.pieces)
  })
  return answer
}

/** OpenAI's `stream_options.include_usage`: the usage chunk the client asked for. */
function includeUsageOf(body: unknown): boolean {
  const options = (body as { stream_options?: { include_usage?: unknown } } | null)?.stream_options
  return options?.include_usage === true
}

/**
 * A Responses client's context (echoed fields, its tools' names), which its answers are written
 * with; `undefined` for the other protocols; `false` when the request cannot be decoded for it
 * (it then goes upstream uncached, and the upstream's answer says what is wrong).
 */
function responsesContextOf(protocol: ClientProtocol, body: unknown) {
  if (protocol !== 'responses') return undefined
  try {
    const request = body as ResponsesRequest
    return decodeResponsesRequest(request, request.input).context
  } catch {
    return false
  }
}
