/** One server-sent event, or a comment line (`: keep-alive`), which carries no data. */
export type SseMessage =
  | { type: 'event'; event?: string | undefined; id?: string | undefined; data: string }
  | { type: 'comment'; comment: string }
