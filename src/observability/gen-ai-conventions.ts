import type { ProtocolName } from '../protocols/protocol-name'
import type { UpstreamOperation } from '../upstream/provider'

/**
 * The OpenTelemetry GenAI semantic conventions the gateway follows: v1.41.0, the last release of
 * `open-telemetry/semantic-conventions` that held them (2026-04-28). Every `gen_ai.*` name is in
 * Development there; the newer `semantic-conventions-genai` repository renamed several since and
 * has no release yet (docs/observability.md).
 */
export const genAiConventionsVersion = '1.41.0'

/** `gen_ai.client.operation.duration` and the other durations (seconds). */
export const durationBuckets: readonly number[] = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]

/** `gen_ai.client.token.usage` (tokens). */
export const tokenBuckets: readonly number[] = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
]

/** `gen_ai.server.time_to_first_token` (seconds). */
export const timeToFirstTokenBuckets: readonly number[] = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
]

/** `gen_ai.server.time_per_output_token` (seconds). */
export const timePerOutputTokenBuckets: readonly number[] = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5,
]

/** `gen_ai.provider.name` of an upstream, by its protocol: the best knowledge a proxy has. */
export function genAiProviderName(protocol: ProtocolName): string {
  return protocol === 'anthropic'
    ? 'anthropic'
    : protocol === 'gemini'
      ? 'gcp.gemini'
      : protocol === 'converse'
        ? 'aws.bedrock'
        : 'openai'
}

/** `gen_ai.operation.name` of an upstream call. */
export function genAiOperationOfCall(operation: UpstreamOperation): string {
  switch (operation) {
    case 'chat-completions':
    case 'messages':
    case 'responses':
    case 'converse':
    case 'converse-stream':
      return 'chat'
    case 'generate-content':
    case 'stream-generate-content':
      return 'generate_content'
    default:
      return operation.replaceAll('-', '_')
  }
}

/** `gen_ai.operation.name` of a client request, by the gateway's route; undefined for others. */
export function genAiOperationOfRoute(route: string): string | undefined {
  switch (route) {
    case 'chat.completions':
    case 'messages':
    case 'responses':
    case 'converse':
    case 'converse-stream':
      return 'chat'
    case 'gemini.generate':
    case 'gemini.stream':
      return 'generate_content'
    case 'responses.get':
      return 'fetch_response'
    default:
      return undefined
  }
}
