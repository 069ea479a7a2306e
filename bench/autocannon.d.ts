/** The slice of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export type Options = {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    connections?: number
    pipelining?: number
    duration?: number
    amount?: number
    timeout?: number
  }

  export type Result = {
    errors: number
    timeouts: number
    non2xx: number
    totalCompletedRequests: number
    duration: number
  }

  export type Instance = EventEmitter &
    PromiseLike<Result> & {
      stop(): void
      on(
        event: 'response',
        listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void,
      ): Instance
    }

  export default function autocannon(options: Options): Instance
}
