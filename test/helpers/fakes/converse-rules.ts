/**
 * The request rules of AWS Bedrock's Converse API, as a fake upstream enforces them: each broken
 * rule is a 400 `ValidationException` with a message in AWS's words, so that a gateway bug reaches
 * the test as the failure a real Bedrock would give.
 */

type Json = Record<string, unknown>

const topLevel = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'promptVariables',
  'requestMetadata',
  'performanceConfig',
])
const blockKinds = new Set([
  'text',
  'image',
  'document',
  'toolUse',
  'toolResult',
  'reasoningContent',
  'cachePoint',
])
const imageFormats = new Set(['png', 'jpeg', 'gif', 'webp'])
const documentFormats = new Set(['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md'])
const idPattern = /^[a-zA-Z0-9_-]{1,64}$/
const base64 = /^[A-Za-z0-9+/]*={0,2}$/

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The first broken rule of a Converse request body, in AWS's words, or `undefined`. */
export function converseProblem(
  body: unknown,
  issuedSignatures: ReadonlySet<string>,
): string | undefined {
  if (!isObject(body)) return 'The request body must be a JSON object.'
  for (const key of Object.keys(body)) {
    if (!topLevel.has(key)) return `Unknown field in the request: ${key}.`
  }
  const messages = body['messages']
  if (!Array.isArray(messages) || messages.length === 0)
    return 'The messages field must contain at least one message.'
  const problem =
    systemProblem(body['system']) ??
    messagesProblem(messages, issuedSignatures) ??
    inferenceProblem(body['inferenceConfig']) ??
    toolConfigProblem(body['toolConfig'], messages)
  return problem
}

function systemProblem(system: unknown): string | undefined {
  if (system === undefined) return undefined
  if (!Array.isArray(system)) return 'The system field must be a list.'
  for (const [index, block] of system.entries()) {
    if (!isObject(block) || Object.keys(block).length !== 1)
      return `The SystemContentBlock at system.${index} must set exactly one member.`
    if ('text' in block) {
      if (typeof block['text'] !== 'string' || block['text'].trim() === '')
        return `The text field in the SystemContentBlock object at system.${index} is blank. Add text to the text field, and try again.`
    } else if ('cachePoint' in block) {
      if (index === 0) return 'A cachePoint must follow the content it caches.'
    } else return `Unknown member in the SystemContentBlock at system.${index}.`
  }
  return undefined
}

function messagesProblem(messages: unknown[], signatures: ReadonlySet<string>): string | undefined {
  let previousUses: string[] = []
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${index} must be an object.`
    const role = message['role']
    if (role !== 'user' && role !== 'assistant')
      return `messages.${index}.role must be user or assistant.`
    if (index === 0 && role !== 'user')
      return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.'
    if (index > 0 && (messages[index - 1] as Json)['role'] === role)
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.'
    const content = message['content']
    if (!Array.isArray(content) || content.length === 0)
      return `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`
    const uses: string[] = []
    const results: string[] = []
    for (const [position, block] of content.entries()) {
      const where = `messages.${index}.content.${position}`
      const problem = blockProblem(block, where, role, signatures)
      if (problem !== undefined) return problem
      const item = block as Json
      if (isObject(item['toolUse'])) uses.push(String(item['toolUse']['toolUseId']))
      if (isObject(item['toolResult'])) results.push(String(item['toolResult']['toolUseId']))
    }
    if (role === 'user') {
      for (const id of results) {
        if (!previousUses.includes(id))
          return `The toolResult block at messages.${index} has toolUseId ${id}, which the previous assistant message does not use.`
      }
      const missing = previousUses.filter((id) => !results.includes(id))
      if (missing.length > 0)
        return `Expected toolResult blocks at messages.${index}.content for the following Ids: ${missing.join(', ')}`
    }
    previousUses = role === 'assistant' ? uses : []
  }
  return undefined
}

function blockProblem(
  block: unknown,
  where: string,
  role: string,
  signatures: ReadonlySet<string>,
): string | undefined {
  if (!isObject(block) || Object.keys(block).length !== 1)
    return `The ContentBlock at ${where} must set exactly one member.`
  const [kind] = Object.keys(block) as [string]
  if (!blockKinds.has(kind)) return `Unknown member ${kind} in the ContentBlock at ${where}.`
  const value = block[kind]
  switch (kind) {
    case 'text':
      return typeof value === 'string' && value.trim() !== ''
        ? undefined
        : `The text field in the ContentBlock object at ${where} is blank. Add text to the text field, and try again.`
    case 'image':
      return imageProblem(value, where)
    case 'document': {
      if (!isObject(value) || !documentFormats.has(String(value['format'])))
        return `The document at ${where} has an unsupported format.`
      const name = String(value['name'])
      if (!/^[A-Za-z0-9()[\]-]+(?: [A-Za-z0-9()[\]-]+)*$/.test(name))
        return `The document name at ${where} may contain only alphanumeric characters, single spaces, hyphens, parentheses and square brackets.`
      const source = isObject(value['source']) ? value['source'] : {}
      return typeof source['bytes'] === 'string' && base64.test(source['bytes'])
        ? undefined
        : `The document at ${where} needs its bytes.`
    }
    case 'toolUse': {
      if (role !== 'assistant')
        return `A toolUse block at ${where} must be in an assistant message.`
      if (!isObject(value) || !idPattern.test(String(value['toolUseId'])))
        return `The toolUseId at ${where} must match [a-zA-Z0-9_-]+ (1 to 64 characters).`
      if (!idPattern.test(String(value['name']))) return `The tool name at ${where} is not valid.`
      return isObject(value['input'])
        ? undefined
        : `The toolUse input at ${where} must be a JSON object.`
    }
    case 'toolResult': {
      if (role !== 'user') return `A toolResult block at ${where} must be in a user message.`
      if (!isObject(value) || !idPattern.test(String(value['toolUseId'])))
        return `The toolUseId at ${where} must match [a-zA-Z0-9_-]+ (1 to 64 characters).`
      if (
        value['status'] !== undefined &&
        value['status'] !== 'success' &&
        value['status'] !== 'error'
      )
        return `The toolResult status at ${where} must be success or error.`
      if (!Array.isArray(value['content']))
        return `The toolResult content at ${where} must be a list.`
      for (const item of value['content']) {
        if (!isObject(item) || Object.keys(item).length !== 1)
          return `A ToolResultContentBlock at ${where} must set exactly one member.`
        if ('image' in item) {
          const problem = imageProblem(item['image'], where)
          if (problem !== undefined) return problem
        } else if (!('text' in item) && !('json' in item))
          return `A ToolResultContentBlock at ${where} must be text, json, image or document.`
      }
      return undefined
    }
    case 'reasoningContent': {
      if (role !== 'assistant')
        return `A reasoningContent block at ${where} must be in an assistant message.`
      if (!isObject(value)) return `The reasoningContent at ${where} must be an object.`
      if (typeof value['redactedContent'] === 'string')
        return base64.test(value['redactedContent'])
          ? undefined
          : `The redactedContent at ${where} must be base64.`
      const text = isObject(value['reasoningText']) ? value['reasoningText'] : undefined
      if (text === undefined || typeof text['text'] !== 'string')
        return `The reasoningContent at ${where} needs reasoningText or redactedContent.`
      if (text['signature'] !== undefined && !signatures.has(String(text['signature'])))
        return `The reasoningContent at ${where} has an invalid signature.`
      return undefined
    }
    default:
      return undefined
  }
}

function imageProblem(value: unknown, where: string): string | undefined {
  if (!isObject(value) || !imageFormats.has(String(value['format'])))
    return `The image at ${where} must be png, jpeg, gif or webp.`
  const source = isObject(value['source']) ? value['source'] : {}
  if (Object.keys(source).length !== 1 || typeof source['bytes'] !== 'string')
    return `The image source at ${where} must give its bytes.`
  return base64.test(source['bytes']) ? undefined : `The image bytes at ${where} are not base64.`
}

function inferenceProblem(config: unknown): string | undefined {
  if (config === undefined) return undefined
  if (!isObject(config)) return 'inferenceConfig must be an object.'
  const maxTokens = config['maxTokens']
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1))
    return 'The maximum tokens you requested must be at least 1.'
  for (const field of ['temperature', 'topP']) {
    const value = config[field]
    if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1))
      return `${field} must be between 0 and 1.`
  }
  for (const key of Object.keys(config)) {
    if (!['maxTokens', 'temperature', 'topP', 'stopSequences'].includes(key))
      return `Unknown field in inferenceConfig: ${key}.`
  }
  return undefined
}

function toolConfigProblem(config: unknown, messages: unknown[]): string | undefined {
  const usesTools = messages.some((message) =>
    ((message as Json)['content'] as Json[]).some(
      (block) => 'toolUse' in block || 'toolResult' in block,
    ),
  )
  if (config === undefined)
    return usesTools
      ? 'The toolConfig field must be defined when using toolUse and toolResult content blocks.'
      : undefined
  if (!isObject(config) || !Array.isArray(config['tools']) || config['tools'].length === 0)
    return 'toolConfig.tools must hold at least one tool.'
  const names: string[] = []
  for (const tool of config['tools']) {
    const spec = isObject(tool) && isObject(tool['toolSpec']) ? tool['toolSpec'] : undefined
    if (spec === undefined || !idPattern.test(String(spec['name'])))
      return 'Each tool needs a toolSpec whose name matches [a-zA-Z0-9_-]+ (1 to 64 characters).'
    const schema = isObject(spec['inputSchema']) ? spec['inputSchema'] : {}
    if (!isObject(schema['json'])) return `The tool ${String(spec['name'])} needs inputSchema.json.`
    names.push(String(spec['name']))
  }
  const choice = config['toolChoice']
  if (choice === undefined) return undefined
  if (!isObject(choice) || Object.keys(choice).length !== 1)
    return 'toolChoice must set exactly one member.'
  if ('tool' in choice && !names.includes(String((choice['tool'] as Json)['name'])))
    return 'toolChoice names a tool the toolConfig does not declare.'
  return 'auto' in choice || 'any' in choice || 'tool' in choice ? undefined : 'Unknown toolChoice.'
}
