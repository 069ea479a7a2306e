import { GatewayError } from '../errors'
import type { UpstreamExchange } from './exchange'

/** The client went away before the answer: nothing to render, only to record. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client closed the request.')
    this.name = 'ClientGoneError'
  }
}

/**
 * Names what went wrong while calling an upstream, before any byte reached the client: a timeout
 * (504), the client leaving, a `GatewayError` already made, or an unreachable upstream (502).
 */
export function classifyUpstreamFailure(error: unknown, exchange: UpstreamExchange): Error {
  const why = exchange.end()
  if (why === 'client') return new ClientGoneError()
  if (why === 'deadline') return streamDeadlineError(error)
  if (why === 'timeout' || why === 'idle') {
    return new GatewayError('upstream_timeout', 'The upstream did not answer in time.', {
      cause: error,
    })
  }
  if (GatewayError.isInstance(error)) return error
  return new GatewayError('upstream_unreachable', 'The upstream could not be reached.', {
    cause: error,
  })
}

/** The stream reached the gateway's `maxStreamMs`: a timeout, before or after the first byte. */
export function streamDeadlineError(cause: unknown): GatewayError {
  return new GatewayError('upstream_timeout', "The stream reached the gateway's time limit.", {
    cause,
  })
}
