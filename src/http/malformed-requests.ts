import { randomUUID } from 'node:crypto';
import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

// Node's parser codes for requests too big to read; anything else it cannot parse is a 400.
const ANSWERS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'the request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request did not arrive in time'],
};

/**
 * Requests Node's HTTP parser refuses never reach Express; Node would answer them with a bare
 * 400. This answers them like every other failure: the Error body and the protocol headers.
 */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'HPE_CLOSED_CONNECTION') {
      // Bytes after a request that asked to close the connection are to be ignored (RFC 9112);
      // the answer to that request, if still to come, closes the connection itself.
      if (!inFlight) socket.destroy();
      return;
    }
    // Only while nothing of an answer has been written on this connection yet.
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, message] = ANSWERS[error.code ?? ''] ?? [400, 'the request is not valid HTTP/1.1'];
    const body = JSON.stringify({ errors: [message] });
    socket.end(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${randomUUID()}`,
        'API-Version: 1.0.0',
        'X-Content-Type-Options: nosniff',
        'Cache-Control: no-store',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
