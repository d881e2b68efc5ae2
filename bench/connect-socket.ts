import { connect, type Socket } from 'node:net';

/**
 * A connected TCP socket with Nagle off (requests are written in whole
 * batches; delaying them would only add latency). Errors after the connect
 * are left to the 'close' that follows them.
 */
export function connectSocket(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}
