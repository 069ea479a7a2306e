import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { GatewayAnswer } from '../http/gateway-answer'
import type { RouteName } from '../http/match-route'
import { handleChatCompletions } from './chat-completions'
import { handleCountTokens } from './count-tokens'
import { handleMessages } from './messages'
import { handleGeminiCountTokens } from './gemini-count-tokens'
import { handleGeminiGenerate } from './gemini-generate'
import { handleGeminiGetModel, handleGeminiListModels } from './gemini-models'
import { handleKeyUsage } from './key-usage'
import { handleListModels } from './list-models'
import { handleResponses } from './responses'
import { handleGetResponse } from './responses-get'
import { handleEmbeddings } from './embeddings'
import { handleGeminiEmbed } from './gemini-embed'

/** The handler of each client route (`http/match-route.ts` names them). */
export const routeHandlers: Record<
  RouteName,
  (runtime: GatewayRuntime, scope: RequestScope) => Promise<GatewayAnswer>
> = {
  'chat.completions': handleChatCompletions,
  messages: handleMessages,
  count_tokens: handleCountTokens,
  models: handleListModels,
  'gemini.models': handleGeminiListModels,
  'gemini.model': handleGeminiGetModel,
  'gemini.generate': (runtime, scope) => handleGeminiGenerate(runtime, scope, false),
  'gemini.stream': (runtime, scope) => handleGeminiGenerate(runtime, scope, true),
  'gemini.count_tokens': handleGeminiCountTokens,
  usage: handleKeyUsage,
  responses: handleResponses,
  'responses.get': handleGetResponse,
  embeddings: handleEmbeddings,
  'gemini.embed': (runtime, scope) => handleGeminiEmbed(runtime, scope, false),
  'gemini.batch_embed': (runtime, scope) => handleGeminiEmbed(runtime, scope, true),
}
