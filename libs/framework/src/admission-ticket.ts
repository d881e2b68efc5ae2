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
    /** Keys of the payload that keyed `@Payload('key', pipe)` parameters transformed. */
    readonly keyed: Readonly<Record<string, unknown>> | undefined = undefined,
  ) {}
}

/** The handler has no whole-payload parameter: journal the request's data unchanged. */
export const RAW_PAYLOAD = Symbol.for('once:raw-payload');

/**
 * The rpc context of a once request receives the admission ticket directly
 * from the command's stub, so an interceptor that maps the pipeline's value
 * (a serializer, say) cannot lose the admission.
 */
export const ADMISSION_SINK = Symbol.for('once:admission-sink');

export interface AdmissionSink {
  [ADMISSION_SINK](ticket: AdmissionTicket): void;
}

export function isAdmissionSink(value: unknown): value is AdmissionSink {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<AdmissionSink>)[ADMISSION_SINK] === 'function'
  );
}
