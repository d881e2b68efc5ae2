import { type BuildSnapshot, benchScript } from './build-snapshot';
import { ServerChild } from './server-child';

const LISTENING = /listening (\d+)/;
const LISTEN_TIMEOUT_MS = 30_000;

/** The NestJS TCP echo baseline (nest-tcp-echo.ts) as a child process on any free port. */
export class NestEchoServer {
  private constructor(
    private readonly child: ServerChild,
    readonly port: number,
  ) {}

  static async start(build: BuildSnapshot): Promise<NestEchoServer> {
    const child = ServerChild.spawn(
      build,
      benchScript(build, 'nest-tcp-echo'),
      ['--port', '0'],
      {},
    );
    try {
      const port = Number((await child.waitForLog(LISTENING, LISTEN_TIMEOUT_MS))[1]);
      return new NestEchoServer(child, port);
    } catch (error) {
      await child.kill();
      throw error;
    }
  }

  stop(): Promise<void> {
    return this.child.kill('SIGTERM');
  }
}
