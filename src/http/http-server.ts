import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';

/** Node's own default: a whole request must arrive within five minutes. */
const REQUEST_TIMEOUT_MS = 300_000;

export interface HttpServer {
  server: Server;
  /**
   * From now on every answer not yet begun carries `Connection: close`, so that a client does not
   * send its next request on a connection that is about to close.
   */
  closeConnectionsAfterAnswers(): void;
}

/**
 * The HTTP server around the app. Node closes idle keep-alive connections after 5 s, while a
 * load balancer keeps its own side open for 60 s: the balancer then sends a request on a
 * connection the service is closing at that moment, and the client gets a "socket hang up".
 * So idle connections stay open longer than the balancer's, and it is always the balancer that
 * closes. The headers timeout stays above the keep-alive timeout: Node 10 to 12 counted an idle
 * connection's wait against it and cut such connections early; the order costs nothing today.
 */
export function createHttpServer(app: RequestListener, options: { keepAliveTimeoutS: number }): HttpServer {
  const keepAliveTimeout = options.keepAliveTimeoutS * 1000;
  const headersTimeout = keepAliveTimeout + 1000;
  // Node refuses a headers timeout above the request timeout.
  const requestTimeout = Math.max(REQUEST_TIMEOUT_MS, headersTimeout);
  const server = createServer({ headersTimeout, requestTimeout }, app);
  server.keepAliveTimeout = keepAliveTimeout;

  const unanswered = new Set<ServerResponse>();
  let closing = false;
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  // Before the app's own listener, so that even an answer the app sends at once is covered.
  server.prependListener('request', (_req, res) => {
    if (closing) {
      closeAfter(res);
      return;
    }
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
  });
  return {
    server,
    closeConnectionsAfterAnswers() {
      closing = true;
      for (const res of unanswered) closeAfter(res);
      unanswered.clear();
    },
  };
}
