/** One server-sent event, or a comment line (`: keep-alive`), which carries no data. */
export type SseMessage =
  | {
      type: 'event'
      event?: string | undefined
      id?: string | undefined
      data: string
      /**
       * The event as the upstream wrote it, when that is byte for byte what `serializeSse` writes
       * for it: a passthrough forwards it as it is. Drop it when changing the message.
       */
      raw?: string | undefined
    }
  | { type: 'comment'; comment: string }
