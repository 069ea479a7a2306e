import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { gatewayUrl, keys } from '../helpers/gateway'
import { upstreamKinds, useResponsesFakes } from '../helpers/responses-fake-gateway'
import { expectResponsesStreamOrder, type ResponsesWireEvent } from '../helpers/responses-stream'

/**
 * A Codex CLI session through every upstream kind, against fakes that enforce each vendor's
 * rules — Anthropic's signed thinking leading the last tool turn while thinking is on, Gemini 3's
 * thought signatures on function calls, OpenAI's own encrypted reasoning. Turn 1 is the recorded
 * request; the fakes call the first tool offered, so `apply_patch` is offered first. Turn 2 is what
 * Codex sends next: the whole history, the reasoning item as received, the call, and its output.
 */
const codexRequest = JSON.parse(
  readFileSync(new URL('../fixtures/responses/codex-request.json', import.meta.url), 'utf8'),
) as Record<string, any>

const fakes = useResponsesFakes({
  openai: 'gpt-5.1',
  responses: 'gpt-5.1-codex',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-3-pro-preview',
})

async function codexTurn(body: Record<string, any>): Promise<ResponsesWireEvent[]> {
  const response = await fakes.fetch(`${gatewayUrl}/v1/responses`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${keys.main}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      originator: 'codex_cli_rs',
    },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  expect(response.status, text).toBe(200)
  return expectResponsesStreamOrder(text)
}

describe.each(upstreamKinds)('Codex through the %s upstream', (kind) => {
  it('gets apply_patch back as a custom_tool_call, then finishes the turn with its output', async () => {
    const mark = fakes.mark()
    const tools = codexRequest['tools'] as Array<Record<string, any>>
    const first: Record<string, any> = {
      ...codexRequest,
      model: `model-${kind}`,
      tools: [
        tools.find((tool) => tool['name'] === 'apply_patch'),
        ...tools.filter((tool) => tool['name'] !== 'apply_patch'),
      ],
    }
    const turn1 = await codexTurn(first)
    const completed = turn1.at(-1)!.data['response']
    expect(turn1.at(-1)!.data['type']).toBe('response.completed')
    const output = completed['output'] as Array<Record<string, any>>
    const call = output.find((item) => item['name'] === 'apply_patch')
    expect(call).toMatchObject({
      type: 'custom_tool_call',
      status: 'completed',
      input: expect.any(String),
    })
    expect(output.some((item) => item['type'] === 'function_call')).toBe(false)
    // Codex reads tool calls and reasoning only from output_item.done.
    const done = turn1
      .filter((event) => event.data['type'] === 'response.output_item.done')
      .map((event) => event.data['item'])
    expect(done).toEqual(output)
    const reasoning = output.filter((item) => item['type'] === 'reasoning')
    if (kind === 'anthropic' || kind === 'responses') {
      expect(reasoning).toHaveLength(1)
      expect(reasoning[0]!['encrypted_content']).toEqual(expect.any(String))
    }

    const second = {
      ...first,
      input: [
        ...first['input'],
        ...output,
        {
          type: 'custom_tool_call_output',
          call_id: call!['call_id'],
          output: 'Success. Updated the following files:\nA hello.txt\n',
        },
      ],
    }
    const turn2 = await codexTurn(second)
    const final = turn2.at(-1)!.data['response']
    expect(final['status']).toBe('completed')
    const message = (final['output'] as Array<Record<string, any>>).find(
      (item) => item['type'] === 'message',
    )
    expect(message?.['content'][0]['text']).toMatch(/^Answer from /)
    await fakes.expectExactUsage(mark, 2)

    if (kind === 'anthropic') {
      // The signed thinking of turn 1 led the assistant turn Anthropic got back, byte for byte.
      const sent = JSON.parse(fakes.calls.anthropic.at(-1)!.body)
      const assistant = sent['messages'].findLast((message: any) => message['role'] === 'assistant')
      expect(assistant['content'][0]).toMatchObject({
        type: 'thinking',
        signature: expect.any(String),
      })
      expect(sent['thinking']).toMatchObject({ type: 'enabled' })
    }
    if (kind === 'gemini') {
      // Gemini 3 got its own thought signature back on the call, not the skip value.
      const sent = JSON.parse(fakes.calls.gemini.at(-1)!.body)
      const model = sent['contents'].findLast((content: any) => content['role'] === 'model')
      const part = model['parts'].find((item: any) => item['functionCall'] !== undefined)
      expect(part['thoughtSignature']).toEqual(expect.any(String))
      expect(part['thoughtSignature']).not.toBe('skip_thought_signature_validator')
    }
    if (kind === 'responses') {
      // Passthrough: OpenAI got its own encrypted reasoning back, and the custom tool as it was.
      const sent = JSON.parse(fakes.calls.responses.at(-1)!.body)
      expect(sent['input']).toContainEqual(reasoning[0])
      expect(sent['client_metadata']).toEqual(codexRequest['client_metadata'])
    }
  })

  it('finishes a second turn whose reasoning item was lost (a model switch), whatever the rules', async () => {
    const tools = codexRequest['tools'] as Array<Record<string, any>>
    const first: Record<string, any> = {
      ...codexRequest,
      model: `model-${kind}`,
      tools: [
        tools.find((tool) => tool['name'] === 'apply_patch'),
        ...tools.filter((tool) => tool['name'] !== 'apply_patch'),
      ],
    }
    const output = (await codexTurn(first)).at(-1)!.data['response']['output'] as Array<
      Record<string, any>
    >
    const call = output.find((item) => item['type'] === 'custom_tool_call')!
    const turn2 = await codexTurn({
      ...first,
      input: [
        ...first['input'],
        call,
        { type: 'custom_tool_call_output', call_id: call['call_id'], output: 'Done.' },
      ],
    })
    expect(turn2.at(-1)!.data['response']['status']).toBe('completed')
    if (kind === 'anthropic') {
      // Anthropic's remedy: without signed thinking for the tool turn, the request goes without thinking.
      const sent = JSON.parse(fakes.calls.anthropic.at(-1)!.body)
      expect(sent['thinking']?.['type'] ?? 'disabled').toBe('disabled')
    }
  })

  it('answers the web_search built-in by dropping it on a translated path, named in a header', async () => {
    const response = await fakes.fetch(`${gatewayUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...codexRequest, model: `model-${kind}`, stream: false }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-gateway-dropped-tools')).toBe(
      kind === 'responses' ? null : 'web_search',
    )
  })
})
