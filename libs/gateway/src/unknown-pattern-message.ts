import { NO_MESSAGE_HANDLER } from '@once/framework/internal';

/**
 * The message of an UNKNOWN_PATTERN refusal the gateway gives: NestJS's
 * sentence for it (`NO_MESSAGE_HANDLER`, which an application written for
 * NestJS TCP may look for in an error's message), then what once adds (which kind of handler, which pattern).
 *
 * A command's refusal is journaled with its message, so a replay answers it
 * with the bytes it was first answered with, whatever this text becomes. A
 * command that reaches apply without a handler (a pattern the MANIFEST in
 * force does not list) is answered by the engine, whose message stays
 * `no command handler for pattern "…"`: replay rebuilds that reply, and the
 * journal's reply checksums would stop a node whose reply changed.
 */
export function unknownPatternMessage(kind: 'command' | 'query', pattern: string): string {
  return `${NO_MESSAGE_HANDLER} (no ${kind} handler for pattern "${pattern}")`;
}
