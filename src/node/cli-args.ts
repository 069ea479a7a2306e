/** What the command line asks for. */
export type CliArgs = {
  config: string
  port: number
  host: string
  /** Print a plaintext key from the config and a curl line (the demo's `npm start`). */
  printDemo: boolean
}

/** The usage text, printed with `--help` and with a bad command line. */
export const usage = `Usage: model-gateway --config <file.json> [--port 8787] [--host 127.0.0.1] [--print-demo]

  --config      the gateway config (JSON; "\${NAME}" reads an environment variable)
  --port        port to listen on (default 8787; 0 picks a free one)
  --host        address to bind (default 127.0.0.1)
  --print-demo  print the first plaintext key of the config and a ready-to-paste curl line`

/**
 * Parses `argv` (without the node and script paths).
 *
 * @throws Error with a one-line reason for a bad command line
 */
export function parseCliArgs(argv: readonly string[]): CliArgs | 'help' {
  const args: Partial<CliArgs> = { port: 8787, host: '127.0.0.1', printDemo: false }
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, inline] = argv[index]!.split(/=(.*)/s, 2) as [string, string | undefined]
    const value = () => {
      const next = inline ?? argv[++index]
      if (next === undefined) throw new Error(`${flag} needs a value`)
      return next
    }
    switch (flag) {
      case '--help':
      case '-h':
        return 'help'
      case '--config':
      case '-c':
        args.config = value()
        break
      case '--port':
      case '-p': {
        const port = Number(value())
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new Error('--port takes 0 to 65535')
        args.port = port
        break
      }
      case '--host':
        args.host = value()
        break
      case '--print-demo':
        args.printDemo = true
        break
      default:
        throw new Error(`unknown option ${flag}`)
    }
  }
  if (args.config === undefined) throw new Error('--config is required')
  return args as CliArgs
}
