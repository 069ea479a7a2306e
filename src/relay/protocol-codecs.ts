import type { StreamDecoder } from '../canonical/stream-codec'
import type { ChatRequest, ChatResponse, StreamEvent } from '../canonical/types'
import { encodeAnthropicRequest } from '../protocols/anthropic/request-encode'
import { decodeAnthropicResponse, encodeAnthropicResponse } from '../protocols/anthropic/response'
import { createAnthropicStreamDecoder } from '../protocols/anthropic/stream-decode'
import { createAnthropicStreamEncoder } from '../protocols/anthropic/stream-encode'
import { encodeGeminiRequest } from '../protocols/gemini/request-encode'
import { decodeGeminiResponse, encodeGeminiResponse } from '../protocols/gemini/response'
import { createGeminiStreamDecoder } from '../protocols/gemini/stream-decode'
import { createGeminiStreamEncoder } from '../protocols/gemini/stream-encode'
import { renamedGeminiTools } from '../protocols/gemini/tool-name'
import { encodeOpenAIRequest } from '../protocols/openai/request-encode'
import { decodeOpenAIResponse, encodeOpenAIResponse } from '../protocols/openai/response'
import { createOpenAIStreamDecoder } from '../protocols/openai/stream-decode'
import { createOpenAIStreamEncoder } from '../protocols/openai/stream-encode'
import type { ClientProtocol, ProtocolName } from '../protocols/protocol-name'
import { encodeConverseRequest } from '../protocols/converse/request-encode'
import { decodeConverseResponse } from '../protocols/converse/response'
import { createConverseStreamDecoder } from '../protocols/converse/stream-decode'
import { renamedConverseTools } from '../protocols/converse/tool-name'
import { encodeResponsesRequest } from '../protocols/responses/request-encode'
import { decodeResponsesResponse } from '../protocols/responses/response'
import { createResponsesStreamDecoder } from '../protocols/responses/stream-decode'
import type { UpstreamOperation } from '../upstream/provider'
import type { ModelTarget } from '../models/model-target'
import type { ModelProfile } from '../models/profile'
import { anthropicJsonTool } from '../protocols/anthropic/structured-output'
import { unwrapJsonToolResponse, unwrapJsonToolStream } from './json-tool-answer'
import type { OutputAllowance } from './output-allowance'
import type { ClientCodec } from '../canonical/client-codec'

export type { ClientCodec, ClientMeta } from '../canonical/client-codec'

/** How the gateway talks to an upstream of one protocol, through the canonical form. */
export type UpstreamCodec = {
  operation(stream: boolean): UpstreamOperation
  /**
   * Encodes for the target model, noting on `target.adjustments` what it changed for it. `output`
   * is the call's output allowance: its `limit` goes to a protocol that requires one (Anthropic's
   * `max_tokens`, GEN-01) when the client set none — the model's own maximum output when its
   * profile knows it, else `defaultOutputTokens`, the same figure the quota reserves.
   */
  encodeRequest(
    request: ChatRequest,
    target: ModelTarget,
    output: OutputAllowance,
  ): Record<string, unknown>
  /**
   * `request` is the canonical request that was sent and `profile` the model's, for what the
   * encoder had to rewrite (tool names, a JSON answer carried by a tool).
   */
  decodeResponse(
    body: unknown,
    generateId: () => string,
    request: ChatRequest,
    profile: ModelProfile,
  ): ChatResponse
  streamDecoder(
    generateId: () => string,
    request: ChatRequest,
    profile: ModelProfile,
  ): StreamDecoder
}

/** The upstream side of each protocol. */
export const upstreamCodecs: Record<ProtocolName, UpstreamCodec> = {
  openai: {
    operation: () => 'chat-completions',
    encodeRequest: (request, target) => encodeOpenAIRequest(request, target),
    // Reasoning is signed with the model that wrote it, to go back to it (ADR 0018).
    decodeResponse: (body, _generateId, request) =>
      decodeOpenAIResponse(body, { model: request.model }),
    streamDecoder: (generateId, request) =>
      createOpenAIStreamDecoder({ generateId, model: request.model }),
  },
  anthropic: {
    operation: () => 'messages',
    encodeRequest: (request, target, output) =>
      encodeAnthropicRequest(request, { defaultMaxTokens: output.limit }, target),
    // A JSON answer carried by the answer tool goes back to the client as text: it asked for JSON.
    decodeResponse: (body, _generateId, request, profile) => {
      const response = decodeAnthropicResponse(body)
      const tool = anthropicJsonTool(request, profile)
      return tool === undefined ? response : unwrapJsonToolResponse(response, tool)
    },
    streamDecoder: (_generateId, request, profile) => {
      const decoder = createAnthropicStreamDecoder()
      const tool = anthropicJsonTool(request, profile)
      return tool === undefined ? decoder : unwrapJsonToolStream(decoder, tool)
    },
  },
  gemini: {
    operation: (stream) => (stream ? 'stream-generate-content' : 'generate-content'),
    encodeRequest: (request, target) => encodeGeminiRequest(request, target),
    // Tool names Gemini would reject were renamed on the way (TOOL-D-03); the client gets its own.
    decodeResponse: (body, generateId, request) =>
      decodeGeminiResponse(body, generateId, renamedGeminiTools(request)),
    streamDecoder: (generateId, request) =>
      restoreToolNames(createGeminiStreamDecoder({ generateId }), renamedGeminiTools(request)),
  },
  responses: {
    operation: () => 'responses',
    encodeRequest: (request, target) => encodeResponsesRequest(request, target),
    decodeResponse: (body) => decodeResponsesResponse(body),
    streamDecoder: (generateId) => createResponsesStreamDecoder({ generateId }),
  },
  // Upstream only: no client speaks Converse, so every call to it is translated.
  converse: {
    operation: (stream) => (stream ? 'converse-stream' : 'converse'),
    encodeRequest: (request, target) => encodeConverseRequest(request, target),
    // Converse names neither the answer nor the model; tool names it could not take come back.
    decodeResponse: (body, generateId, request) =>
      decodeConverseResponse(body, {
        id: generateId(),
        model: request.model,
        toolNames: renamedConverseTools(request),
      }),
    streamDecoder: (generateId, request) =>
      restoreToolNames(
        createConverseStreamDecoder({ generateId, model: request.model }),
        renamedConverseTools(request),
      ),
  },
}

/**
 * The client side of each protocol; ids carry the protocol's prefix (checklist ID-01). The
 * Responses API's depends on the request, so its handler builds one per request
 * (`responsesClientCodec`).
 */
export const clientCodecs: Record<Exclude<ClientProtocol, 'responses'>, ClientCodec> = {
  openai: {
    encodeResponse: (response, meta) =>
      encodeOpenAIResponse(response, {
        id: `chatcmpl-${meta.requestId}`,
        model: meta.model,
        created: meta.created,
      }),
    streamEncoder: (meta) =>
      createOpenAIStreamEncoder({
        id: `chatcmpl-${meta.requestId}`,
        model: meta.model,
        created: meta.created,
        includeUsage: meta.includeUsage,
      }),
  },
  anthropic: {
    encodeResponse: (response, meta) =>
      encodeAnthropicResponse(response, { id: `msg_${meta.requestId}`, model: meta.model }),
    streamEncoder: (meta) =>
      createAnthropicStreamEncoder({ id: `msg_${meta.requestId}`, model: meta.model }),
  },
  gemini: {
    encodeResponse: (response, meta) =>
      encodeGeminiResponse(response, { responseId: meta.requestId, modelVersion: meta.model }),
    streamEncoder: (meta) =>
      createGeminiStreamEncoder({ responseId: meta.requestId, modelVersion: meta.model }),
    // Google ends a failed stream abnormally after the error object; Gemini clients rely on it.
    abortAfterFailure: true,
  },
}

/** Renames tool calls in a decoded stream back to the names the client declared. */
function restoreToolNames(
  decoder: StreamDecoder,
  names: ReadonlyMap<string, string>,
): StreamDecoder {
  if (names.size === 0) return decoder
  const rename = (events: StreamEvent[]) =>
    events.map((event) =>
      event.type === 'tool-call-start'
        ? { ...event, name: names.get(event.name) ?? event.name }
        : event,
    )
  return { push: (message) => rename(decoder.push(message)), end: () => rename(decoder.end()) }
}
