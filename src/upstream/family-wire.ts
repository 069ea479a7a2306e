import type { ProtocolName } from '../protocols/protocol-name'
import { anthropicWire } from './anthropic/wire'
import { geminiWire } from './gemini/wire'
import type { HttpWire } from './http-wire'
import { openaiWire } from './openai/wire'

/**
 * The HTTP wire of a protocol family: the one each family's own folder defines.
 *
 * @throws Error for `converse`, which has no wire of its own: its kinds give theirs
 */
export function familyWire(protocol: ProtocolName): HttpWire {
  switch (protocol) {
    case 'openai':
    case 'responses':
      return openaiWire
    case 'anthropic':
      return anthropicWire
    case 'gemini':
      return geminiWire
    case 'converse':
      // Converse is served only by kinds that give their own wire (Bedrock's paths and signing).
      throw new Error('A converse upstream needs the wire of its kind; the bedrock kind gives one.')
    default: {
      const unknown: never = protocol
      throw new Error(`Unknown protocol ${String(unknown)}`)
    }
  }
}
