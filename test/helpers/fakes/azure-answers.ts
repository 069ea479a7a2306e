type Body = Record<string, any>

const safe = { filtered: false, severity: 'safe' }

/** The verdicts of Azure's default filters on text that passed them. */
export function passedFilters() {
  return {
    hate: safe,
    self_harm: safe,
    sexual: safe,
    violence: safe,
    jailbreak: { filtered: false, detected: false },
  }
}

/**
 * Azure's refusal of a prompt its content filter blocked: a 400 with `code: "content_filter"`,
 * `type: null` and the verdicts in `innererror.content_filter_result` (here violence at high
 * severity and a custom blocklist), as in Microsoft's blocklist how-to.
 */
export function promptFilterRefusal() {
  return {
    error: {
      message:
        "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
      type: null,
      param: 'prompt',
      code: 'content_filter',
      status: 400,
      innererror: {
        code: 'ResponsibleAIPolicyViolation',
        content_filter_result: {
          custom_blocklists: [{ filtered: true, id: 'raiBlocklistName' }],
          hate: safe,
          self_harm: safe,
          sexual: safe,
          violence: { filtered: true, severity: 'high' },
          jailbreak: { filtered: false, detected: false },
        },
      },
    },
  }
}

const cutVerdicts = { ...passedFilters(), violence: { filtered: true, severity: 'medium' } }

/**
 * An OpenAI answer as Azure sends it: with `prompt_filter_results` and each choice's
 * `content_filter_results`; a stream that opens with the prompt filter's chunk (`choices: []`,
 * empty id and model) and carries a delta-less annotation chunk before its finish. A request that
 * says `FILTEROUT` gets its completion cut by the filter: `finish_reason: "content_filter"`.
 */
export function azureAnswer(
  body: Body,
  answer: { json: object } | { frames: string[] },
): { json: object } | { frames: string[] } {
  const cut = JSON.stringify(body['messages'] ?? []).includes('FILTEROUT')
  const promptFilter = [{ prompt_index: 0, content_filter_results: passedFilters() }]
  if ('json' in answer) {
    const json = answer.json as Body
    const choice = json['choices'][0]
    return {
      json: {
        ...json,
        prompt_filter_results: promptFilter,
        choices: [
          cut
            ? {
                index: 0,
                message: { role: 'assistant', content: null, refusal: null },
                finish_reason: 'content_filter',
                logprobs: null,
                content_filter_results: cutVerdicts,
              }
            : { ...choice, content_filter_results: passedFilters() },
        ],
      },
    }
  }
  const chunks = answer.frames
    .filter((frame) => frame !== 'data: [DONE]\n\n')
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as Body)
  const first = chunks[0]!
  const frame = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`
  const frames = [
    frame({
      id: '',
      object: '',
      created: 0,
      model: '',
      prompt_filter_results: promptFilter,
      choices: [],
      usage: null,
    }),
  ]
  const annotation = (verdicts: object, finish: string | null) =>
    frame({
      id: '',
      object: '',
      created: 0,
      model: '',
      choices: [
        {
          index: 0,
          finish_reason: finish,
          content_filter_results: verdicts,
          content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 12 },
        },
      ],
    })
  if (cut) {
    frames.push(
      frame({
        ...first,
        choices: [{ index: 0, delta: { role: 'assistant', content: 'Hey' }, finish_reason: null }],
      }),
    )
    frames.push(annotation(cutVerdicts, 'content_filter'))
    const usage = chunks.find((chunk) => chunk['usage'] != null && chunk['choices']?.length === 0)
    if (usage !== undefined) frames.push(frame(usage))
  } else {
    for (const chunk of chunks) {
      if (chunk['choices']?.[0]?.finish_reason != null)
        frames.push(annotation(passedFilters(), null))
      frames.push(frame(chunk))
    }
  }
  frames.push('data: [DONE]\n\n')
  return { frames }
}
