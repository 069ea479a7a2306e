import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'

/** The status of each exception a Converse stream may carry, by its event type. */
const statuses: ReadonlyMap<string, number> = new Map([
  ['throttlingException', 429],
  ['modelStreamErrorException', 424],
  ['modelTimeoutException', 408],
  ['serviceUnavailableException', 503],
  ['internalServerException', 500],
  ['validationException', 400],
])

/**
 * True for the event type of an exception in a Converse stream: AWS's own (`throttlingException`,
 * …) and the generic `error` a stream reader writes for an `error` frame.
 */
export function isConverseStreamException(event: string): boolean {
  return event === 'error' || event.endsWith('Exception')
}

/**
 * A Converse stream exception → a gateway error with the status AWS gives it: throttling 429
 * (`rate_limited`, so clients back off), modelStreamError 424, modelTimeout 408,
 * serviceUnavailable 503, internalServer 500, validation 400; any other 502.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors
 */
export function converseStreamError(event: string, payload: unknown): GatewayError {
  const message =
    isJsonObject(payload) && typeof payload['message'] === 'string'
      ? payload['message']
      : isJsonObject(payload) && typeof payload['Message'] === 'string'
        ? payload['Message']
        : `The upstream stream failed (${event}).`
  const status = statuses.get(event)
  const upstream = { status: status ?? 502, body: payload, protocol: 'converse' as const }
  if (status === 429) return new GatewayError('rate_limited', message, { upstream })
  if (status === 503) return new GatewayError('unavailable', message, { upstream })
  return new GatewayError('upstream_error', message, { status: status ?? 502, upstream })
}
