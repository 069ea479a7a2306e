import { geminiRules } from './fake-models'
import { sampleOf } from './schema-sample'
import { geminiError, type FakeError } from './vendor-errors'

type Body = Record<string, any>
type Part = Record<string, any>

/** Google's value that skips the signature check of a function call. */
const skipSentinel = 'skip_thought_signature_validator'
/** Thought signatures the fake issued. */
const issued = new Set<string>()
let counter = 0

/**
 * The rules Gemini's generateContent enforces that translation can break, with Google's own
 * messages: thinking budgets within each 2.5 family's range (0 only where thinking can be turned
 * off), thinking levels per Gemini 3 model, never a budget and a level together, no thinking
 * configuration on 2.0; `maxOutputTokens` within the model's maximum; a response schema only with
 * `responseMimeType: application/json`, and not both schema fields; one functionResponse per
 * functionCall of the turn before; and on Gemini 3, the first function call of every model step
 * since the last user message carries a thought signature the API issued (or Google's skip value).
 *
 * @param model the model from the URL (`/v1beta/models/{model}:generateContent`)
 * @returns the error Gemini would answer with, or `undefined` for a valid request
 * @see https://ai.google.dev/gemini-api/docs/thinking
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export function checkGeminiRequest(model: string, body: Body): FakeError | undefined {
  const rules = geminiRules(model)
  const config: Body = body['generationConfig'] ?? {}
  const thinking: Body | undefined = config['thinkingConfig']
  if (rules !== undefined && thinking !== undefined) {
    const budget = thinking['thinkingBudget']
    const level = thinking['thinkingLevel']
    if (budget !== undefined && level !== undefined)
      return geminiError('You can only set one of thinking budget and thinking level.')
    if (rules.noThinking === true && (budget !== undefined || level !== undefined))
      return geminiError('Thinking is not supported for this model.')
    if (rules.budget !== undefined && budget !== undefined && budget !== -1) {
      const { min, max, zero } = rules.budget
      if (budget === 0 && !zero)
        return geminiError('Budget 0 is invalid. This model only works in thinking mode.')
      if (budget !== 0 && (budget < min || budget > max))
        return geminiError(
          `The thinking budget ${budget} is invalid. Please choose a value between ${zero ? 0 : min} and ${max}.`,
        )
    }
    if (level !== undefined) {
      if (rules.levels === undefined)
        return geminiError('Thinking level is not supported for this model.')
      if (!rules.levels.includes(String(level).toLowerCase()))
        return geminiError(
          `Thinking level ${level} is not supported for this model. Supported levels: ${rules.levels.join(', ').toUpperCase()}.`,
        )
    }
  }
  const limit = config['maxOutputTokens']
  if (rules !== undefined && typeof limit === 'number' && limit > rules.maxOutput)
    return geminiError(
      `Unable to submit request because it has a maxOutputTokens value of ${limit} but the supported range is from 1 (inclusive) to ${rules.maxOutput + 1} (exclusive). Update the value and try again.`,
    )
  if (config['responseJsonSchema'] !== undefined && config['responseSchema'] !== undefined)
    return geminiError('responseSchema and responseJsonSchema cannot both be set.')
  if (
    (config['responseJsonSchema'] !== undefined || config['responseSchema'] !== undefined) &&
    config['responseMimeType'] !== 'application/json'
  )
    return geminiError('response_mime_type must be application/json when response_schema is set.')
  return checkContents(body, rules?.signatures === true)
}

/**
 * Remembers the thought signatures in an answer a test scripted for the fake upstream (a
 * `GenerateContentResponse`, or SSE frames of them): the upstream issued them.
 */
export function recordScriptedSignatures(answer: {
  body?: unknown
  frames?: readonly string[]
}): void {
  const texts = [JSON.stringify(answer.body ?? null), ...(answer.frames ?? [])]
  for (const text of texts)
    for (const match of text.matchAll(/"thoughtSignature":"([^"]+)"/g)) issued.add(match[1]!)
}

function checkContents(body: Body, signatures: boolean): FakeError | undefined {
  const contents: Body[] = body['contents'] ?? []
  // The current turn starts after the last user content holding text.
  const turnStart = contents.findLastIndex(
    (content) =>
      content['role'] !== 'model' && (content['parts'] ?? []).some((part: Part) => 'text' in part),
  )
  let previousCalls = 0
  for (const [index, content] of contents.entries()) {
    const parts: Part[] = content['parts'] ?? []
    const calls = parts.filter((part) => part['functionCall'] !== undefined)
    if (content['role'] === 'model') {
      if (signatures && index > turnStart && calls.length > 0) {
        const signature = calls[0]!['thoughtSignature']
        if (signature === undefined)
          return geminiError(
            `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${calls[0]!['functionCall']['name']}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
          )
        if (signature !== skipSentinel && !issued.has(signature))
          return geminiError('Corrupted thought signature.')
      }
      previousCalls = calls.length
      continue
    }
    const responses = parts.filter((part) => part['functionResponse'] !== undefined).length
    if (responses > 0 && responses !== previousCalls)
      return geminiError(
        'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
      )
    previousCalls = 0
  }
  return undefined
}

/**
 * A model's answer to a valid request, as Gemini writes it: a thought part first when thoughts
 * are asked for on a thinking model; a function call when tools are offered and the last user
 * content holds no functionResponse (Gemini 3 signs it), else the final text (JSON for a response
 * schema). Usage counts thoughts apart from candidates. Streams are `data:` events, new parts
 * only, the last with `finishReason` and cumulative usage.
 */
export function geminiModelAnswer(
  model: string,
  body: Body,
  stream: boolean,
): { json: object } | { frames: string[] } {
  const rules = geminiRules(model)
  const config: Body = body['generationConfig'] ?? {}
  const thinking: Body = config['thinkingConfig'] ?? {}
  const thinks =
    rules !== undefined && rules.noThinking !== true && thinking['thinkingBudget'] !== 0
  const contents: Body[] = body['contents'] ?? []
  const lastParts: Part[] = contents.at(-1)?.['parts'] ?? []
  const afterResults = lastParts.some((part) => part['functionResponse'] !== undefined)
  const declarations: Body[] = (body['tools'] ?? []).flatMap(
    (tool: Body) => tool['functionDeclarations'] ?? [],
  )
  const mode = body['toolConfig']?.['functionCallingConfig']?.['mode']
  counter += 1
  const parts: Part[] = []
  if (thinks && thinking['includeThoughts'] === true)
    parts.push({ text: `Weighing turn ${contents.length}.`, thought: true })
  if (declarations.length > 0 && !afterResults && mode !== 'NONE') {
    const allowed: string[] =
      body['toolConfig']?.['functionCallingConfig']?.['allowedFunctionNames'] ?? []
    const declaration =
      declarations.find((item) => allowed.includes(item['name'])) ?? declarations[0]!
    const schema = declaration['parametersJsonSchema'] ?? declaration['parameters'] ?? {}
    const signature =
      rules?.signatures === true ? btoa(`fake-gemini-signature-${counter}`) : undefined
    if (signature !== undefined) issued.add(signature)
    parts.push({
      functionCall: { name: declaration['name'], args: sampleOf(schema) },
      ...(signature === undefined ? {} : { thoughtSignature: signature }),
    })
  } else {
    const schema = config['responseJsonSchema'] ?? config['responseSchema']
    const text =
      config['responseMimeType'] === 'application/json'
        ? JSON.stringify(schema === undefined ? { answer: 'ok' } : sampleOf(schema))
        : `Answer from ${model}${afterResults ? ' after the function result' : ''}.`
    parts.push({ text })
  }
  const prompt = Math.ceil(JSON.stringify(contents).length / 4)
  const thoughts = thinks ? 5 : 0
  const usageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: 6,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + 6 + thoughts,
  }
  const base = { modelVersion: model, responseId: `fake-response-${counter}` }
  if (!stream) {
    return {
      json: {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata,
        ...base,
      },
    }
  }
  const frames = parts.map((part, index) => {
    const last = index === parts.length - 1
    const event = {
      candidates: [
        {
          content: { role: 'model', parts: [part] },
          ...(last ? { finishReason: 'STOP' } : {}),
          index: 0,
        },
      ],
      usageMetadata: last ? usageMetadata : { promptTokenCount: prompt, totalTokenCount: prompt },
      ...base,
    }
    return `data: ${JSON.stringify(event)}\r\n\r\n`
  })
  return { frames }
}
