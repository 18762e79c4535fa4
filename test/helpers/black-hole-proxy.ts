import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface BlackHoleProxy {
  port: number;
  /**
   * From now on nothing passes, on the open connections or on new ones (which are still
   * accepted), and no close passes either: a network black hole.
   */
  blackHole(): void;
  /** New connections pass again; those opened before `heal` stay dead, as flows over a lost path do. */
  heal(): void;
  close(): Promise<void>;
}

/** A TCP proxy on loopback in front of `targetPort` that can drop everything (see `blackHole`). */
export async function blackHoleProxy(targetPort: number): Promise<BlackHoleProxy> {
  let holed = false;
  const flows = new Set<{ dead: boolean; client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const flow = { dead: holed, client, upstream };
    flows.add(flow);
    const pipe = (from: Socket, to: Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (!flow.dead) to.write(chunk);
      });
      from.on('close', () => {
        if (flow.dead) return;
        to.destroy();
        flows.delete(flow);
      });
      from.on('error', () => {});
    };
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    blackHole() {
      holed = true;
      for (const flow of flows) flow.dead = true;
    },
    heal() {
      holed = false;
    },
    async close() {
      for (const flow of flows) {
        flow.client.destroy();
        flow.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
