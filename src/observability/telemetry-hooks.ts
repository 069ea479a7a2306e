import type { GatewayRequest } from '../http/gateway-request'
import type { ProtocolName } from '../protocols/protocol-name'
import type { UpstreamOperation } from '../upstream/provider'
import type { TokenUsage } from '../usage/usage-meter'
import type { RequestEvent } from './request-event'
import type { UpstreamAttempt } from '../usage/upstream-attempt'

/**
 * What the gateway tells a telemetry back end (the OpenTelemetry one of `telemetry`), as a request
 * goes. The gateway holds one only when telemetry is configured: with none, every hook is an
 * `undefined` check and nothing else.
 */
export type Telemetry = {
  /** A request has arrived: its span starts, as a child of the client's `traceparent`. */
  startRequest(request: GatewayRequest): RequestTrace
}

/** The telemetry of one client request. */
export type RequestTrace = {
  /** The request span's ids (32 and 16 hex digits), for events and log lines; absent if invalid. */
  readonly traceId: string | undefined
  readonly spanId: string | undefined
  /** An upstream attempt starts: its span, a child of the request's. */
  startAttempt(start: AttemptStart): AttemptTrace
  /** An MCP tool call starts: its `execute_tool` span, a child of the request's. */
  startTool?(start: ToolStart): ToolTrace
  /** Something the request waited for or passed over: an event on the request span. */
  note(note: RequestNote): void
  /** The request is complete (a stream: when it ended), with its final event. */
  end(event: RequestEvent): void
}

/** An MCP tool call: its server, the tool's name there, and the call's JSON-RPC id. */
export type ToolStart = { server: string; tool: string; callId: string }

/** The telemetry of one tool call. */
export type ToolTrace = {
  /** The call is over; `error` is the JSON-RPC error code (or `tool_error`) when it failed. */
  end(result: { error?: string | undefined }): void
}

/** What is known of an attempt when it starts. */
export type AttemptStart = {
  record: UpstreamAttempt
  operation: UpstreamOperation
  protocol: ProtocolName
  upstreamModel: string
  stream: boolean
}

/** The telemetry of one upstream attempt. */
export type AttemptTrace = {
  /** The W3C `traceparent` of the attempt's span, for the upstream call; undefined when invalid. */
  readonly traceparent: string | undefined
  /** The attempt is over (a stream: when it ended); `record` says how. */
  end(record: UpstreamAttempt, result: AttemptResult): void
}

/** What an attempt's answer said, as far as it is known. */
export type AttemptResult = {
  /** The usage the upstream reported; absent when it reported none (an estimate is not usage). */
  usage?: TokenUsage | undefined
  responseId?: string | undefined
  responseModel?: string | undefined
  /** One per choice; `error` for a generation that ended abnormally (a cut stream). */
  finishReasons?: readonly string[] | undefined
  /** From the attempt's start to the first event of a stream, in milliseconds. */
  timeToFirstChunkMs?: number | undefined
  /** The gateway's error code when the attempt failed, or its answer ended in error. */
  error?: string | undefined
}

/** What the attempt loop notes on the request span. */
export type RequestNote =
  | { kind: 'backoff'; waitMs: number; attempt: number }
  | { kind: 'skipped'; group: string; reason: string }
  | { kind: 'retry-budget-exhausted'; group: string }
