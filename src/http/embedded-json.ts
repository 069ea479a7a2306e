import { GatewayError } from '../errors'
import { maxJsonDepth } from './input-limits'
import { scanJson } from '../internal/json-members'
import { parseJson, type JsonResult } from '../internal/json'

/**
 * Parses JSON held inside a string the gateway reads (a tool call's `arguments`, a tool result
 * that is an object's text), held to the body's nesting limit: the body's own scan cannot see
 * inside strings, and a value thousands of levels deep would overflow the stack of whatever walks
 * it next (`JSON.stringify` of a translated request). Too deep is the sender's error, named by
 * field: the client's (400 `invalid_request`) or the upstream's (502 `upstream_error`).
 *
 * @param field The field, as the message names it (`a tool call's arguments`).
 */
export function parseEmbeddedJson(
  text: string,
  field: string,
  from: 'client' | 'upstream',
): JsonResult {
  if (scanJson(text, maxJsonDepth).depth > maxJsonDepth) {
    throw from === 'client'
      ? new GatewayError(
          'invalid_request',
          `The JSON in ${field} nests objects and arrays more than ${maxJsonDepth} levels deep.`,
        )
      : new GatewayError(
          'upstream_error',
          `The upstream's answer holds JSON in ${field} nested more than ${maxJsonDepth} levels deep.`,
        )
  }
  return parseJson(text)
}
