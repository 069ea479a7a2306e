/**
 * What the fakes know of each vendor's models: the rules the real APIs enforce, written down here
 * independently of the gateway's own table (`src/models/`), from the vendors' documentation and
 * their recorded error messages. A model a fake does not know is served leniently, as a
 * self-hosted OpenAI-compatible server would.
 */

/** OpenAI chat-completions rules of a model. */
export type OpenAIModelRules = {
  /** Reasoning models refuse `max_tokens` and non-default `temperature` / `top_p`. */
  reasoning: boolean
  /** The `reasoning_effort` values accepted; `undefined`: the field is refused. */
  efforts?: readonly string[]
  /** With effort `none`, sampling fields are accepted (GPT-5.1 and later). */
  samplingWithoutReasoning?: boolean
  maxOutput: number
  /** Only `json_object` (no `json_schema`). */
  jsonModeOnly?: boolean
  /** DeepSeek's thinking switch. */
  thinkingToggle?: boolean
}

/** @see https://platform.openai.com/docs/guides/reasoning */
export function openAIRules(model: string): OpenAIModelRules | undefined {
  if (/^gpt-5-chat/.test(model)) return { reasoning: false, maxOutput: 16_384 }
  if (/^gpt-5\.1/.test(model))
    return {
      reasoning: true,
      efforts: ['none', 'low', 'medium', 'high'],
      samplingWithoutReasoning: true,
      maxOutput: 128_000,
    }
  if (/^gpt-5\.\d/.test(model))
    return {
      reasoning: true,
      efforts: ['none', 'low', 'medium', 'high', 'xhigh'],
      samplingWithoutReasoning: true,
      maxOutput: 128_000,
    }
  if (/^gpt-5/.test(model))
    return { reasoning: true, efforts: ['minimal', 'low', 'medium', 'high'], maxOutput: 128_000 }
  if (/^o1-mini/.test(model)) return { reasoning: true, maxOutput: 65_536 }
  if (/^o\d/.test(model))
    return { reasoning: true, efforts: ['low', 'medium', 'high'], maxOutput: 100_000 }
  if (/^gpt-4\.1/.test(model)) return { reasoning: false, maxOutput: 32_768 }
  if (/^(gpt-4o|chatgpt-4o)/.test(model)) return { reasoning: false, maxOutput: 16_384 }
  if (/^deepseek-chat/.test(model))
    return { reasoning: false, maxOutput: 8_192, jsonModeOnly: true, thinkingToggle: true }
  if (/^deepseek-v4/.test(model))
    return { reasoning: false, maxOutput: 384_000, jsonModeOnly: true, thinkingToggle: true }
  if (/^deepseek-reasoner/.test(model))
    return { reasoning: false, maxOutput: 65_536, jsonModeOnly: true }
  return undefined
}

/**
 * How an OpenAI-compatible model hands out reasoning on one request, and what it then requires of
 * the assistant messages of later requests.
 */
export type OpenAIReasoningRules = {
  /** Whether the model thinks on this request. */
  thinks: boolean
  /** Where the reasoning goes: a message member, or `<think>` text inside `content` (MiniMax). */
  field: 'reasoning_content' | 'reasoning' | 'reasoning_details' | 'think-tags'
  /**
   * DeepSeek's thinking mode: every assistant message with tool calls must carry the reasoning
   * the model returned with it, unaltered, or the request is refused.
   */
  needsItBack: boolean
  /** Assistant-message members the server's schema refuses (Cerebras refuses unknown members). */
  refusedMembers: readonly string[]
}

/**
 * The reasoning rules of the OpenAI-compatible models the fakes serve: DeepSeek's thinking mode
 * (on by default for V4 and the reasoner, by `thinking: {type: "enabled"}` for `deepseek-chat`),
 * MiniMax M2 (always thinks; `reasoning_details` with `reasoning_split: true`, else `<think>` in
 * the content), and self-hosted models no gateway table knows: `house-reasoner-*`, which answers
 * in `reasoning` as vLLM ≥ 0.11 does and needs it back there, `house-thinker-*`, the same in
 * `reasoning_content`, and `house-chat-*`, which never reasons; all refuse members they do not
 * know, as Cerebras does.
 *
 * @see https://api-docs.deepseek.com/guides/thinking_mode
 * @see https://platform.minimax.io/docs/api-reference/text-openai-api
 */
export function openAIReasoningRules(
  model: string,
  body: Record<string, any>,
): OpenAIReasoningRules | undefined {
  const thinking = body['thinking']?.type
  const deepseek = (thinks: boolean): OpenAIReasoningRules => ({
    thinks,
    field: 'reasoning_content',
    needsItBack: thinks,
    refusedMembers: [],
  })
  if (/^deepseek-(reasoner|v4)/.test(model)) return deepseek(thinking !== 'disabled')
  if (/^deepseek-chat/.test(model)) return deepseek(thinking === 'enabled')
  if (/^minimax-m2/i.test(model))
    return {
      thinks: true,
      field: body['reasoning_split'] === true ? 'reasoning_details' : 'think-tags',
      needsItBack: false,
      refusedMembers: [],
    }
  if (/^house-reasoner/.test(model))
    return {
      thinks: true,
      field: 'reasoning',
      needsItBack: true,
      refusedMembers: ['reasoning_content', 'reasoning_details'],
    }
  if (/^house-thinker/.test(model))
    return {
      thinks: true,
      field: 'reasoning_content',
      needsItBack: true,
      refusedMembers: ['reasoning', 'reasoning_details'],
    }
  if (/^house-chat/.test(model))
    return {
      thinks: false,
      field: 'reasoning_content',
      needsItBack: false,
      refusedMembers: ['reasoning_content', 'reasoning', 'reasoning_details'],
    }
  return undefined
}

/** Anthropic messages rules of a model. */
export type AnthropicModelRules = {
  maxOutput: number
  /** Thinking modes accepted. */
  budget: boolean
  adaptive: boolean
  /** `thinking: {type: "disabled"}` is accepted. */
  canDisable: boolean
  /** Non-default temperature, top_p or top_k are refused. */
  rejectsSampling: boolean
  /** `temperature` and `top_p` may not both be set. */
  temperatureOrTopP: boolean
  /** `output_config.format` is accepted. */
  structuredOutputs: boolean
  /** Forced tool use is refused. */
  rejectsForcedTools: boolean
  /** Thinking is on when the request says nothing. */
  thinksByDefault: boolean
}

const claude = {
  budget: true,
  adaptive: false,
  canDisable: true,
  rejectsSampling: false,
  temperatureOrTopP: false,
  structuredOutputs: false,
  rejectsForcedTools: false,
  thinksByDefault: false,
}

/** @see https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting */
export function anthropicRules(model: string): AnthropicModelRules | undefined {
  if (/^claude-3-5/.test(model)) return { ...claude, budget: false, maxOutput: 8_192 }
  if (/^claude-(sonnet|haiku|opus)-4-5/.test(model))
    return { ...claude, maxOutput: 64_000, temperatureOrTopP: true, structuredOutputs: true }
  if (/^claude-sonnet-4-6/.test(model))
    return {
      ...claude,
      adaptive: true,
      maxOutput: 128_000,
      temperatureOrTopP: true,
      structuredOutputs: true,
    }
  if (/^claude-opus-4-6/.test(model))
    return {
      ...claude,
      adaptive: true,
      maxOutput: 128_000,
      temperatureOrTopP: true,
      structuredOutputs: true,
    }
  if (/^claude-opus-4-[78]|^claude-(sonnet|opus)-5(?!-5)/.test(model))
    return {
      ...claude,
      budget: false,
      adaptive: true,
      maxOutput: 128_000,
      rejectsSampling: true,
      structuredOutputs: true,
      thinksByDefault: /-5$/.test(model),
    }
  if (/^claude-(opus|sonnet)-5-5|^claude-fable-5-1/.test(model))
    return {
      ...claude,
      budget: false,
      adaptive: true,
      canDisable: false,
      maxOutput: 128_000,
      rejectsSampling: true,
      structuredOutputs: true,
      rejectsForcedTools: true,
      thinksByDefault: true,
    }
  if (/^claude-opus-4-1/.test(model))
    return { ...claude, maxOutput: 32_000, temperatureOrTopP: true }
  if (/^claude-(sonnet-4|3-7)/.test(model)) return { ...claude, maxOutput: 64_000 }
  return undefined
}

/** Gemini thinking rules of a model. */
export type GeminiModelRules = {
  /** 2.5: budget range, whether 0 is allowed. */
  budget?: { min: number; max: number; zero: boolean }
  /** 3: the thinking levels accepted. */
  levels?: readonly string[]
  /** No thinking configuration at all (2.0). */
  noThinking?: boolean
  /** Gemini 3 validates thought signatures on function calls. */
  signatures: boolean
  maxOutput: number
}

/** @see https://ai.google.dev/gemini-api/docs/thinking */
export function geminiRules(model: string): GeminiModelRules | undefined {
  if (/^gemini-2\.0/.test(model)) return { noThinking: true, signatures: false, maxOutput: 8_192 }
  if (/^gemini-2\.5-pro/.test(model))
    return { budget: { min: 128, max: 32_768, zero: false }, signatures: false, maxOutput: 65_536 }
  if (/^gemini-2\.5-flash-lite/.test(model))
    return { budget: { min: 512, max: 24_576, zero: true }, signatures: false, maxOutput: 65_536 }
  if (/^gemini-2\.5-flash/.test(model))
    return { budget: { min: 1, max: 24_576, zero: true }, signatures: false, maxOutput: 65_536 }
  if (/^gemini-3-pro/.test(model))
    return { levels: ['low', 'high'], signatures: true, maxOutput: 65_536 }
  if (/^gemini-3\.\d+-pro/.test(model))
    return { levels: ['low', 'medium', 'high'], signatures: true, maxOutput: 65_536 }
  if (/^gemini-3/.test(model))
    return { levels: ['minimal', 'low', 'medium', 'high'], signatures: true, maxOutput: 65_536 }
  return undefined
}
