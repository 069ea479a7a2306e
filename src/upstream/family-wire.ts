import type { ProtocolName } from '../protocols/protocol-name'
import { anthropicWire } from './anthropic/wire'
import { geminiWire } from './gemini/wire'
import type { HttpWire } from './http-wire'
import { openaiWire } from './openai/wire'

/** The HTTP wire of a protocol family: the one each family's own folder defines. */
export function familyWire(protocol: ProtocolName): HttpWire {
  switch (protocol) {
    case 'openai':
    case 'responses':
      return openaiWire
    case 'anthropic':
      return anthropicWire
    case 'gemini':
      return geminiWire
    default: {
      const unknown: never = protocol
      throw new Error(`Unknown protocol ${String(unknown)}`)
    }
  }
}
