import { type INestMicroservice } from '@nestjs/common';
import { OnceRuntime } from '@once/framework';

/**
 * Starts a once microservice and waits until its node serves (boot and
 * replay done). An app whose start fails is closed before the error is
 * rethrown, so a failing test leaves no data directory locked and no port
 * bound for the next one.
 */
export async function listenUntilReady(app: INestMicroservice): Promise<void> {
  try {
    await app.listen();
    await app.get(OnceRuntime).whenReady();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}
