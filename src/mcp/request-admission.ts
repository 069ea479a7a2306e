import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { admit } from '../relay/admit'
import { requestSubjects } from '../relay/request-subjects'
import { boundedWait, settleRetries } from '../usage/settle-retries'
import type { Reservation, UsageRecord } from '../usage/usage-meter'
import { zeroUsage } from './call-records'

/**
 * Admits a request of the MCP gateway — a tool call, `initialize`, a list fanned out to every
 * server, `logging/setLevel` — against the key's (and its team's) `requestsPerMinute` and
 * `concurrency`, with an estimate of 0 tokens: otherwise a key could open sessions or list every
 * server's tools in a loop, unlimited. A refusal is the meter's `GatewayError` (429, with
 * `retry-after`), which the MCP routes render as a JSON-RPC error (`-32002`).
 */
export async function admitMcpRequest(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<Reservation> {
  const subjects = requestSubjects(runtime, scope, scope.key)
  const admission = await admit(runtime, scope, scope.key, {
    estimatedTokens: 0,
    estimate: { inputTokens: 0, outputTokens: 0 },
    ...(subjects === undefined ? {} : { subjects }),
  })
  return admission.reservation
}

/**
 * Settles an admitted request once its answer is ready: it keeps its place in the key's window
 * and gives back its concurrency slot. The meter counts it among the key's requests; it writes no
 * ledger row (only tool calls do), and a settle that fails is logged, never the client's error.
 * Resolves once the first settle attempt ended (at most about a second); never rejects.
 */
export function settleMcpRequest(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  reservation: Reservation,
  method: string,
  server: string | undefined,
  status: number,
): Promise<void> {
  const record: UsageRecord = {
    requestId: scope.requestId,
    keyId: scope.key.id,
    team: scope.team?.id,
    endUser: scope.endUser,
    groupId: 'mcp',
    providerId: server ?? 'mcp',
    model: method,
    upstreamModel: method,
    route: `mcp.${method}`,
    stream: false,
    usage: zeroUsage,
    outcome: status < 400 ? 'ok' : 'error',
    status,
    startedAt: scope.startedAt,
    durationMs: runtime.now() - scope.startedAt,
  }
  const failed = (error: unknown) => console.error('[model-gateway] MCP settle failed:', error)
  const first = Promise.resolve()
    .then(() => runtime.meter.settle(reservation, record))
    .then((result: unknown) => result, failed)
  scope.waitUntil(first.then((result) => settleRetries(result, () => undefined, failed)))
  // The answer waits (bounded) for the first attempt, which frees the request's concurrency
  // slot: a client that sends its next request on the answer is not refused for this one.
  return boundedWait(first.then(() => undefined))
}

/** Runs `work` admitted against the key's limits, settling it whatever its end. */
export async function withAdmission<T>(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  method: string,
  server: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const reservation = await admitMcpRequest(runtime, scope)
  try {
    const result = await work()
    await settleMcpRequest(runtime, scope, reservation, method, server, 200)
    return result
  } catch (error) {
    const status = GatewayError.isInstance(error) ? error.status : 500
    await settleMcpRequest(runtime, scope, reservation, method, server, status)
    throw error
  }
}
