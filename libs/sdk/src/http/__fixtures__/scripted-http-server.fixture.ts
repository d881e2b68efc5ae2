import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';

/** One scripted answer: drop the connection, never answer, or a status with headers and body. */
export type ScriptedAnswer =
  | { readonly kind: 'drop' }
  | { readonly kind: 'hang' }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: string;
    };

/** A request as the server received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly key: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

/**
 * A real HTTP server on 127.0.0.1 that answers its requests with a script, in
 * order (the last answer repeats once the script runs out), and records every
 * request it received, its Idempotency-Key header as sent.
 */
export class ScriptedHttpServer {
  readonly received: ReceivedRequest[] = [];
  private server!: Server;

  private constructor(private readonly script: readonly ScriptedAnswer[]) {}

  static async start(script: readonly ScriptedAnswer[]): Promise<ScriptedHttpServer> {
    const scripted = new ScriptedHttpServer(script);
    scripted.server = createServer((request, response) => {
      void scripted.answer(request, response);
    });
    await new Promise<void>((resolve) => scripted.server.listen(0, '127.0.0.1', resolve));
    return scripted;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The keys received, in order. */
  get keys(): (string | undefined)[] {
    return this.received.map((request) => request.key);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const index = this.received.length;
    this.received.push({
      method: request.method ?? '',
      url: request.url ?? '',
      key: request.headers['idempotency-key'] as string | undefined,
      contentType: request.headers['content-type'],
      body: Buffer.concat(chunks).toString('utf8'),
    });
    const step = this.script[Math.min(index, this.script.length - 1)];
    if (step.kind === 'drop') {
      request.socket.destroy();
      return;
    }
    if (step.kind === 'hang') return; // closed by close()
    response.writeHead(step.status, step.headers);
    response.end(step.body ?? '');
  }
}
