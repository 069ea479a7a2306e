import { isJsonObject, stringOf } from '../../internal/json'

/**
 * Azure's error bodies, made clear to every client: a prompt its content filter blocked (400,
 * `error.code: "content_filter"`, the verdicts in `innererror.content_filter_result`) gets a message
 * naming the filters that triggered, and an OpenAI `type` (Azure sends `null`), so that an OpenAI
 * client gets the body with the code it knows and other clients a message that says what to change.
 * Any other body is returned as it came (Azure's are already OpenAI's shape).
 *
 * @see https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter
 */
export function normaliseAzureError(body: unknown): unknown {
  if (!isJsonObject(body) || !isJsonObject(body['error'])) return body
  const error = body['error']
  const inner = isJsonObject(error['innererror']) ? error['innererror'] : undefined
  const filtered =
    error['code'] === 'content_filter' || inner?.['code'] === 'ResponsibleAIPolicyViolation'
  if (!filtered) return body
  const verdicts = inner?.['content_filter_result'] ?? inner?.['content_filter_results']
  const names = triggeredFilters(verdicts)
  const message = `Azure OpenAI's content filter blocked the prompt${
    names.length === 0 ? '' : `: ${names.join(', ')}`
  }.`
  return {
    ...body,
    error: {
      ...error,
      message,
      type: typeof error['type'] === 'string' ? error['type'] : 'invalid_request_error',
      code: 'content_filter',
    },
  }
}

/**
 * The filters a `content_filter_result(s)` object says triggered: the harm categories with their
 * severity (`hate (high)`), the detectors that blocked (`jailbreak`), and each custom blocklist by its
 * id (`blocklist my-list`).
 */
export function triggeredFilters(verdicts: unknown): string[] {
  if (!isJsonObject(verdicts)) return []
  const names: string[] = []
  for (const [name, verdict] of Object.entries(verdicts)) {
    if (Array.isArray(verdict)) {
      // custom_blocklists: [{ filtered, id }]
      for (const entry of verdict) {
        if (isJsonObject(entry) && entry['filtered'] === true)
          names.push(`blocklist ${stringOf(entry['id'] ?? name)}`)
      }
      continue
    }
    if (!isJsonObject(verdict)) continue
    if (Array.isArray(verdict['details'])) {
      // custom_blocklists in the annotations' shape: { filtered, details: [{ filtered, id }] }
      names.push(...triggeredFilters({ [name]: verdict['details'] }))
      continue
    }
    if (verdict['filtered'] !== true) continue
    const severity = verdict['severity']
    names.push(typeof severity === 'string' && severity !== 'safe' ? `${name} (${severity})` : name)
  }
  return names
}
