/** SPEC §2: an error body holds at most 20 messages, the last one saying how many more there were. */
export const MAX_ERROR_MESSAGES = 20;

/**
 * At most MAX_ERROR_MESSAGES messages: past that, the first ones and a last that counts the rest.
 * `total` is how many problems there were, when only the first messages were built.
 */
export function errorMessages(messages: readonly string[], total = messages.length): string[] {
  if (total <= MAX_ERROR_MESSAGES) return messages.slice(0, MAX_ERROR_MESSAGES);
  const shown = messages.slice(0, MAX_ERROR_MESSAGES - 1);
  return [...shown, `… and ${total - shown.length} more problems`];
}

/**
 * One message per item, for a list as long as a 16 KiB body allows (thousands of unknown keys):
 * only the messages that can be shown are built.
 */
export function messagesFor<T>(items: readonly T[], message: (item: T) => string): string[] {
  return errorMessages(items.slice(0, MAX_ERROR_MESSAGES).map(message), items.length);
}
