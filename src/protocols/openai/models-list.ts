import type { ListedModel } from '../../handlers/list-models'

/**
 * OpenAI's model list: `{"object":"list","data":[{"id","object":"model","created","owned_by"}]}`.
 *
 * @see https://platform.openai.com/docs/api-reference/models/list
 */
export function renderOpenAIModelList(models: readonly ListedModel[], created: number): Response {
  return Response.json({
    object: 'list',
    data: models.map((model) => ({
      id: model.id,
      object: 'model',
      created,
      owned_by: model.groupId,
    })),
  })
}
