import { unservedOperation, type HttpWire } from '../http-wire'
import type { PreparedRequest } from '../prepared-request'
import type { UpstreamCall } from '../provider'
import { vertexModelPath } from './vertex-host'

/** Where a Vertex entry's calls go: its project and location. */
export type VertexPlace = { readonly project: string; readonly region: string }

/** The `anthropic_version` Claude on Vertex takes in the body, instead of the header. */
export const vertexAnthropicVersion = 'vertex-2023-10-16'

/**
 * Gemini on Vertex: the Gemini API's operations under the project's publisher path; the token is
 * a bearer set by the kind's `sign` hook, so the wire carries no key header. A list of texts to
 * embed goes to `:predict` (Vertex has no `batchEmbedContents`), its body rewritten by `prepare`.
 */
export function vertexGeminiWire(place: VertexPlace): HttpWire {
  return {
    path(call) {
      const model = vertexModelPath(place.project, place.region, 'google', call.model)
      switch (call.operation) {
        case 'generate-content':
          return `${model}:generateContent`
        case 'stream-generate-content':
          return `${model}:streamGenerateContent?alt=sse`
        case 'gemini-count-tokens':
          return `${model}:countTokens`
        case 'embed-content':
          return `${model}:embedContent`
        case 'batch-embed-contents':
          return `${model}:predict`
        default:
          throw unservedOperation('Vertex AI Gemini', call)
      }
    },
    credentialHeader: (token) => ['authorization', `Bearer ${token}`],
  }
}

/**
 * Claude on Vertex: `:rawPredict` and `:streamRawPredict` under the Anthropic publisher, and
 * counting at the `count-tokens` model.
 *
 * @see https://docs.claude.com/en/api/claude-on-vertex-ai
 */
export function vertexAnthropicWire(place: VertexPlace): HttpWire {
  return {
    path(call) {
      switch (call.operation) {
        case 'messages': {
          const model = vertexModelPath(place.project, place.region, 'anthropic', call.model)
          return `${model}:${call.stream ? 'streamRawPredict' : 'rawPredict'}`
        }
        case 'count-tokens':
          return `${vertexModelPath(place.project, place.region, 'anthropic', 'count-tokens')}:rawPredict`
        default:
          throw unservedOperation('Vertex AI Claude', call)
      }
    },
    credentialHeader: (token) => ['authorization', `Bearer ${token}`],
  }
}

/**
 * Claude's body as Vertex takes it: `anthropic_version: "vertex-2023-10-16"` in the body and no
 * `model` (it is in the URL), `stream` kept; the `anthropic-version` header dropped. Beta flags
 * stay in the `anthropic-beta` header, as Anthropic's Vertex SDK sends them. Counting keeps
 * `model`: the `count-tokens` endpoint reads it from the body.
 */
export function prepareVertexAnthropic(
  request: PreparedRequest,
  call: UpstreamCall,
): PreparedRequest {
  delete request.headers['anthropic-version']
  request.body =
    (call.operation === 'messages' ? leadingModelCut(request.body) : undefined) ??
    rewrittenBody(request.body, call)
  return request
}

/** A body that opens with its `model` (as the gateway writes one): `{"model":"…",`. */
const leadingModel = /^\{"model":"(?:[^"\\]|\\.)*",/

/**
 * The fast path, without parsing the body (a long conversation costs tens of microseconds to
 * parse and write again): a body that opens with `"model"` and holds no `anthropic_version` has its
 * first member replaced by the version. Anything else is `undefined`, for the parsing path.
 */
function leadingModelCut(body: string): string | undefined {
  const match = leadingModel.exec(body)
  if (match === null || body.includes('"anthropic_version"')) return undefined
  return `{"anthropic_version":"${vertexAnthropicVersion}",${body.slice(match[0].length)}`
}

/** The body parsed and written again: `model` out (kept for counting), the version in. */
function rewrittenBody(text: string, call: UpstreamCall): string {
  const body = JSON.parse(text) as Record<string, unknown>
  const { model: _model, anthropic_version: _version, ...rest } = body
  return JSON.stringify(
    call.operation === 'count-tokens'
      ? { anthropic_version: vertexAnthropicVersion, ...rest, model: call.model }
      : { anthropic_version: vertexAnthropicVersion, ...rest },
  )
}
