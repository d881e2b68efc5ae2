import { ConsoleLogger } from '@nestjs/common';
import { LogEvent } from '@once/engine';

/**
 * The reference service's logger: NestJS's `ConsoleLogger`, whose JSON lines
 * (`ONCE_LOG_FORMAT=json`) carry a {@link LogEvent}'s name and figures at the
 * top level (`"event":"ready","op":4`) with its text as the `message`, so a
 * log pipeline can select boot and stop phases by `event` without parsing
 * text. Text lines are unchanged: an event prints as its text.
 */
export class ServiceLogger extends ConsoleLogger {
  protected override getJsonLogObject(
    message: unknown,
    options: Parameters<ConsoleLogger['getJsonLogObject']>[1],
  ): ReturnType<ConsoleLogger['getJsonLogObject']> {
    const line = super.getJsonLogObject(message, options);
    if (!(message instanceof LogEvent)) return line;
    const lifted: Record<string, unknown> = {
      ...line,
      message: message.text,
      event: message.event,
    };
    // The logger's own fields win over an event's figure of the same name.
    for (const [name, value] of Object.entries(message.fields)) lifted[name] ??= value;
    return lifted as ReturnType<ConsoleLogger['getJsonLogObject']>;
  }
}
