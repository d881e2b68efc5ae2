import { type BuildSnapshot } from './build-snapshot';
import { ServerChild } from './server-child';

/** The NestJS TCP echo baseline (nest-tcp-echo.ts) as a child process on any free port. */
export class NestEchoServer {
  private constructor(
    private readonly child: ServerChild,
    readonly port: number,
  ) {}

  static async start(build: BuildSnapshot): Promise<NestEchoServer> {
    const { child, port } = await ServerChild.spawnListening(build, 'nest-tcp-echo', [
      '--port',
      '0',
    ]);
    return new NestEchoServer(child, port);
  }

  stop(): Promise<void> {
    return this.child.kill('SIGTERM');
  }
}
