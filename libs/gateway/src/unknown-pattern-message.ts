/**
 * What NestJS's TCP server answers for a pattern no handler claims
 * (`NO_MESSAGE_HANDLER` in @nestjs/microservices). An application written
 * for NestJS TCP may look for it in an error's message.
 */
export const NEST_NO_HANDLER =
  'There is no matching message handler defined in the remote service.';

/**
 * The message of an UNKNOWN_PATTERN refusal the gateway gives: NestJS's
 * sentence, then what once adds (which kind of handler, which pattern).
 *
 * A command's refusal is journaled with its message, so a replay answers it
 * with the bytes it was first answered with, whatever this text becomes. A
 * command that reaches apply without a handler (a pattern the MANIFEST in
 * force does not list) is answered by the engine, whose message stays
 * `no command handler for pattern "…"`: replay rebuilds that reply, and the
 * journal's reply checksums would stop a node whose reply changed.
 */
export function unknownPatternMessage(kind: 'command' | 'query', pattern: string): string {
  return `${NEST_NO_HANDLER} (no ${kind} handler for pattern "${pattern}")`;
}
