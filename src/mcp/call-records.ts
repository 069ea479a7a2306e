import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { settleRetries } from '../usage/settle-retries'
import type { Reservation, UsageRecord } from '../usage/usage-meter'

/** A tool call's identity, as its records name it. */
export type ToolCallFacts = {
  server: string
  tool: string
  /** The JSON-RPC id of the call: the span's `gen_ai.tool.call.id`. */
  callId: string
}

const zeroUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  cacheWrite1hInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
}

/**
 * Writes a finished tool call's records: the request event's fields (the event itself is emitted
 * when the answer is complete: one per call, and the CLI's log line of it, key masked), the
 * settle of its reservation (the key's requests per minute and concurrency), and the ledger row
 * (`kind: 'tool'`). Arguments and results are in none of them.
 */
export function recordToolCall(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  facts: ToolCallFacts,
  reservation: Reservation,
  result: { outcome: 'ok' | 'error' | 'aborted'; error?: { code: number; message: string } },
): void {
  const durationMs = runtime.now() - scope.startedAt
  const record: UsageRecord = {
    requestId: scope.requestId,
    keyId: scope.key.id,
    team: scope.team?.id,
    endUser: scope.endUser,
    groupId: 'mcp',
    providerId: facts.server,
    model: `${facts.server}__${facts.tool}`,
    upstreamModel: facts.tool,
    route: 'mcp.tools.call',
    stream: false,
    usage: zeroUsage,
    outcome: result.outcome,
    status: 200,
    startedAt: scope.startedAt,
    durationMs,
    kind: 'tool',
  }
  if (result.error !== undefined) {
    scope.event.error = { code: String(result.error.code), message: result.error.message }
  }
  const failed = (error: unknown) => console.error('[model-gateway] MCP settle failed:', error)
  const settled = Promise.resolve()
    .then(() => runtime.meter.settle(reservation, record))
    .then((result: unknown) => settleRetries(result, () => undefined, failed), failed)
    .then(() => {
      try {
        runtime.ledger?.record(record)
      } catch (error) {
        console.error('[model-gateway] usage ledger failed to take a record:', error)
      }
    })
  scope.waitUntil(settled)
}
