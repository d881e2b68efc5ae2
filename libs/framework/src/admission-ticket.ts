/**
 * What a @Command's NestJS pipeline (guards, interceptors, pipes) yields when
 * it lets a request through: "journal this". The gateway turns it into a
 * journal entry; the command method itself runs later, at apply.
 */
export class AdmissionTicket {
  constructor(
    readonly pattern: string,
    /** The payload after pipes, or {@link RAW_PAYLOAD} to journal the request's own data. */
    readonly payload: unknown,
  ) {}
}

/** The handler has no whole-payload parameter: journal the request's data unchanged. */
export const RAW_PAYLOAD = Symbol.for('once:raw-payload');
