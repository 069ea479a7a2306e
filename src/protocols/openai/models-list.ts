import { jsonAnswer, type GatewayAnswer } from '../../http/gateway-answer'
import { pricingField, type ListedModel } from '../../pricing/listed-price'

/**
 * OpenAI's model list: `{"object":"list","data":[{"id","object":"model","created","owned_by"}]}`.
 * OpenAI's model object has no limits, so each entry whose model profile knows them adds
 * `context_window` and `max_output_tokens` (the names of OpenAI's model pages), an embedding
 * model `embedding: {dimensions, max_input_tokens}`, and a priced model
 * its `pricing` for the calling key (`listedPricing`); clients that do not know the fields ignore
 * them.
 *
 * @see https://platform.openai.com/docs/api-reference/models/list
 */
export function renderOpenAIModelList(
  models: readonly ListedModel[],
  created: number,
  options: { codexCatalog?: boolean } = {},
): GatewayAnswer {
  return jsonAnswer({
    // Codex asks `GET /models?client_version=…` for its own catalogue, `{"models":[…]}`, which it
    // merges over the model metadata it ships with. An empty catalogue makes it use its bundled
    // metadata, without the "failed to decode models" warning an OpenAI list alone gives; the
    // OpenAI list stays beside it for anything else that sends `client_version`.
    ...(options.codexCatalog === true ? { models: [] } : {}),
    object: 'list',
    data: models.map((model) => ({
      id: model.id,
      object: 'model',
      created,
      owned_by: model.groupId,
      ...(model.profile.contextWindow === undefined
        ? {}
        : { context_window: model.profile.contextWindow }),
      ...(model.profile.maxOutputTokens === undefined
        ? {}
        : { max_output_tokens: model.profile.maxOutputTokens }),
      ...(model.profile.embedding === undefined
        ? {}
        : {
            // An extension field, as the limits are: the model embeds, with these vectors.
            embedding: {
              dimensions: model.profile.embedding.dimensions,
              max_input_tokens: model.profile.embedding.maxInputTokens,
            },
          }),
      ...pricingField(model.pricing, 'snake'),
    })),
  })
}
