import { type LoggerService } from '@nestjs/common';

/**
 * A NestJS logger that keeps every line in memory (level, then the message
 * and its context), for tests that assert what an in-process node logged.
 */
export class CapturedLog implements LoggerService {
  readonly lines: string[] = [];

  log(message: unknown, ...rest: unknown[]): void {
    this.push('LOG', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.push('ERROR', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.push('WARN', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.push('DEBUG', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.push('VERBOSE', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.push('FATAL', message, rest);
  }

  /** Every line so far, newline-separated. */
  get text(): string {
    return this.lines.join('\n');
  }

  private push(level: string, message: unknown, rest: unknown[]): void {
    const parts = [message, ...rest].map((part) =>
      part instanceof Error ? (part.stack ?? part.message) : String(part),
    );
    this.lines.push(`${level} ${parts.join(' ')}`);
  }
}
