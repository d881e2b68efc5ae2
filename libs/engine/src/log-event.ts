import { inspect } from 'node:util';

/** Extra fields of a {@link LogEvent}: flat, JSON-serializable values. */
export type LogEventFields = Readonly<Record<string, string | number | boolean | null>>;

/**
 * One line of the node's life (opened, snapshot restored, replay done,
 * ready, …) that a machine can read as well as a person.
 *
 * Loggers print it as its `text`: NestJS's `ConsoleLogger` in text mode
 * inspects a non-string message, and the custom inspect returns the text;
 * in JSON mode it serializes the message, and `toJSON` gives
 * `{ event, ...fields, text }`. A logger that knows the class (the reference
 * service's) lifts `event` and the fields to the top of its JSON line, with
 * `text` as the message. Field names avoid the logger's own
 * (`level`, `pid`, `timestamp`, `message`, `context`).
 */
export class LogEvent {
  /**
   * @param event stable kebab-case name of the event (`ready`, `replay-done`, …)
   * @param text the line as a person reads it
   * @param fields the figures the text names, under stable names
   */
  constructor(
    readonly event: string,
    readonly text: string,
    readonly fields: LogEventFields = {},
  ) {}

  toString(): string {
    return this.text;
  }

  toJSON(): Record<string, unknown> {
    return { event: this.event, ...this.fields, text: this.text };
  }

  [inspect.custom](): string {
    return this.text;
  }
}
