export interface WebhookMessage {
  url: string;
  /** The `webhook-id`: the same on every attempt of one delivery. */
  messageId: string;
  /** The JSON body, byte for byte what is signed. */
  payload: string;
  /** Each one signs; receivers accept any signature made with a secret they know. */
  secrets: string[];
}

export interface SendResult {
  /** The receiver's status; null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** Why it did not succeed, in a line; null for a 2xx. */
  error: string | null;
  /** The receiver's Retry-After, in milliseconds from now; null when absent or unreadable. */
  retryAfterMs: number | null;
}

/** POSTs one signed message. Never throws: every way of failing is a result. */
export interface WebhookSender {
  send(message: WebhookMessage, signal?: AbortSignal): Promise<SendResult>;
}
