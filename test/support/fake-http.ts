import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The plumbing the fake model services (fake-ollama.ts, fake-anthropic.ts) share: a local HTTP server that records
// every request, parses JSON bodies leniently, and can hold an answer back without outliving close().

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON (undefined when empty). */
  body: any;
}

/** Answers one request; `badJson` says the body was there but was not JSON (then `request.body` is the raw text). */
export type FakeHandler = (request: RecordedRequest, res: ServerResponse, badJson: boolean) => Promise<void>;

export interface FakeHttpServer {
  /** Base URL, http://127.0.0.1:<port>. */
  url: string;
  /** Every request received, in order (all paths). */
  readonly requests: RecordedRequest[];
  requestsTo(path: string): RecordedRequest[];
  forgetRequests(): void;
  /** Waits `ms` (a reply that hangs); close() cancels the wait, leaving the answer unsent. */
  pause(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeHttpServer(handle: FakeHandler): Promise<FakeHttpServer> {
  let requests: RecordedRequest[] = [];
  const pendingTimers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    void receive(req, res);
  });

  async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let body: any;
    let badJson = false;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        badJson = true;
      }
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(recorded);
    await handle(recorded, res, badJson);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    requestsTo: (path) => requests.filter((r) => r.path === path),
    forgetRequests: () => {
      requests = [];
    },
    pause: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          pendingTimers.delete(timer);
          resolve();
        }, ms);
        pendingTimers.add(timer);
      }),
    close: async () => {
      for (const timer of pendingTimers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
