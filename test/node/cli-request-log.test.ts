import OpenAI from 'openai'
import { afterAll, describe, expect, it } from 'vitest'
import { serveCli, writeConfig, type ServedCli } from '../helpers/cli'

const key = 'sk-log-test-0123456789abcdef'
const config = {
  groups: [
    { id: 'fast', protocol: 'openai', models: ['fast-echo'], upstreams: [{ provider: 'mock' }] },
    {
      id: 'slow',
      protocol: 'openai',
      models: ['slow-echo'],
      upstreams: [{ provider: 'mock', chunkDelayMs: 50, reply: 'word '.repeat(400) }],
    },
  ],
  keys: [{ key, name: 'log-test' }],
}
const served: ServedCli[] = []
afterAll(async () => {
  await Promise.all(served.map((gateway) => gateway.stop('SIGKILL')))
})

/** The request log lines the CLI printed for a model. */
const linesFor = (output: string, model: string) =>
  output.split('\n').filter((line) => line.includes(`model=${model}`))

describe('the CLI request log', { timeout: 60_000 }, () => {
  it('loses no line on SIGTERM: the requests just answered and the stream the shutdown ended', async () => {
    const gateway = await serveCli(['--config', writeConfig(config), '--port', '0'])
    served.push(gateway)
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1` })
    const stream = await client.chat.completions.create({
      model: 'slow-echo',
      messages: [{ role: 'user', content: 'a long answer' }],
      stream: true,
    })
    const reading = (async () => {
      try {
        for await (const chunk of stream) void chunk
      } catch {
        // The shutdown cuts the stream: expected.
      }
    })()
    // Many requests answered at once, the signal sent the moment the last answer arrives.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        client.chat.completions.create({
          model: 'fast-echo',
          messages: [{ role: 'user', content: `request ${index}` }],
        }),
      ),
    )
    expect(answers).toHaveLength(40)
    expect(await gateway.stop('SIGTERM')).toBe(0)
    await reading
    const output = gateway.output()
    expect(linesFor(output, 'fast-echo')).toHaveLength(40)
    const slow = linesFor(output, 'slow-echo')
    expect(slow).toHaveLength(1)
    expect(slow[0]).toMatch(/ stream .* aborted /)
    // Every request line came before the shutdown line, or after it for the stream it ended.
    const shutdownAt = output.indexOf('SIGTERM, shutting down')
    expect(shutdownAt).toBeGreaterThan(output.lastIndexOf('model=fast-echo'))
    expect(output.indexOf('model=slow-echo')).toBeGreaterThan(shutdownAt)
  })
})
