import { type LoggerService } from '@nestjs/common';

/**
 * The server log of the contract apps: every line NestJS and once log, kept
 * in memory so a scenario can say what reached the log (and what did not
 * reach the client). NestJS routes every `Logger` of every app to the last
 * logger given to `NestFactory`, so one instance serves the whole suite.
 */
export class ServerLog implements LoggerService {
  readonly lines: string[] = [];

  log(...parts: unknown[]): void {
    this.keep('LOG', parts);
  }
  error(...parts: unknown[]): void {
    this.keep('ERROR', parts);
  }
  warn(...parts: unknown[]): void {
    this.keep('WARN', parts);
  }
  debug(...parts: unknown[]): void {
    this.keep('DEBUG', parts);
  }
  verbose(...parts: unknown[]): void {
    this.keep('VERBOSE', parts);
  }
  fatal(...parts: unknown[]): void {
    this.keep('FATAL', parts);
  }

  /** The lines that contain `text`. */
  containing(text: string): string[] {
    return this.lines.filter((line) => line.includes(text));
  }

  private keep(level: string, parts: unknown[]): void {
    const text = parts.map((part) =>
      part instanceof Error ? (part.stack ?? part.message) : String(part),
    );
    this.lines.push(`${level} ${text.join(' ')}`);
  }
}
