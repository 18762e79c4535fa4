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
  /**
   * The local ports of the open connections to the target, which Postgres shows as
   * `pg_stat_activity.client_port` of their backends.
   */
  connections(): number[];
  /**
   * Only the open connection whose side towards the target has this local port goes dead, as
   * in `blackHole` (the others, and new ones, still pass); false when there is none.
   */
  blackHoleConnection(port: number): boolean;
  /**
   * How many chunks clients have sent towards the target so far. A write a client makes
   * while it waits for nothing before it arrives as one chunk (up to the socket's buffer): a
   * client that awaits each answer before its next write sends one chunk per round trip.
   */
  chunksSent(): number;
  close(): Promise<void>;
}

/** A TCP proxy on loopback in front of `targetPort` that can drop everything (see `blackHole`). */
export async function blackHoleProxy(targetPort: number): Promise<BlackHoleProxy> {
  let holed = false;
  let chunks = 0;
  const flows = new Set<{ dead: boolean; client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const flow = { dead: holed, client, upstream };
    flows.add(flow);
    const pipe = (from: Socket, to: Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (from === client) chunks++;
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
    connections() {
      return [...flows].flatMap((flow) => (flow.upstream.localPort === undefined ? [] : [flow.upstream.localPort]));
    },
    blackHoleConnection(port) {
      const flow = [...flows].find((f) => f.upstream.localPort === port);
      if (flow) flow.dead = true;
      return flow !== undefined;
    },
    chunksSent: () => chunks,
    async close() {
      for (const flow of flows) {
        flow.client.destroy();
        flow.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A proxy in front of the Postgres server of `databaseUrl`, and that database's URL through it. */
export async function proxiedDatabase(databaseUrl: string): Promise<{ proxy: BlackHoleProxy; url: string }> {
  const url = new URL(databaseUrl);
  const proxy = await blackHoleProxy(Number(url.port || 5432));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url: url.toString() };
}
